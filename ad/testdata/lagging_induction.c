/* The program of TestLaggingInductionRun (induction_test.go), compiled after memoryPrelude. */
double lag_ir(double *x, long n);
enum { N = 9 };
static double lag(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return lag_ir(y, n); }
int main(void) {
	double x[N], xc[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.13 * i;
	memcpy(xc, x, sizeof x);
	__enzyme_autodiff((void *)lag_ir, enzyme_dup, xc, dx, enzyme_const, (long)N);
	fdcheck("lag", lag, x, N, dx);
	return failures != 0;
}
