/* Dynamic and guided schedules, and a static schedule with chunks: which
 * thread runs an iteration is decided at run time; each thread's reverse
 * replays the iterations its forward ran. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N], z[N], s = 0;
  #pragma omp parallel
  {
    #pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < n; i++)
      y[i] = sin(x[i] * a) * x[i];
    #pragma omp for schedule(guided)
    for (int i = 0; i < n; i++)
      z[i] = y[i] * y[(i + 5) % n];
    #pragma omp for schedule(static, 2) reduction(+:s)
    for (int i = 0; i < n; i++)
      s += z[i] * a;
  }
  return s;
}

int main(void) { return run_checks(); }
