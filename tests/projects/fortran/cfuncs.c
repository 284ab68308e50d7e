/* C code called from Fortran (chain.f90) inside the differentiated code. */
#include <math.h>

double softplus(double x) { return log1p(exp(x)); }
