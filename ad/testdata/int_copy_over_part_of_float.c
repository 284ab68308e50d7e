// Integer bytes copied over part of a float. Over its low bytes (or all
// of them), the float it leaves is the old one rounded, or no function of
// it: locally constant, its whole derivative is zero, in both sweeps. Over
// its top byte (sign and exponent) keeping others, the float it leaves is
// the old one's low bits scaled anew, whose derivative is not zero: the
// link stops (mode 1). Each mode overwrites a scratch array filled from x:
//   mode 0: 12 bytes of integers over a[k] and the low half of a[k+1];
//   mode 1: 4 bytes over the high half of a[2];
//   mode 2: 4 bytes over the low half of a[k];
//   mode 3: 6 bytes over f[k] and the low half of f[k+1] (floats).
// Built with -DMODE=m. Gradients (reverse and forward) against the
// analytic gradient that holds each touched float constant; where gozyme
// cannot delimit the floats touched, the link stops instead.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 6

// Integers from integer arithmetic only.
static inline uint32_t word(int n, int k) { return ((uint32_t)n * 2654435761u + (uint32_t)k) * 0x9E3779B9u; }

// touch overwrites part of a; touched says which elements it touched.
static inline __attribute__((always_inline)) void touch(double *a, float *f, int n, int k) {
#if MODE == 0
	uint32_t w[3] = {word(n, k), 0x3FF00000u | (word(n, k + 1) >> 12), word(n + 1, k)};
	memcpy(&a[k], w, 12);
#elif MODE == 1
	uint32_t hi = 0x3FF00000u | (word(n, k) >> 12);
	memcpy((char *)&a[2] + 4, &hi, 4);
#elif MODE == 2
	uint32_t lo = word(n, k);
	memcpy((char *)&a[k], &lo, 4);
#else
	uint16_t h[3] = {(uint16_t)word(n, k), 0x3F80, (uint16_t)word(n + 1, k)};
	memcpy(&f[k], h, 6);
#endif
	(void)a, (void)f, (void)n, (void)k;
}
static int touched(int i, int k) {
#if MODE == 0 || MODE == 3
	return i == k || i == k + 1;
#elif MODE == 1
	return i == 2;
#else
	return i == k;
#endif
}

// a[i] = x[i]^2 + x[i+1]/2, f[i] = a[i]; the sum of (a[i] + f[i]) sin x[i].
__attribute__((noinline)) double objective(const double *x, int n, int k) {
	double a[N];
	float f[N];
	for (int i = 0; i < N; i++) a[i] = x[i] * x[i] + 0.5 * x[(i + 1) % N];
	for (int i = 0; i < N; i++) f[i] = (float)a[i];
	touch(a, f, n, k);
	double s = 0;
	for (int i = 0; i < N; i++) s += (a[i] + (double)f[i]) * sin(x[i]);
	return s;
}

// expected is the gradient with every touched element held constant.
static void expected(const double *x, double *g, int n, int k) {
	double a[N];
	float f[N];
	for (int i = 0; i < N; i++) a[i] = x[i] * x[i] + 0.5 * x[(i + 1) % N];
	for (int i = 0; i < N; i++) f[i] = (float)a[i];
	touch(a, f, n, k);
	for (int i = 0; i < N; i++) g[i] = 0;
	for (int i = 0; i < N; i++) {
		g[i] += (a[i] + (double)f[i]) * cos(x[i]);
		// a[i]'s derivative reaches the sum through a[i] and f[i] where
		// they are untouched (modes 0-2 touch a, mode 3 f).
		int ta = MODE != 3 && touched(i, k), tf = MODE == 3 && touched(i, k);
		double s = sin(x[i]) * ((ta ? 0 : 1) + (tf ? 0 : 1));
		g[i] += 2 * x[i] * s;
		g[(i + 1) % N] += 0.5 * s;
	}
}

int main(int argc, char **argv) {
	(void)argv;
	double x[N], dx[N] = {0}, want[N];
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.3 * sin(1.7 * i + 0.3);
	int n = argc + 6, k = argc + 1, failures = 0;
	__enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, k);
	expected(x, want, n, k);
	for (int i = 0; i < N; i++) {
		double seed[N] = {0};
		seed[i] = 1;
		double tan = __enzyme_fwddiff((void *)objective, enzyme_dup, x, seed, enzyme_const, n, enzyme_const, k);
		double tol = 1e-6 * fmax(1.0, fabs(want[i]));
		if (!(fabs(dx[i] - want[i]) <= tol)) {
			printf("FAIL reverse dx[%d]: got %.17g want %.17g\n", i, dx[i], want[i]);
			failures++;
		}
		if (!(fabs(tan - want[i]) <= tol)) {
			printf("FAIL forward dx[%d]: got %.17g want %.17g\n", i, tan, want[i]);
			failures++;
		}
	}
	printf("mode %d done\n", MODE);
	return failures != 0;
}
