/* Nests of exact != loops, whose entry counters the reverse recomputes
 * from their counts without the clamp of a negative distance, and path
 * decisions rebuilt per iteration. The bounds come from $LO, $HI, $R and
 * $DIM where set (TestExitCountNestRun, pathiter_test.go; compiled after
 * loopRunPrelude). */
#include <stdlib.h>
long LO = 2, HI = 5; int R = 3; int DIM = 5;
static long envl(const char *k, long d) { return getenv(k) ? atol(getenv(k)) : d; }

/* != loops (64-bit) in a nest: entry counters recomputed from their counts. */
__attribute__((noinline)) double nenest(double *x, int n) {
	long lo = LO, hi = HI; int r = R;
	double s = 0.5;
	for (int t = 0; t < r; t++)
		for (long i = lo; i != hi; i++)
			for (long j = lo; j != hi + 1; j++)
				s = sin(x[(i * 3 + j + t) % n] * s + 0.1) + 0.5 * s;
	return s;
}

/* != loops under an invariant guard that may skip them in every iteration. */
__attribute__((noinline)) double neguard(double *x, int n) {
	long lo = LO, hi = HI; int r = R;
	double s = 0.5;
	for (int t = 0; t < r; t++) {
		if (lo < hi)
			for (long i = lo; i != hi; i++)
				for (long j = hi; j != lo; j--)
					s = cos(x[(i * 5 + j + t) % n] * s) + 0.25 * s;
		s = s * x[t % n] + 0.1;
	}
	return s;
}

/* step 2 != loops, the inner one starting past nothing. */
__attribute__((noinline)) double nestep(double *x, int n) {
	long lo = LO, hi = HI; int r = R;
	double s = 0.5;
	for (int t = 0; t < r; t++)
		for (long i = lo; i != lo + 2 * (hi - lo); i += 2)
			for (int k = 0; k < r; k++)
				for (long j = 2 * hi; j != 2 * lo; j -= 2)
					s = sin(x[(i + 3 * j + k + t) % n] * s) + 0.5 * s;
	return s;
}

/* A triangle with a vectorized inner loop whose start depends on a phi of
 * the outer iteration (a diamond before it). */
__attribute__((noinline)) double tridiamond(double *x, int n) {
	int d = DIM;
	double q[40], xc[40], e = 0;
	for (int j = 0; j < d + 8; j++) q[j] = x[j % n];
	for (int j = 0; j < d; j++) xc[j] = x[(j + 3) % n] * x[(j + 5) % n];
	for (int i = 0; i < d; i++) {
		int st;
		if (x[i % n] > 0.35) st = i + 1; else st = 2 * i;
		for (int j = st; j < d + 3; j++) q[j] += x[(i * 7 + j) % n] * xc[i];
		e += q[i] * xc[i];
	}
	for (int j = 0; j < d + 8; j++) e += q[j] * q[j];
	return e;
}

/* The i loop leaves from its header (too big to rotate), its != test at
 * once where lo == hi: the j loop is entered (hi - lo) times per entry. */
__attribute__((noinline)) double hdrexit(double *x, int n) {
	long lo = LO, hi = HI; int r = R;
	double s = 0.5;
	for (int t = 0; t < r; t++)
		for (long i = lo;; i++) {
			double u = x[i % n] * 1.1 + x[(i + 1) % n] * 1.2 + x[(i + 2) % n] * x[(i + 3) % n] + x[(i + 4) % n] / (1 + x[(i + 5) % n] * x[(i + 5) % n]);
			u = u * x[(i + 6) % n] + x[(i + 7) % n] * x[(i + 8) % n] * x[(i + 9) % n];
			if (i == hi) { s += 0.1 * u; break; }
			for (long j = lo; j != hi + 1; j++)
				s = sin(x[(i * 3 + j + t) % n] * s) + 0.5 * s + 0.01 * u;
		}
	return s;
}

CALLEE(hdrexit)
CALLEE(nenest)
CALLEE(neguard)
CALLEE(nestep)
CALLEE(tridiamond)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(hdrexit) COPY(hdrexit_callee) COPY(nenest) COPY(nenest_callee) COPY(neguard) COPY(neguard_callee) COPY(nestep) COPY(nestep_callee) COPY(tridiamond) COPY(tridiamond_callee)
int main(void) {
	LO = envl("LO", LO); HI = envl("HI", HI); R = envl("R", R); DIM = envl("DIM", DIM);
	if (LO <= HI) { FDRUN(nenest, 37); FDRUN(nenest_callee, 37); FDRUN(nestep, 37); FDRUN(nestep_callee, 37); FDRUN(hdrexit, 37); FDRUN(hdrexit_callee, 37); }
	FDRUN(neguard, 37); FDRUN(neguard_callee, 37);
	FDRUN(tridiamond, 37); FDRUN(tridiamond_callee, 37);
	return failures != 0;
}
