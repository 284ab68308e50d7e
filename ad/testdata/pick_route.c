/* The program of TestPickRouteRun (pick_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct { double a, b; } Pair;
Pair __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_v(void *, ...) __asm__("__enzyme_autodiff");
__attribute__((noinline)) double hugemax(double a, double b) { return HUGE_VAL * fmax(a, b); }
__attribute__((noinline)) double hugemin(double a, double b) { return HUGE_VAL * fmin(b, a); }
__attribute__((noinline)) double runmax(double *x, int n) {
	double mx = x[0];
	for (int i = 1; i < n; i++) mx = fmax(mx, x[i]);
	return HUGE_VAL * mx;
}
__attribute__((noinline)) double plainmax(double a, double b) { return fmax(a, b); }
__attribute__((noinline)) double mix(double a, double b) { return fmax(a * a, b) + fmin(a, 2 * b); }
static void exact(const char *what, double got, double want) {
	if (!(got == want)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s\n", what);
}
int main(void) {
	volatile double a = 1.5, b = -0.5;
	Pair g = __enzyme_autodiff((void *)hugemax, enzyme_out, a, enzyme_out, b);
	exact("max da", g.a, HUGE_VAL);
	exact("max db", g.b, 0);
	g = __enzyme_autodiff((void *)hugemin, enzyme_out, a, enzyme_out, b);
	exact("min da", g.a, 0);
	exact("min db", g.b, HUGE_VAL);
	/* the running max keeps x[1] on the tie with x[3] */
	double x[5] = {1, 3, -2, 3, 0.5}, dx[5] = {0};
	__enzyme_autodiff_v((void *)runmax, enzyme_dup, x, dx, enzyme_const, 5);
	for (int i = 0; i < 5; i++) {
		char what[32];
		snprintf(what, sizeof what, "runmax dx[%d]", i);
		exact(what, dx[i], i == 1 ? HUGE_VAL : 0);
	}
	exact("fwd max", __enzyme_fwddiff((void *)hugemax, a, 1.0, b, 0.0), HUGE_VAL);
	exact("fwd max, the other infinite", __enzyme_fwddiff((void *)plainmax, a, 1.0, b, HUGE_VAL), 1.0);
	double h = 1e-6, pts[3][2] = {{1.5, -0.5}, {0.3, 0.8}, {-1.2, 0.4}};
	for (int k = 0; k < 3; k++) {
		double p = pts[k][0], q = pts[k][1];
		double fd = (mix(p + 0.3 * h, q - 0.7 * h) - mix(p - 0.3 * h, q + 0.7 * h)) / (2 * h);
		check("fwd mix", __enzyme_fwddiff((void *)mix, p, 0.3, q, -0.7), fd, 1e-6);
	}
	return failures != 0;
}
