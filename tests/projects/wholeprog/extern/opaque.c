double opaque(double x) { return x * x * x; }
