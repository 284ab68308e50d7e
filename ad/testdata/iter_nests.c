/* iterNests are nests whose inner loop's trip count depends on the outer
 * loop's induction variable, vectorized at -O2 and -O3 into a vector body
 * and a scalar remainder: the join after them is decided per outer
 * iteration by min.iters.check and cmp.n, functions of that count
 * (pathdecide.go's iterationCond). trirun is GMM's triangle, j = i+1 .. d
 * with a running index li carried across i; skew runs j = 0 .. d-i over
 * q[i+j]; grow runs j = 0 .. i. In datacount the count is data (x[i]
 * compared): its join keeps its record. xc is rewritten per component c,
 * so the outer loops cache xc[i].
 * (iterNests in pathiter_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 3; /* not a constant: the component loops stay loops at -O3 */
#define XC(c, j) (x[((c) * d + (j)) % n] * x[((c) * d + (j) + 1) % n] - 0.5)
__attribute__((noinline)) double trirun(double *x, int n) {
	int d = DIM, lsz = d * (d - 1) / 2;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j] * x[j];
		int li = K * d + c * lsz;
		for (int i = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) q[j] += x[li++] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double skew(double *x, int n) {
	int d = DIM;
	double xc[16], q[32], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < 2 * d; j++) q[j] = 0.25 * j;
		for (int i = 0; i < d; i++)
			for (int j = 0; j < d - i; j++) q[i + j] += x[K * d + i * d + j] * xc[i];
		for (int j = 0; j < 2 * d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double grow(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j];
		for (int i = 0; i < d; i++)
			for (int j = 0; j <= i; j++) q[j] += x[K * d + i * d + j] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double datacount(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j];
		for (int i = 0; i < d; i++) {
			int m = x[i] > 0.4 ? d : d - i;
			for (int j = 0; j < m; j++) q[j] += x[K * d + i * d + j] * xc[i];
		}
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(trirun)
CALLEE(skew)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(trirun)
COPY(skew)
COPY(grow)
COPY(datacount)
COPY(trirun_callee)
COPY(skew_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(trirun, 128);
	FDRUN(skew, 128);
	FDRUN(grow, 128);
	FDRUN(datacount, 128);
	FDRUN(trirun_callee, 128);
	FDRUN(skew_callee, 128);
	return failures != 0;
}
