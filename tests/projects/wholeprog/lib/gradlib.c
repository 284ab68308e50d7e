#include <math.h>
/* An archive member with its own Enzyme call: d/dx of x*exp(x). */
double __enzyme_autodiff(void *, ...);
static double f(double x) { return x * exp(x); }
double lib_grad(double x) { return __enzyme_autodiff((void *)f, x); }
