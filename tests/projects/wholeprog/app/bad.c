double opaque(double);   /* defined in extern/opaque.c, compiled by plain gcc */
double __enzyme_autodiff(void *, ...);
static double f(double x) { return opaque(x) * x; }
int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0; }
