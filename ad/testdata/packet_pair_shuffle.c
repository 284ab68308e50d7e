/* The program of TestPacketPairShuffle (retype_test.go): doubles
   broadcast by a shuffle of their 32-bit halves (_mm_shuffle_epi32 on a
   double packet's bits: pshufd 0x44 and 0xEE, Eigen's pbroadcast4 and
   pbroadcast2), and one that swaps the two doubles (0x4E). Each result
   shuffle moves whole doubles: a shuffle of the doubles. The gradient,
   reverse and forward mode, against central differences. */
#include <emmintrin.h>
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static __m128d shuf(__m128d v, int which) {
	__m128i b = _mm_castpd_si128(v);
	switch (which) {
	case 0:
		return _mm_castsi128_pd(_mm_shuffle_epi32(b, 0x44)); /* lo, lo */
	case 1:
		return _mm_castsi128_pd(_mm_shuffle_epi32(b, 0xEE)); /* hi, hi */
	default:
		return _mm_castsi128_pd(_mm_shuffle_epi32(b, 0x4E)); /* hi, lo */
	}
}

__attribute__((noinline)) double f(const double *x, int n) {
	__m128d acc = _mm_setzero_pd();
	for (int i = 0; i + 1 < n; i += 2) {
		__m128d v = _mm_loadu_pd(&x[i]);
		__m128d lo = shuf(v, 0), hi = shuf(v, 1), sw = shuf(v, 2);
		acc = _mm_add_pd(acc, _mm_mul_pd(_mm_mul_pd(lo, hi), _mm_add_pd(sw, v)));
	}
	double r[2];
	_mm_storeu_pd(r, acc);
	return r[0] + 3 * r[1];
}

int main(void) {
	enum { n = 6 };
	double x[n] = {0.3, -0.2, 0.7, 0.1, 0.9, -0.6}, dx[n] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		double t[n] = {0};
		t[i] = 1;
		double fw = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n);
		double keep = x[i], h = 1e-6;
		x[i] = keep + h; double a = f(x, n);
		x[i] = keep - h; double b = f(x, n);
		x[i] = keep;
		double fd = (a - b) / (2 * h);
		printf("x%d: reverse %.9g forward %.9g central difference %.9g\n", i, dx[i], fw, fd);
		bad |= !(fabs(dx[i] - fd) < 1e-6 && fabs(fw - fd) < 1e-6);
	}
	return bad;
}
