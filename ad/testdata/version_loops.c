/* versionLoops are nested loops whose forward copies in a gradient get two
 * versions, picked by the inner loop's iteration count at run time (short:
 * scalar, long: left to the vectorizer): a triangular product whose rows
 * run from i + 1 to d, a loop counting down, an inner sum whose value is
 * used past the loop, and a loop entered past a guard that joins its exit.
 * d = $DIM (3: every copy short; 20 and 40: long rows and short ones).
 * (TestLoopVersionRun in loopversion_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
__attribute__((noinline)) double vtri(double *x, int n) {
	int d = DIM, k = n / d;
	double c[64], y[64], e = 0;
	for (int m = 0; m < k; m++) {
		for (int j = 0; j < d; j++) c[j] = x[m * d + j] - 0.5 * x[j];
		for (int j = 0; j < d; j++) y[j] = x[(m * d + j + 1) % n] * c[j];
		for (int i = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) y[j] += x[(i * d + j) % n] * c[i];
		double s = 0;
		for (int j = d - 1; j >= 0; j--) s += y[j] * y[j] * (j + 1);
		e += sin(s / (d * d));
	}
	return e;
}

__attribute__((noinline)) double vsums(double *x, int n) {
	int d = DIM;
	double e = 0;
	for (int r = 0; r < 4; r++) {
		double s = 0, p = 0;
		int a = (r * 7) % (d + 1);
		for (int j = a; j < d; j++) {
			s += x[j % n] * x[(j + r) % n];
			p = s * 0.5 + x[j % n];
		}
		e += s * p + (a < d ? s : 1.0);
		for (int j = 0; j < d; j++) x[j % n] = x[j % n] * 0.9 + s * 0.01;
	}
	return e + x[0];
}

CALLEE(vtri)
COPY64(vtri)
COPY64(vsums)
COPY64(vtri_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(vtri, 40);
	FDRUN(vtri, 63);
	FDRUN(vsums, 17);
	FDRUN(vsums, 50);
	FDRUN(vtri_callee, 40);
	return failures != 0;
}
