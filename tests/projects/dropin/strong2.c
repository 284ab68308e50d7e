/* A second strong sq: 5x^2 (derivative 10x). */
double sq(double x) { return 5 * x * x; }
