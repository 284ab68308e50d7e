// SIMD code that works on floats through their bits and through x86
// intrinsics, as vector-math headers write it (built with -mavx2):
// pshufd on a float vector's bits, sign masks that flip some lanes or
// clear the sign (_mm_andnot_ps), permutes with constant and run-time
// index vectors, horizontal adds, _mm_dp_ps, _mm_min_ps/_mm_max_ps.
// Every loss is a polynomial (or piecewise linear) in p, so a central
// difference in float with a step of 1/16 is its derivative up to
// rounding. Reverse and forward mode, every input.
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
float __enzyme_fwddiff(void *, ...);

#define shuf_bits(v, imm) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), imm))

static inline __m128 lane_dot(__m128 a, __m128 b) {
  __m128 x = _mm_mul_ps(a, b);
  x = _mm_add_ps(x, shuf_bits(x, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_add_ps(x, shuf_bits(x, _MM_SHUFFLE(0, 1, 0, 1)));
}

static float weigh(__m128 v) {
  float o[4];
  _mm_storeu_ps(o, v);
  return 0.5f * o[0] - 1.25f * o[1] + 2.0f * o[2] + 0.75f * o[3];
}

static float weigh8(__m256 v) {
  float o[8];
  _mm256_storeu_ps(o, v);
  float s = 0;
  for (int i = 0; i < 8; i++) s += (float)(i - 3) * o[i];
  return s;
}

static volatile int runtime_order[8] = {3, 0, 2, 1, 1, 3, 0, 2};

__attribute__((noinline)) float pshufd_dot(float *p) {
  __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4);
  return weigh(lane_dot(a, b)) * _mm_cvtss_f32(lane_dot(a, a));
}

__attribute__((noinline)) float lane_signs(float *p) {
  __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4);
  __m128 flip = _mm_xor_ps(_mm_mul_ps(a, b), _mm_set_ps(-0.0f, 0.0f, -0.0f, 0.0f));
  __m128 mag = _mm_andnot_ps(_mm_set1_ps(-0.0f), _mm_sub_ps(a, b));
  return weigh(flip) + weigh(_mm_mul_ps(mag, a));
}

__attribute__((noinline)) float permutes(float *p) {
  __m128 a = _mm_loadu_ps(p);
  __m256 w = _mm256_loadu_ps(p);
  __m128 c = _mm_permutevar_ps(a, _mm_set_epi32(0, 1, 3, 2));
  __m256 d = _mm256_permutevar_ps(w, _mm256_set_epi32(1, 0, 3, 2, 0, 0, 1, 3));
  __m256 e = _mm256_permutevar8x32_ps(w, _mm256_set_epi32(0, 7, 1, 6, 2, 5, 3, 4));
  int k[8];
  for (int i = 0; i < 8; i++) k[i] = runtime_order[i];
  __m256 r = _mm256_permutevar_ps(w, _mm256_loadu_si256((const __m256i *)k));
  return weigh(_mm_mul_ps(c, a)) + weigh8(_mm256_mul_ps(d, w)) + weigh8(e) + weigh8(_mm256_mul_ps(r, e));
}

__attribute__((noinline)) float reductions(float *p) {
  __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4);
  __m128 h = _mm_hadd_ps(_mm_mul_ps(a, a), b);
  __m128 s = _mm_hsub_ps(a, _mm_mul_ps(a, b));
  __m128 dp = _mm_dp_ps(a, b, 0xB5); // products of lanes 0, 1, 3 into lanes 0, 2
  __m256 w = _mm256_loadu_ps(p);
  __m256 h8 = _mm256_hadd_ps(w, _mm256_mul_ps(w, w));
  return weigh(h) + weigh(s) + weigh(dp) * _mm_cvtss_f32(a) + weigh8(h8);
}

__attribute__((noinline)) float minmax(float *p) {
  __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4);
  __m128 lo = _mm_min_ps(a, b), hi = _mm_max_ps(_mm_mul_ps(a, a), b);
  return weigh(_mm_mul_ps(lo, hi));
}

typedef float (*loss)(float *);
static int failures;

static float fd(loss f, const float *p, int i) {
  float q[8];
  const float h = 1.0f / 16;
  memcpy(q, p, sizeof q);
  q[i] = p[i] + h;
  float up = f(q);
  q[i] = p[i] - h;
  return (up - f(q)) / (2 * h);
}

#define CHECK_LOSS(f)                                                            \
  do {                                                                           \
    float p[8] = {0.75f, -1.5f, 2.25f, 0.5f, 1.25f, 0.625f, -0.875f, 1.75f};    \
    float g[8] = {0};                                                            \
    __enzyme_autodiff((void *)f, enzyme_dup, p, g);                              \
    for (int i = 0; i < 8; i++) {                                                \
      float t[8] = {0};                                                          \
      t[i] = 1;                                                                  \
      float fw = __enzyme_fwddiff((void *)f, enzyme_dup, p, t);                  \
      float want = fd(f, p, i);                                                  \
      float tol = 1e-3f * (1 + fabsf(want));                                     \
      if (!(fabsf(g[i] - want) <= tol) || !(fabsf(fw - want) <= tol)) {          \
        printf("FAIL %s d/dp%d: reverse %g forward %g want %g\n", #f, i, g[i],   \
               fw, want);                                                        \
        failures++;                                                              \
      }                                                                          \
    }                                                                            \
  } while (0)

int main(void) {
  CHECK_LOSS(pshufd_dot);
  CHECK_LOSS(lane_signs);
  CHECK_LOSS(permutes);
  CHECK_LOSS(reductions);
  CHECK_LOSS(minmax);
  printf("%d failures\n", failures);
  return failures != 0;
}
