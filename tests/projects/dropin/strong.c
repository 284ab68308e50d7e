/* The strong sq: x^3 + 2x^2 + 4x (derivative 3x^2 + 4x + 4). */
double sq(double x) { return x * x * x + 2 * x * x + 4 * x; }
