double sq(double x) { return x * x; }
