/* decisionNests are steps ending in a block entered three ways: past the
 * two guards, through the loop under both, or through the other branch
 * (waysKernels). Each runs with n
 * taking every way (12: the loop, 6: the other branch, 3: past both),
 * combined and as a callee (split).
 * (decisionNests in decide_test.go; compiled after memoryPrelude, waysKernels) */
#define CALLEE(f) __attribute__((noinline)) double f##_callee(double *x, int n) { return 2 * f(x, n); }
CALLEE(ways)
CALLEE(waysdata)
#define COPY16(f) static double f##_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY16(ways)
COPY16(waysdata)
COPY16(ways_callee)
COPY16(waysdata_callee)
#define WAYS(f, n) do { \
		double x[n], xc[n], dx[n]; \
		for (int i = 0; i < n; i++) x[i] = 0.25 + 0.11 * i - 0.01 * i * i, dx[i] = 0; \
		memcpy(xc, x, sizeof x); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n); \
		fdcheck(#f, f##_copy, x, n, dx); \
	} while (0)
int main(void) {
	WAYS(ways, 12); WAYS(ways, 6); WAYS(ways, 3);
	WAYS(waysdata, 12); WAYS(waysdata, 6); WAYS(waysdata, 3);
	WAYS(ways_callee, 12); WAYS(ways_callee, 6);
	WAYS(waysdata_callee, 12); WAYS(waysdata_callee, 6);
	return failures != 0;
}
