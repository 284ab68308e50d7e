/* exitNests are loop nests whose inner loops cache values per iteration
 * (q and x are overwritten), so that their reverse needs each inner loop's
 * entry counter. comps's inner loops run DIM iterations in every
 * component, the first one vectorized at -O2 with a remainder loop that
 * starts where the vector loop stopped (a merge phi decided by conditions
 * outside the nest); tricomp's inner loop runs c + 1 times (its count
 * changes between components): their entry counters come from their exits
 * (exitentry.go). brkcomp's inner loop leaves on the data (its header
 * count is not its trip count's): its entry counter stays cached.
 * (exitNests in exitentry_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
__attribute__((noinline)) double comps(double *x, int n) {
	int d = DIM, k = n / d;
	double q[64], e = 0;
	for (int c = 0; c < k; c++) {
		for (int j = 0; j < d; j++) q[j] = x[c * d + j] - 0.5 * x[j];
		double s = 0;
		for (int j = 0; j < d; j++) {
			s += sin(q[j]) * q[j];
			q[j] = q[j] * s;
		}
		for (int j = 0; j < d; j++) s += q[j] * x[j];
		e += s * s;
	}
	return e;
}

__attribute__((noinline)) double tricomp(double *x, int n) {
	double e = 0;
	for (int c = 0; c < n; c++) {
		double s = 0;
		for (int j = 0; j <= c; j++) {
			x[j] = sin(x[j]) * 0.9 + 0.1 * x[c];
			s += x[j];
		}
		e += s * x[c];
	}
	return e;
}

__attribute__((noinline)) double brkcomp(double *x, int n) {
	double e = 0;
	for (int c = 0; c < 3; c++)
		for (int j = 0; j < n; j++) {
			x[j] = x[j] * cos(x[c]) + 0.3;
			e += x[j];
			if (x[j] > 0.8) break;
		}
	return e;
}

/* The count of afterx's inner loop is read after it (its exit value):
 * in the reverse, outside the loop's reverse. */
__attribute__((noinline)) double afterx(double *x, int n) {
	double t[64], e = 0;
	for (int m = 0; m < 3; m++) {
		int j;
		for (j = 0; j < n - m; j++) t[j] = x[j] * x[m];
		e += sin(t[j - 1]) * x[(j + m) % n];
		for (int i = 0; i < j; i++) e += t[i] * t[i];
	}
	return e;
}

CALLEE(comps)
CALLEE(tricomp)
/* The finite differences need functions that leave x alone. */
COPY64(comps)
COPY64(tricomp)
COPY64(brkcomp)
COPY64(afterx)
COPY64(comps_callee)
COPY64(tricomp_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(comps, 12);
	FDRUN(comps, 30);
	FDRUN(tricomp, 10);
	FDRUN(brkcomp, 10);
	FDRUN(afterx, 10);
	FDRUN(comps_callee, 12);
	FDRUN(tricomp_callee, 10);
	return failures != 0;
}
