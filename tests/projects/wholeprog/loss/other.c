/* Reached only through app/bconly.c's bitcode (see there). */
double other(double x) { return x * x * x; }
