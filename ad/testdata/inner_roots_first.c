/* The program of TestInnerRootsFirst (second_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
void grad_cubic(double *x, double *dx, int n);
__attribute__((noinline)) double cubic(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i] * x[(i + 1) % n];
	return s;
}
int main(void) {
	enum { N = 3 };
	double x[N] = {0.5, -1, 2}, v[N] = {1, 0.5, -0.25}, dx[N] = {0}, hv[N] = {0};
	__enzyme_fwddiff((void *)grad_cubic, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
	/* H of sum x_i^2 x_{i+1}: d2/dx_i^2 = 2 x_{i+1}, d2/dx_i dx_{i+1} = 2 x_i. */
	for (int i = 0; i < N; i++) {
		int nx = (i + 1) % N, pv = (i + N - 1) % N;
		double want = 2 * x[nx] * v[i] + 2 * x[i] * v[nx] + 2 * x[pv] * v[pv];
		CHECK("Hv", hv[i], want);
	}
	return failures != 0;
}
void grad_cubic(double *x, double *dx, int n) {
	__enzyme_autodiff((void *)cubic, enzyme_dup, x, dx, enzyme_const, n);
}
