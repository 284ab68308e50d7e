/* An Enzyme entry point gozyme does not implement. */
double __enzyme_fwdsplit(void *, ...);
double f(double x) { return x * x; }

int main(void) { return (int)__enzyme_fwdsplit((void *)f, 1e-7, 0.0); }
