/* The program of TestGrowOnEntryMergeRun (entrymerge_test.go), compiled after memoryPrelude. */
double rem_ir(double *x, long n, long d);
enum { N = 7 };
static long D;
static double rem_n(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return rem_ir(y, n, D); }
/* A caller: rem_ir split into an augmented forward and a reverse. */
__attribute__((noinline)) double callrem(double *x, int n) { return sin(rem_n(x, n)); }
__attribute__((noinline)) double centred(double *x, int n) {
	double s = 0, c[N];
	int d = n - 2;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < d; j++) c[j] = x[j + 2] - x[i];
		for (int j = 0; j < d; j++) c[j] = c[j] * x[j];
		for (int j = 0; j < d; j++) s += c[j] * c[j];
	}
	return s;
}
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	static const long ds[] = {1, 5, 6, 7, 2};
	for (int k = 0; k < 5; k++) {
		D = ds[k];
		double xc[N], dx[N] = {0};
		memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)rem_ir, enzyme_dup, xc, dx, enzyme_const, (long)N, enzyme_const, D);
		char name[16];
		snprintf(name, sizeof name, "rem_d%ld", D);
		fdcheck(name, rem_n, x, N, dx);
		if (D < 2)
			continue; /* see below */
		double xk[N], dxk[N] = {0};
		memcpy(xk, x, sizeof x);
		__enzyme_autodiff((void *)callrem, enzyme_dup, xk, dxk, enzyme_const, N);
		snprintf(name, sizeof name, "callrem_d%ld", D);
		fdcheck(name, callrem, x, N, dxk);
	}
	GRADCHECK(centred);
	return failures != 0;
}
