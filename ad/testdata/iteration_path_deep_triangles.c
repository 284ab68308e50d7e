/* Triangles inside a loop around them (t), the inner start or end
 * depending on both t and i: deep3 by a select on t's parity, deep4 over
 * 32-bit unsigned counters with two inner loops. At -O2/-O3 deep4's joins
 * after its vector loops are decided per iteration of i, through phis the
 * paths fix, from i's and t's counters. d is $DIM, the rounds $T where set
 * (TestIterationPathDeepTriangleRun, pathiter_test.go; compiled after
 * loopRunPrelude). */
#include <stdlib.h>
int DIM = 5, T = 3;
__attribute__((noinline)) double deep3(double *x, int n) {
	int d = DIM, tt = T; double q[64], e = 0;
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) q[j] = x[j % n];
	for (int t = 0; t < tt; t++)
		for (int i = 0; i < d; i++) {
			double c = x[(i + t + 3) % n] * x[(i + 5) % n];
			int st = (t & 1) ? i + t : i;
			for (int j = st; j < d + t; j++) q[j] += x[(i * 7 + j) % n] * c;
			e += q[i + t] * c;
		}
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) e += q[j] * q[j];
	return e;
}
__attribute__((noinline)) double deep4(double *x, int n) {
	int d = DIM, tt = T; double q[64], e = 0;
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) q[j] = x[j % n];
	for (int t = 0; t < tt; t++)
		for (unsigned i = 0; i < (unsigned)d; i++) {
			double c = x[(i + t + 3) % n] * x[(i + 5) % n];
			for (unsigned j = i * 2; j < (unsigned)(d + t); j++) q[j] += x[(i * 7 + j) % n] * c;
			for (unsigned j = 0; j < i; j++) q[j + 1] -= 0.5 * x[(i + j) % n] * c;
			e += q[i + t] * c;
		}
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) e += q[j] * q[j];
	return e;
}
CALLEE(deep3) CALLEE(deep4)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(deep3) COPY(deep3_callee) COPY(deep4) COPY(deep4_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	if (getenv("T")) T = atoi(getenv("T"));
	FDRUN(deep3, 41); FDRUN(deep3_callee, 41); FDRUN(deep4, 41); FDRUN(deep4_callee, 41);
	return failures != 0;
}
