/* Two parallel regions in a row, the second reading what other threads of
 * the first wrote (a neighbour), and one region with two worksharing
 * loops separated by the implicit barrier. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N], z[N], w[N];
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = exp(0.5 * x[i]) * a;
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    z[i] = y[i] * y[(i + 1) % n];
  #pragma omp parallel
  {
    #pragma omp for
    for (int i = 0; i < n; i++)
      w[i] = z[i] + x[i];
    #pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = w[(i + 3) % n] * w[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i];
  return s;
}

int main(void) { return run_checks(); }
