/* triNests are GMM-like loop nests over components c: xc and q are
 * rewritten per component (so the reverse needs xc[i] of each one, cached)
 * and q[j] accumulates a strictly lower triangle. tri indexes the triangle
 * by i and j; trili by a running index li carried from one i-iteration to
 * the next through the inner loop's exit value, starting at an affine
 * function of c (GMM's l[li++]). At -O2 the inner loop is vectorized with
 * a scalar remainder whose start is a merge phi, and the rotated i-loop
 * keeps i beside i+1. cntli carries its index through an inner loop whose
 * count is data (read from cnt): no trip count, no affine form.
 * (triNests in induction_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
/* The first k*d entries of x are the components' data, then k triangles
   (of d*d for tri, packed in lsz for trili). */
__attribute__((noinline)) double tri(double *x, int n) {
	int d = DIM, k = n / (d + d * d);
	double xc[64], q[64], e = 0;
	for (int c = 0; c < k; c++) {
		for (int j = 0; j < d; j++) xc[j] = x[c * d + j] - 0.5 * x[j];
		for (int j = 0; j < d; j++) q[j] = xc[j];
		for (int i = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) q[j] += x[k * d + c * d * d + i * d + j] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}

__attribute__((noinline)) double trili(double *x, int n) {
	int d = DIM, lsz = d * (d - 1) / 2, k = n / (d + lsz);
	double xc[64], q[64], e = 0;
	for (int c = 0; c < k; c++) {
		for (int j = 0; j < d; j++) xc[j] = x[c * d + j] - 0.5 * x[j];
		for (int j = 0; j < d; j++) q[j] = xc[j];
		int li = k * d + c * lsz;
		for (int i = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) q[j] += x[li++] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}

static const int cnt[8] = {2, 0, 3, 1, 1, 2, 0, 3};
__attribute__((noinline)) double cntli(double *x, int n) {
	double q[64], e = 0;
	for (int j = 0; j < n; j++) q[j] = x[j];
	int li = 0;
	for (int i = 0; i < n / 2; i++) {
		double xi = q[i];
		for (int j = 0; j < cnt[i % 8]; j++) {
			q[(li + j) % n] += x[li % n] * xi;
			li++;
		}
		q[i] = sin(q[i]);
	}
	for (int j = 0; j < n; j++) e += q[j] * q[j];
	return e;
}

CALLEE(tri)
CALLEE(trili)
/* The finite differences need functions that leave x alone. */
#define COPY(f) static double f##_copy(double *x, int n) { double y[160]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(tri)
COPY(trili)
COPY(cntli)
COPY(tri_callee)
COPY(trili_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(tri, 160);
	FDRUN(trili, 30);
	FDRUN(trili, 80);
	FDRUN(cntli, 12);
	FDRUN(tri_callee, 160);
	FDRUN(trili_callee, 30);
	return failures != 0;
}
