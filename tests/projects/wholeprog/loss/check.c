#include <math.h>
/* An object with its own Enzyme call, independent of lib/gradlib.c: the two
   are differentiated as separate groups, in parallel. */
double __enzyme_autodiff(void *, ...);
static double g(double x) { return sin(x) * x; }
double check_grad(double x) { return __enzyme_autodiff((void *)g, x); }
