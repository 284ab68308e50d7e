/* The program of TestLocalCounterRun (localcounter_test.go), compiled after memoryPrelude. */
double sums_ir(double *x, long n, long m);
double sums_last_ir(double *x, long n, long m);
enum { N = 7 };
static double sums(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return sums_ir(y, n, n - 2); }
static double sums_last(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return sums_last_ir(y, n, n - 1); }
__attribute__((noinline)) double sweep(double *x, int n) {
	double s = 0, c[N], q[N];
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n - i % 3; j++) c[j] = x[j] - x[i];
		for (int j = 0; j < n - i % 3; j++) q[j] = c[j] * x[j];
		for (int a = 0; a < n - 1; a++)
			for (int b = a + 1; b < n; b++) q[b] += 0.1 * c[a];
		double t = 0;
		for (int j = 0; j < n - i % 3; j++) t += q[j] * q[j];
		s += sin(t);
	}
	return s;
}
/* Calls: sweep split into an augmented forward and a reverse. */
__attribute__((noinline)) double twice(double *x, int n) { return sin(sweep(x, n)) + sweep(x, n) * x[0]; }
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	for (int k = 0; k < 2; k++) {
		double xc[N], dx[N] = {0};
		memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)sums_ir, enzyme_dup, xc, dx, enzyme_const, (long)N, enzyme_const, (long)N - 2);
		fdcheck("sums", sums, x, N, dx);
		double xl[N], dxl[N] = {0};
		memcpy(xl, x, sizeof x);
		__enzyme_autodiff((void *)sums_last_ir, enzyme_dup, xl, dxl, enzyme_const, (long)N, enzyme_const, (long)N - 1);
		fdcheck("sums_last", sums_last, x, N, dxl);
	}
	GRADCHECK(sweep);
	GRADCHECK(twice);
	return failures != 0;
}
