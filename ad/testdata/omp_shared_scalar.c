/* A parallel loop over an array whose iterations all read the shared
 * scalar a: its adjoint is written by every thread. The loop writes a
 * local array read after the region. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N];
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = a * sin(x[i]) + a * a * x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * y[i];
  return s;
}

int main(void) { return run_checks(); }
