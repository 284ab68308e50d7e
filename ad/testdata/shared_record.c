/* The program of TestSharedRecordRun (sharedrec_test.go), compiled after memoryPrelude and linked with the IR of sharedRecIR. */
enum { N = 12 };
double sr_same(double *x, int n);
double sr_skip(double *x, int n);
double sr_other(double *x, int n);
__attribute__((noinline)) double twice_same(double *x, int n) { return 2 * sr_same(x, n); }
__attribute__((noinline)) double twice_skip(double *x, int n) { return 2 * sr_skip(x, n) + sr_same(x, n); }
__attribute__((noinline)) double twice_other(double *x, int n) { return 2 * sr_other(x, n); }
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.07 * i - 0.05 * (i % 4);
	for (int call = 0; call < 2; call++) {
		GRADCHECK(sr_same);
		GRADCHECK(sr_skip);
		GRADCHECK(sr_other);
		GRADCHECK(twice_same);
		GRADCHECK(twice_skip);
		GRADCHECK(twice_other);
	}
	return failures != 0;
}
