/* The program of TestPickZeroRun (pick_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double max2(double *x, int n) { return 3 * fmax(x[0], x[1]) + x[0] * x[1]; }
__attribute__((noinline)) double min2(double *x, int n) { return 3 * fmin(x[1], x[0]) + x[0] * x[1]; }
__attribute__((noinline)) double maxonly(double *x, int n) { return 3 * fmax(x[0], x[1]); }
__attribute__((noinline)) double minonly(double *x, int n) { return 3 * fmin(x[1], x[0]); }
__attribute__((noinline)) double runmax(double *x, int n) {
	double mx = x[0];
	for (int i = 1; i < n; i++) mx = fmax(mx, x[i]);
	return 2 * mx;
}
__attribute__((noinline)) double plainmax(double a, double b) { return fmax(a, b); }
static void negzero(const char *what, double got) {
	if (!(got == 0 && signbit(got))) { printf("FAIL %s: got %.17g want -0\n", what, got); failures++; }
	else printf("ok %s: -0\n", what);
}
/* dx, the gradient of f at x0 with shadows starting at -0, against central
   differences, or exactly -0 where keep is set */
static void compare(const char *name, double (*f)(double *, int), const double *x0, int n, const double *dx, const int *keep) {
	double x[8], h = 1e-6;
	for (int i = 0; i < n; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s dx[%d]", name, i);
		if (keep[i]) {
			negzero(what, dx[i]);
			continue;
		}
		for (int j = 0; j < n; j++) x[j] = x0[j];
		x[i] = x0[i] + h;
		double fp = f(x, n);
		x[i] = x0[i] - h;
		double fm = f(x, n);
		check(what, dx[i], (fp - fm) / (2 * h), 1e-6);
	}
}
#define GRAD(f, x0, n, keep) do { \
		double x[8], dx[8]; \
		for (int i = 0; i < n; i++) x[i] = x0[i], dx[i] = -0.0; \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); \
		compare(#f, f, x0, n, dx, keep); \
	} while (0)
int main(void) {
	static const double x2[2] = {1.5, -0.5};
	static const int none[2] = {0, 0}, keep1[2] = {0, 1}, keep0[2] = {1, 0};
	GRAD(max2, x2, 2, none);
	GRAD(min2, x2, 2, none);
	GRAD(maxonly, x2, 2, keep1);
	GRAD(minonly, x2, 2, keep0);
	/* the running max keeps x[1] on the tie with x[3] */
	double x[5] = {1, 3, -2, 3, 0.5}, dx[5] = {-0.0, -0.0, -0.0, -0.0, -0.0};
	__enzyme_autodiff((void *)runmax, enzyme_dup, x, dx, enzyme_const, 5);
	for (int i = 0; i < 5; i++) {
		char what[32];
		snprintf(what, sizeof what, "runmax dx[%d]", i);
		if (i == 1)
			check(what, dx[i], 2, 0);
		else
			negzero(what, dx[i]);
	}
	volatile double a = 1.5, b = -0.5;
	negzero("fwd max, picked tangent -0", __enzyme_fwddiff((void *)plainmax, a, -0.0, b, 1.0));
	negzero("fwd max, other tangent -0", __enzyme_fwddiff((void *)plainmax, b, 1.0, a, -0.0));
	return failures != 0;
}
