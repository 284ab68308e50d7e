/* hintLoops are small loops of the kind the optimizer before AD vectorizes
 * with a scalar remainder (small components: centre, scale, a triangular
 * product, a squared norm, as in a mixture model's objective), and loops
 * with the programmer's pragmas: no unrolling, a vector width and an
 * interleave count, no vectorizing.
 * (hintLoops in loophints_test.go; compiled after loopRunPrelude) */
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
__attribute__((noinline)) double hcomps(double *x, int n) {
	int d = DIM, k = n / d;
	double c[64], y[64], e = 0;
	for (int m = 0; m < k; m++) {
		for (int j = 0; j < d; j++) c[j] = x[m * d + j] - x[j];
		for (int j = 0; j < d; j++) y[j] = x[(m * d + j + 1) % n] * c[j];
		for (int i = 0, li = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) y[j] += x[li++ % n] * c[i];
		double s = 0;
		for (int j = 0; j < d; j++) s += y[j] * y[j];
		e += sin(s);
	}
	return e;
}

__attribute__((noinline)) double hpragma(double *x, int n) {
	double e = 0;
	for (int k = 0; k < 3; k++) {
		double w = cos(x[k]);
#pragma clang loop unroll(disable)
		for (int j = 0; j < n; j++) x[j] = x[j] * w + 0.1;
#pragma clang loop vectorize_width(2) interleave_count(2)
		for (int j = 0; j < n; j++) x[j] = x[j] * x[j] * 0.5 + w;
#pragma clang loop vectorize(disable) unroll_count(3)
		for (int j = 0; j < n; j++) e += x[j] * x[(j + k) % n];
	}
	return e;
}

CALLEE(hcomps)
COPY64(hcomps)
COPY64(hpragma)
COPY64(hcomps_callee)
double __enzyme_fwddiff(void *, ...);
/* FWDRUN(f, n): f's forward-mode derivative in a direction v at a fixed
 * x[n] against the central difference. */
#define FWDRUN(f, n) do { \
		double x[n], xc[n], v[n], xp[n], xm[n], h = 1e-6; \
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.11 * (i % 7) - 0.02 * (i % 5) * (i % 3), v[i] = 0.5 - 0.1 * (i % 4); \
		for (int i = 0; i < n; i++) xp[i] = x[i] + h * v[i], xm[i] = x[i] - h * v[i]; \
		memcpy(xc, x, sizeof x); \
		double jv = __enzyme_fwddiff((void *)f, enzyme_dup, xc, v, enzyme_const, n); \
		check("fwd " #f, jv, (f##_copy(xp, n) - f##_copy(xm, n)) / (2 * h), 1e-6); \
	} while (0)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(hcomps, 12);
	FDRUN(hcomps, 30);
	FDRUN(hpragma, 7);
	FDRUN(hpragma, 13);
	FDRUN(hcomps_callee, 12);
	FWDRUN(hcomps, 30);
	FWDRUN(hpragma, 13);
	return failures != 0;
}
