/* wrapNest: a triangle whose outer counter is a 32-bit unsigned that
 * wraps through 0 (it starts at BASE = 2^32 - 2), the inner count i + 4
 * wrapping with it (2, 3, 4, ...): at -O2 and -O3 the inner loop is
 * vectorized, and the join after it is decided per outer iteration from
 * conditions on the wrapped counter (iterationCond), rebuilt in the
 * reverse from the outer loop's linear counter in 32-bit arithmetic.
 * (wrapNest in pathwrap_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 2;
unsigned BASE = 4294967294u; /* not a constant */
__attribute__((noinline)) double wrap(double *x, int n) {
	int d = DIM;
	unsigned base = BASE;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d + 4; j++) q[j] = 0.25 * j + x[(c + j) % n];
		for (int j = 0; j < d; j++) xc[j] = x[(c * d + j) % n] * x[(c * d + j + 1) % n] - 0.5;
		for (unsigned i = base; i != base + d; i++)
			for (unsigned j = 0; j < i + 4; j++) q[j] += x[(K + i - base) * 8 + j] * xc[i - base];
		for (int j = 0; j < d + 4; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(wrap)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(wrap)
COPY(wrap_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(wrap, 128);
	FDRUN(wrap_callee, 128);
	return failures != 0;
}
