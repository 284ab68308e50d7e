/* A shared scalar read in every iteration of a parallel loop and, on a
 * team of one thread, overwritten halfway through the loop through a
 * pointer to it: each thread sums the scalar's adjoints privately, and
 * must hand the sum over before the reverse of that store reads the
 * scalar's adjoint. (On more threads the store would race with the reads:
 * the program skips it there; its gradient is checked on one thread.) */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N], s = a, *q = &s;
  int one = omp_get_max_threads() == 1;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    y[i] = s * x[i] * x[i];
    if (one && i == n / 2)
      *q = s * 0.5 + x[i];
  }
  double t = s;
  for (int i = 0; i < n; i++)
    t += y[i] * y[i];
  return t;
}

int main(void) { return run_checks(); }
