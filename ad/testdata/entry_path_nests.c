/* iterNests' shape (K components of a d-vector in local buffers, x read
 * only) with a copy counting down with != by 1 and by 2, an inner count
 * d - 3 (negative for d < 3), and inner loops entered past branches on
 * values invariant in the nest that do not dominate them (d > 4 || K > 5;
 * d odd), so that their records grow on entry under a decision over paths.
 * d is $DIM where set (TestEntryPathNestsRun, entrypath_test.go; compiled
 * after loopRunPrelude). */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 3;
#define XC(c, j) (x[((c) * d + (j)) % n] * x[((c) * d + (j) + 1) % n] - 0.5)
__attribute__((noinline)) double down_nest(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = d - 1; j != -1; j--) q[j] = xc[j] * x[j];
		for (int j = 2 * (d - 1); j > 0 && j != 0; j -= 2) q[j / 2] += xc[j / 2] * x[j / 2 + 1];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double neg_nest(double *x, int n) {
	int d = DIM, m = d - 3;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = 0.5;
		if (d > 4 || K > 5)
			for (int j = 0; j < m; j++) q[j] = xc[j] * x[j + 1];
		if (d & 1)
			for (int j = 0; j < d; j++) q[j] += xc[j] * xc[j];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(down_nest)
CALLEE(neg_nest)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(down_nest)
COPY(neg_nest)
COPY(down_nest_callee)
COPY(neg_nest_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(down_nest, 64);
	FDRUN(neg_nest, 64);
	FDRUN(down_nest_callee, 64);
	FDRUN(neg_nest_callee, 64);
	return failures != 0;
}
