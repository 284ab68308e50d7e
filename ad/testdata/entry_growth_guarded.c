/* A nest whose innermost loop is skipped by its guard on some entries: its
 * trip count m = n/2 - r is negative when the guard skips it (n = 1..3)
 * (TestGrowOnEntryGuardSkipsRun, entrygrow_test.go; compiled after
 * loopRunPrelude). */
__attribute__((noinline)) double guarded(double *x, int n) {
	double e = 0;
	for (int r = 0; r < 2; r++) {
		int m = n / 2 - r;
		for (int s = 0; s < 2; s++) {
			for (int i = 0; i < m; i++) x[i] = sin(x[i]);
			e += x[0];
		}
	}
	return e;
}
CALLEE(guarded)
COPY64(guarded)
COPY64(guarded_callee)
int main(void) {
	for (int n = 1; n <= 5; n++) { FDRUN(guarded, n); FDRUN(guarded_callee, n); }
	return failures != 0;
}
