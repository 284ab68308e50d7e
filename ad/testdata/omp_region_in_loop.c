/* A parallel region inside a serial loop: explicit time steps of a
 * nonlinear diffusion, each step one parallel loop over the grid. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double u[N], un[N];
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int step = 0; step < 6; step++) {
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
      double l = u[(i + n - 1) % n], r = u[(i + 1) % n];
      un[i] = u[i] + 0.1 * a * (l - 2 * u[i] + r) + 0.01 * sin(u[i]);
    }
    for (int i = 0; i < n; i++)
      u[i] = un[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i] * (i + 1);
  return s;
}

int main(void) { return run_checks(); }
