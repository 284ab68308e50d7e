/* rmwSrc differentiates read-modify-writes: GMM's triangular update on a
 * heap buffer and a stack array the function owns (their shadows are
 * cleared to -0.0), rmw_ir both ways through its select, and an in-place
 * update of the caller's memory whose unseeded adjoints must read back as
 * +0.0 (0 * -2 added to a cleared +0.0; the private rule must not apply).
 * (rmwSrc in signzero_test.go; compiled after memoryPrelude) */
double rmw_ir(double *x, long n);
enum { N = 5 };
__attribute__((noinline)) double tri(double *x, int n) {
	double *y = malloc(n * sizeof *y), z[N];
	for (int j = 0; j < n; j++) { y[j] = x[j] * x[j]; z[j] = sin(x[j]); }
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) { y[j] += x[i] * z[j]; z[j] += y[i] * 0.5; }
	double s = 0;
	for (int j = 0; j < n; j++) s += y[j] * z[j];
	free(y);
	return s;
}
static double rmw_copy(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return rmw_ir(y, n); }
__attribute__((noinline)) void scale(double *x, int n) { for (int j = 0; j < n; j++) x[j] *= -2.0; }
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.13 * i;
	GRADCHECK(tri);
	for (long n = 3; n <= N; n += 2) {
		double xc[N], dx[N] = {0};
		memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)rmw_ir, enzyme_dup, xc, dx, enzyme_const, n);
		fdcheck(n == N ? "rmw_ir5" : "rmw_ir3", rmw_copy, x, (int)n, dx);
	}
	double y[N] = {1, 2, 3, 4, 5}, dy[N] = {0, 1, 0, 1, 0};
	__enzyme_autodiff((void *)scale, enzyme_dup, y, dy, enzyme_const, N);
	for (int j = 0; j < N; j++) {
		char what[32];
		snprintf(what, sizeof what, "scale[%d]", j);
		check(what, dy[j], j % 2 ? -2 : 0, 1e-12);
		if (signbit(dy[j]) != (j % 2)) { printf("FAIL %s: sign of %g\n", what, dy[j]); failures++; }
	}
	return failures != 0;
}
