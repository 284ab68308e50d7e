/* The program of TestNullProgressCallback (dispatch_test.go), compiled after
   checkPrelude: an iteration that reports its state to a progress callback
   when one is given (liblbfgs's lbfgs() calls its proc_progress so). No
   function of the program has the callback's type, and the callback is
   null here: the derivative runs, and is exact, in both modes. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef int (*progress_fn)(void *instance, const double *x, int n, int k);
struct solver { progress_fn progress; void *instance; };
__attribute__((noinline)) static void iterate(double *x, int n, const struct solver *s) {
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < n; i++) x[i] = 0.5 * x[i] * x[i] + 0.1 * x[(i + 1) % n];
		if (s->progress && s->progress(s->instance, x, n, k)) break;
	}
}
static double f(double *x) {
	struct solver s = {0, 0};
	double y[3] = {x[0], x[1], x[2]};
	iterate(y, 3, &s);
	return y[0] + 2 * y[1] + 3 * y[2];
}
int main(void) {
	double x[3] = {0.7, -0.4, 1.1}, g[3] = {0};
	__enzyme_autodiff((void *)f, x, g);
	for (int i = 0; i < 3; i++) {
		double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, dx[3] = {0};
		xp[i] += 1e-6;
		xm[i] -= 1e-6;
		dx[i] = 1;
		double fd = (f(xp) - f(xm)) / 2e-6;
		check("reverse", g[i], fd, 1e-7);
		check("forward", __enzyme_fwddiff((void *)f, x, dx), fd, 1e-7);
	}
	return failures != 0;
}
