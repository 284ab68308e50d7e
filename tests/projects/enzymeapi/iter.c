/* __enzyme_iter(n, k): n in the function as written, n + d·k in its
 * derivative of order d. A sine series keeps one more term per
 * derivative, so its second derivative is minus the series itself,
 * exactly. */
#include "check.h"

unsigned long long __enzyme_iter(unsigned long long, unsigned long long);
double __enzyme_autodiff(void *, ...);

static double fact(unsigned long long n) { return n == 0 ? 1 : n * fact(n - 1); }

/* sum over odd i <= n of (-1)^((i-1)/2) x^i / i! */
static double series(double x, unsigned long long n) {
  double s = 0;
  for (unsigned long long i = 1; i <= n; i += 2)
    s += pow(x, (double)i) / fact(i) * (i % 4 == 1 ? 1 : -1);
  return s;
}

double sin_series(double x) {
  unsigned long long n = __enzyme_iter(12, 1);
  double s = 0;
  for (unsigned long long i = 1; i <= n; i += 2)
    s += pow(x, (double)i) / fact(i) * (i % 4 == 1 ? 1 : -1);
  return s;
}
double d_sin_series(double x) { return __enzyme_autodiff((void *)sin_series, x); }
double dd_sin_series(double x) { return __enzyme_autodiff((void *)d_sin_series, x); }

int main(void) {
  double x = 2.5;
  CHECK("__enzyme_iter in the primal", sin_series(x), series(x, 12));
  /* First derivative: the series to degree 13, whose derivative is the
   * cosine series to degree 12. */
  double cos12 = 0;
  for (unsigned long long i = 0; i <= 12; i += 2)
    cos12 += pow(x, (double)i) / fact(i) * (i % 4 == 0 ? 1 : -1);
  CHECK("__enzyme_iter, first order", d_sin_series(x), cos12);
  /* Second order: degree 14 (13), whose second derivative is -series(x, 11). */
  CHECK("__enzyme_iter, second order", dd_sin_series(x), -series(x, 11));
  return DONE();
}
