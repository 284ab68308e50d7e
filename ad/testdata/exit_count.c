/* The program of TestExitCountRun (pathiter_test.go), compiled after memoryPrelude. */
double down_ir(double *x, long n, long k);
enum { N = 8 };
static long n;
static double down_n(double *x, int m) { return down_ir(x, n, 3); }
__attribute__((noinline)) double calldown(double *x, int m) { return sin(down_n(x, m)); }
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.02 * i * i;
	static const long ns[] = {2, 5, 8};
	for (int k = 0; k < 3; k++) {
		n = ns[k];
		double xc[N], dx[N] = {0}, xk[N], dxk[N] = {0};
		char name[16];
		memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)down_ir, enzyme_dup, xc, dx, enzyme_const, n, enzyme_const, 3L);
		snprintf(name, sizeof name, "down_n%ld", n);
		fdcheck(name, down_n, x, N, dx);
		memcpy(xk, x, sizeof x);
		__enzyme_autodiff((void *)calldown, enzyme_dup, xk, dxk, enzyme_const, N);
		snprintf(name, sizeof name, "calldown_n%ld", n);
		fdcheck(name, calldown, x, N, dxk);
	}
	return failures != 0;
}
