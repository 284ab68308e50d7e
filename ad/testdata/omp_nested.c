/* Nested parallelism: a parallel loop whose iterations run parallel loops
 * of their own, with two active levels (inner teams of their own). */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N];
  #pragma omp parallel for num_threads(2)
  for (int i = 0; i < n; i += 4) {
    #pragma omp parallel for num_threads(2)
    for (int j = i; j < (i + 4 < n ? i + 4 : n); j++)
      y[j] = sin(x[j]) * a * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * y[i];
  return s;
}

int main(void) {
#ifdef _OPENMP
  omp_set_max_active_levels(2);
#endif
  return run_checks();
}
