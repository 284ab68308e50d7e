/* #pragma omp atomic updates of shared values: += and -= of doubles (the
 * -= contracted to a multiply-add at -O2), and += of a float, whose
 * gradient is checked against its analytic value (central differences of
 * float sums are mostly rounding). */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double s = 0, t = 0;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double v = a * x[i] * x[i];
    #pragma omp atomic
    s += v;
    #pragma omp atomic
    t -= sin(x[i]) * a;
  }
  return s * t;
}

static float g(float *x, int n) {
  float u = 0;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    #pragma omp atomic update
    u += x[i] * (float)(i + 1);
  }
  return u;
}

float __enzyme_autodiff_float(void *, ...);

int main(void) {
  float x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5f + i, dx[i] = 0;
  __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    printf("grad float %d %.9g\n", i, dx[i]);
    expect("d/dx of a float atomic sum", i, dx[i], i + 1, 0);
  }
  return run_checks();
}
