/* Library calls with derivative rules or known effects: cabs of a complex
 * number, complex multiplication and division (the runtime's __muldc3,
 * __divdc3, __mulsc3, __divsc3), frexp (mantissa and an integer
 * exponent), posix_memalign (an allocation returned through a pointer).
 * Checked against analytic values and central differences. */
#include <complex.h>
#include <stdlib.h>

#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodifff(void *, ...);
extern int enzyme_dup, enzyme_const;

double modulus(const double *z) { return cabs(z[0] + z[1] * I); }

/* Products and quotients of complex numbers: clang calls the runtime for
 * the cases the inline formula gets wrong (infinities, NaNs). */
double complex_mix(const double *p) {
  double complex z = p[0] + p[1] * I, w = p[2] + p[3] * I;
  double complex q = z * w + z / w;
  return creal(q) * 2 + cimag(q) * 3;
}
float complex_mixf(const float *p) {
  float complex z = p[0] + p[1] * I, w = p[2] + p[3] * I;
  float complex q = z * w - w / z;
  return crealf(q) - cimagf(q) * 0.5f;
}

/* The runtime's routines called directly: their rules run. */
double complex __muldc3(double, double, double, double);
double complex __divdc3(double, double, double, double);
double runtime_ops(const double *p) {
  double complex m = __muldc3(p[0], p[1], p[2], p[3]);
  double complex q = __divdc3(p[0], p[1], p[2], p[3]);
  return creal(m) * 2 + cimag(m) * 3 - creal(q) * 5 + cimag(q) * 7;
}

double mantissa(double x) {
  int e;
  return frexp(x, &e) * 3;
}

double aligned_sum(const double *x, int n) {
  double *buf;
  if (posix_memalign((void **)&buf, 64, n * sizeof(double)))
    return 0;
  for (int i = 0; i < n; i++)
    buf[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += buf[i] * x[i];
  free(buf);
  return s; /* sum x^3 */
}

int main(void) {
  double z[2] = {3.0, -4.0}, dz[2] = {0, 0};
  __enzyme_autodiff((void *)modulus, enzyme_dup, z, dz);
  CHECK("cabs re", dz[0], 3.0 / 5);
  CHECK("cabs im", dz[1], -4.0 / 5);
  double tz[2] = {1.0, 0.0};
  CHECK("cabs forward", __enzyme_fwddiff((void *)modulus, enzyme_dup, z, tz), 3.0 / 5);

  double p[4] = {0.5, -1.25, 2.0, 0.75}, dp[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void *)complex_mix, enzyme_dup, p, dp);
  for (int i = 0; i < 4; i++) {
    double h = 1e-6, q[4] = {p[0], p[1], p[2], p[3]};
    q[i] = p[i] + h;
    double up = complex_mix(q);
    q[i] = p[i] - h;
    double fd = (up - complex_mix(q)) / (2 * h);
    if (fabs(dp[i] - fd) > 1e-6)
      CHECK("complex product and quotient", dp[i], fd);
    else
      CHECK("complex product and quotient", fd, fd);
    double tp[4] = {0, 0, 0, 0};
    tp[i] = 1;
    double t = __enzyme_fwddiff((void *)complex_mix, enzyme_dup, p, tp);
    CHECK("complex product and quotient, forward", t, dp[i]);
  }
  double dr[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void *)runtime_ops, enzyme_dup, p, dr);
  for (int i = 0; i < 4; i++) {
    double h = 1e-6, q[4] = {p[0], p[1], p[2], p[3]};
    q[i] = p[i] + h;
    double up = runtime_ops(q);
    q[i] = p[i] - h;
    double fd = (up - runtime_ops(q)) / (2 * h);
    if (fabs(dr[i] - fd) > 1e-6)
      CHECK("__muldc3 and __divdc3", dr[i], fd);
    else
      CHECK("__muldc3 and __divdc3", fd, fd);
    double tp[4] = {0, 0, 0, 0};
    tp[i] = 1;
    CHECK("__muldc3 and __divdc3, forward", __enzyme_fwddiff((void *)runtime_ops, enzyme_dup, p, tp), dr[i]);
  }
  float pf[4] = {0.5f, -1.25f, 2.0f, 0.75f}, dpf[4] = {0, 0, 0, 0};
  __enzyme_autodifff((void *)complex_mixf, enzyme_dup, pf, dpf);
  for (int i = 0; i < 4; i++) {
    double h = 1e-6, q[4] = {pf[0], pf[1], pf[2], pf[3]};
    /* the same function in double, for the central difference */
    q[i] += h;
    double complex z = q[0] + q[1] * I, w = q[2] + q[3] * I, r = z * w - w / z;
    double up = creal(r) - cimag(r) * 0.5;
    q[i] -= 2 * h;
    z = q[0] + q[1] * I, w = q[2] + q[3] * I, r = z * w - w / z;
    double fd = (up - (creal(r) - cimag(r) * 0.5)) / (2 * h);
    if (fabs(dpf[i] - fd) > 1e-4 * (1 + fabs(fd)))
      CHECK("float complex product and quotient", dpf[i], fd);
    else
      CHECK("float complex product and quotient", fd, fd);
  }

  double xs[] = {0.75, 1.0, 5.5, -33.0, 1e-3};
  for (int i = 0; i < 5; i++) {
    int e;
    double m = frexp(xs[i], &e);
    CHECK("frexp", __enzyme_autodiff((void *)mantissa, xs[i]), 3 * m / xs[i]);
    CHECK("frexp forward", __enzyme_fwddiff((void *)mantissa, xs[i], 1.0), 3 * m / xs[i]);
  }

  double x[4] = {1, -2, 0.5, 3}, dx[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void *)aligned_sum, enzyme_dup, x, dx, enzyme_const, 4);
  for (int i = 0; i < 4; i++)
    CHECK("posix_memalign", dx[i], 3 * x[i] * x[i]);
  double tx[4] = {1, 1, 1, 1};
  CHECK("posix_memalign forward", __enzyme_fwddiff((void *)aligned_sum, enzyme_dup, x, tx, enzyme_const, 4), 3 * (1 + 4 + 0.25 + 9));
  return DONE();
}
