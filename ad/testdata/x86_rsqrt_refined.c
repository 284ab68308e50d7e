/* Inverse distances the way SIMD n-body codes compute them: the 12-bit
 * vrsqrtps/vrcpps estimates of a float conversion, refined in double by a
 * Goldschmidt or Newton step, over 32-byte aligned local arrays of
 * __m256d that a helper reads and writes with aligned AVX loads and
 * stores (in the reverse sweep, their shadows too). */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define PAIRS 8

static inline __m256d rsqrt_refined(__m256d s) {
  __m256d x = _mm256_cvtps_pd(_mm_rsqrt_ps(_mm256_cvtpd_ps(s)));
  __m256d y = s * x * x;
  __m256d a = y * _mm256_set1_pd(0.375) * y;
  __m256d b = y * _mm256_set1_pd(1.25) - _mm256_set1_pd(1.875);
  x = x * (a - b);
  return x * (_mm256_set1_pd(1.5) - _mm256_set1_pd(0.5) * s * x * x);
}

static inline __m128d rcp_refined(__m128d s) {
  __m128d x = _mm_cvtps_pd(_mm_rcp_ps(_mm_cvtpd_ps(s)));
  for (int i = 0; i < 3; i++)
    x = x * (_mm_set1_pd(2.0) - s * x);
  return x;
}

__attribute__((noinline)) void inverse_distances(__m256d *r, double *w) {
  for (int k = 0; k < PAIRS; k += 4)
    _mm256_store_pd(w + k, rsqrt_refined(_mm256_load_pd((double *)&r[k / 4])));
}

/* Not the root: its allocas' shadows, needed by its reverse, live on the heap. */
__attribute__((noinline)) double field(const double *q) {
  __m256d r[PAIRS / 4];
  double w[PAIRS] __attribute__((aligned(32)));
  for (int k = 0; k < PAIRS / 4; k++)
    r[k] = _mm256_setr_pd(q[4 * k] * q[4 * k] + 1, q[4 * k + 1] * q[4 * k + 1] + 2,
                          q[4 * k + 2] + 3, q[4 * k + 3] * q[0] + 4);
  inverse_distances(r, w);
  double e = 0;
  for (int k = 0; k < PAIRS; k++)
    e += (k + 1) * w[k];
  __m128d h = rcp_refined(_mm_setr_pd(q[1] + 2, q[2] * q[3] + 5));
  return e + _mm_cvtsd_f64(h) + 3 * _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
}

double potential(const double *q) { return field(q); }

/* The same function in plain math. */
double exact(const double *q) {
  double s[PAIRS];
  for (int k = 0; k < PAIRS / 4; k++) {
    s[4 * k] = q[4 * k] * q[4 * k] + 1;
    s[4 * k + 1] = q[4 * k + 1] * q[4 * k + 1] + 2;
    s[4 * k + 2] = q[4 * k + 2] + 3;
    s[4 * k + 3] = q[4 * k + 3] * q[0] + 4;
  }
  double e = 0;
  for (int k = 0; k < PAIRS; k++)
    e += (k + 1) / sqrt(s[k]);
  return e + 1 / (q[1] + 2) + 3 / (q[2] * q[3] + 5);
}

int main(void) {
  double q[PAIRS] = {0.3, 1.2, -0.4, 0.8, 2.1, 0.6, 1.7, -0.9}, dq[PAIRS] = {0};
  if (fabs(potential(q) - exact(q)) > 1e-9 * fabs(exact(q))) {
    printf("WRONG primal %.15g, exact %.15g\n", potential(q), exact(q));
    return 1;
  }
  __enzyme_autodiff((void *)potential, q, dq);
  int bad = 0;
  for (int i = 0; i < PAIRS; i++) {
    double s = q[i], h = 1e-5;
    q[i] = s + h;
    double fp = exact(q);
    q[i] = s - h;
    double fm = exact(q);
    q[i] = s;
    double fd = (fp - fm) / (2 * h);
    double t[PAIRS] = {0};
    t[i] = 1;
    double fw = __enzyme_fwddiff((void *)potential, q, t);
    if (fabs(fd - dq[i]) > 1e-6 * (1 + fabs(fd)) || fabs(fd - fw) > 1e-6 * (1 + fabs(fd))) {
      printf("WRONG d/dq%d: reverse %.12g forward %.12g exact function's central difference %.12g\n", i, dq[i], fw, fd);
      bad = 1;
    }
  }
  if (!bad)
    printf("ok %.9g\n", dq[0]);
  return bad;
}
