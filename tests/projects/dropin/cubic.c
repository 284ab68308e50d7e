double cubic(double x) { return x * x * x; }
