/* The program of TestVariableLengthArrayRun (vla_test.go), compiled after memoryPrelude. */
enum { N = 9 };
__attribute__((noinline)) static void fill(double *y, const double *x, int n) {
	for (int i = 0; i < n; i++) y[i] = sin(x[i]) * x[i];
}
static double once(double *x, int n) {
	double y[n];
	fill(y, x, n);
	double e = 0;
	for (int i = 0; i < n; i++) e += y[i] * y[i];
	return e;
}
static double per_row(double *x, int n) {
	double e = 0;
	for (int r = 1; r <= n; r++) {
		double y[r];
		fill(y, x, r);
		for (int i = 0; i < r; i++) e += y[i] * x[r - 1];
	}
	return e;
}
int main(void) {
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.5 * sin(1.3 * i);
	__enzyme_autodiff((void *)once, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("once", once, x, N, dx);
	for (int i = 0; i < N; i++) dx[i] = 0;
	__enzyme_autodiff((void *)per_row, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("per_row", per_row, x, N, dx);
	return failures != 0;
}