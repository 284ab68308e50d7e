/* The program of TestCallbackParameters (retype_test.go), compiled after bitsPrelude. */
typedef void (*rhs)(const double *, double *);
static void decay(const double *x, double *dx) { dx[0] = -1.5 * x[0]; }
static void grow(const double *x, double *dx) { dx[0] = 0.5 * x[0]; }
__attribute__((noinline)) void step(rhs f, double *x, double h) { double d[1]; f(x, d); x[0] += h * d[0]; }
double both(double x0) { double x[1] = {x0}; step(decay, x, 0.1); step(grow, x, 0.1); return x[0]; }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)both, 0.5)); return 0; }
