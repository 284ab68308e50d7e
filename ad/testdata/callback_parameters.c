/* The program of TestCallbackParameters (retype_test.go), compiled after bitsPrelude. */
typedef void (*rhs)(const double *, double *);
static void decay(const double *x, double *dx) { dx[0] = -1.5 * x[0]; }
__attribute__((noinline)) void step(rhs f, double *x, double h) { double d[1]; f(x, d); x[0] += h * d[0]; }
__attribute__((noinline)) void integrate(rhs f, double *x, double h, int n) { for (int i = 0; i < n; i++) step(f, x, h); }
double euler(double x0) { double x[1] = {x0}; integrate(decay, x, 0.1, 5); return x[0]; }
int main(void) {
	volatile double xs[] = {-0.75, 2.0};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		CHECK("callback", __enzyme_autodiff((void *)euler, x), pow(1 - 0.15, 5));
		CHECK("fwd callback", __enzyme_fwddiff((void *)euler, x, 1.0), pow(1 - 0.15, 5));
	}
	return failures != 0;
}
