/* __float128 (fp128) gradients against the analytic derivatives: cube,
 * poly and scale combined, poly_callee split (TestQuadPrecisionGradient,
 * scalar_test.go; compiled after checkPrelude). */
typedef __float128 quad;
__attribute__((noinline)) quad cube(quad x) { return x * x * x; }
__attribute__((noinline)) quad poly(quad x, int n) {
	quad s = 1, p = x;
	for (int i = 0; i < n; i++) { s = s * x + p / (x + i); p = p * 0.5; }
	return s;
}
/* A constant whose low 64 bits read, high word first, as a NaN: llir made
 * it a NaN, written back as a denormal. */
__attribute__((noinline)) quad scale(quad x) { return x * (2 - 0x1p-112Q); }
__attribute__((noinline)) quad poly_callee(quad x, int n) { return 2 * poly(x, n); }
static double dpoly(double x, int n) {
	double s = 1, p = x, ds = 0, dp = 1;
	for (int i = 0; i < n; i++) {
		double q = p / (x + i);
		double dq = (dp * (x + i) - p) / ((x + i) * (x + i));
		ds = ds * x + s + dq;
		s = s * x + q;
		dp = dp * 0.5;
		p = p * 0.5;
	}
	return ds;
}
quad __enzyme_autodiff(void *, ...);
extern int enzyme_const;
int main(void) {
	volatile double xs[] = {2.0, -0.75, 1.5};
	for (int k = 0; k < 3; k++) {
		double x = xs[k];
		CHECK("cube'", (double)__enzyme_autodiff((void *)cube, (quad)x), 3 * x * x);
		CHECK("poly'", (double)__enzyme_autodiff((void *)poly, (quad)x, enzyme_const, 4), dpoly(x, 4));
		CHECK("scale'", (double)__enzyme_autodiff((void *)scale, (quad)x), 2.0);
		CHECK("scale", (double)scale((quad)x), 2 * x);
		CHECK("poly_callee'", (double)__enzyme_autodiff((void *)poly_callee, (quad)x, enzyme_const, 3), 2 * dpoly(x, 3));
	}
	return failures != 0;
}
