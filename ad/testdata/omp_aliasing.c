/* A parallel loop reading two arrays that are one array, one element
 * apart: p[i] and q[i] = p[i + 1] are read by neighbouring iterations, on
 * different threads at the chunks' edges. No element is one iteration's
 * own: every adjoint must be added atomically. */
#include "omp_check.h"

__attribute__((noinline)) static void prod(double *y, const double *p, const double *q, double a, int n) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = p[i] * q[i] * a;
}

static double f(double *x, double a, int n) {
  double y[N], xx[N + 1];
  for (int i = 0; i < n; i++)
    xx[i] = x[i];
  xx[n] = x[0];
  prod(y, xx, xx + 1, a, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(y[i]);
  return s;
}

int main(void) { return run_checks(); }
