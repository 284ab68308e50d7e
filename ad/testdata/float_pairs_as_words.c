// Floats read as 64-bit words and split with shifts and truncation (as
// SROA splits a float vector loaded as <2 x i64>). The type analysis
// follows the bytes through trunc and whole-byte shifts (bytemove.go); an
// i64 holding two floats is not retyped, so the link must stop: before,
// the shifts made the bytes integers and the gradient was silently zero.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
// The float pairs of p read as 64-bit words and split with shifts.
__attribute__((noinline)) float f(float *p) {
  uint64_t w[2];
  memcpy(w, p, sizeof w);
  float v[4];
  for (int i = 0; i < 2; i++) {
    uint32_t lo = (uint32_t)w[i], hi = (uint32_t)(w[i] >> 32);
    memcpy(&v[2 * i], &lo, 4);
    memcpy(&v[2 * i + 1], &hi, 4);
  }
  return v[0] * v[1] + 3 * v[2] - v[3] * v[3];
}
int main(void) {
  float p[4] = {1.5f, 2, -0.5f, 3}, d[4] = {0};
  float want[4] = {2, 1.5f, 3, -6};
  int failures = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, p, d);
  for (int i = 0; i < 4; i++)
    if (fabsf(d[i] - want[i]) > 1e-6f) { printf("FAIL d/dp%d: %g want %g\n", i, d[i], want[i]); failures++; }
  printf("%d failures\n", failures);
  return failures != 0;
}
