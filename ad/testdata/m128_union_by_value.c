// A union of __m128 and four floats passed and returned by value, as
// vector-math headers declare their vector types: clang moves it as
// { double, double }, and SROA reads its <4 x float> through <2 x double>
// lanes made <2 x float> again. Reverse and forward derivatives of a dot
// product and a lane-wise product against the analytic values.
#include <math.h>
#include <stdio.h>
#include <xmmintrin.h>

typedef union {
  struct { float x, y, z, w; };
  float e[4];
  __m128 sse;
} vec4;

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
float __enzyme_fwddiff(void *, ...);

static inline vec4 make4(float x, float y, float z, float w) {
  vec4 r;
  r.sse = _mm_setr_ps(x, y, z, w);
  return r;
}

static inline vec4 mul4(vec4 a, vec4 b) {
  vec4 r;
  r.sse = _mm_mul_ps(a.sse, b.sse);
  return r;
}

static inline float dot4(vec4 a, vec4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

__attribute__((noinline)) float loss(float *p) {
  vec4 a = make4(p[0], p[1], p[2], p[3]);
  vec4 b = make4(p[4], 2.0f, p[5], 0.5f);
  return dot4(mul4(a, b), a);
}

int main(void) {
  float p[6] = {1, 2, 3, 4, 0.5f, -1.5f}, g[6] = {0};
  /* loss = a0^2 b0 + 2 a1^2 + a2^2 b2 + 0.5 a3^2 */
  float want[6] = {2 * 1 * 0.5f, 2 * 2 * 2, 2 * 3 * -1.5f, 2 * 4 * 0.5f, 1, 9};
  int failures = 0;
  __enzyme_autodiff((void *)loss, enzyme_dup, p, g);
  for (int i = 0; i < 6; i++) {
    float t[6] = {0};
    t[i] = 1;
    float fw = __enzyme_fwddiff((void *)loss, enzyme_dup, p, t);
    if (fabsf(g[i] - want[i]) > 1e-5f || fabsf(fw - want[i]) > 1e-5f) {
      printf("FAIL d/dp%d: reverse %g forward %g want %g\n", i, g[i], fw, want[i]);
      failures++;
    }
  }
  printf("%d failures\n", failures);
  return failures != 0;
}
