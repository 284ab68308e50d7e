/* firstprivate(a): each thread starts from its own copy of the shared
 * value and changes it; private(t): a scratch value per thread; and
 * lastprivate(last). */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double y[N], t, last = 0;
  #pragma omp parallel for firstprivate(a) private(t) lastprivate(last)
  for (int i = 0; i < n; i++) {
    t = a * x[i];
    a = a * 1.0; /* written, so the copy is the thread's own */
    y[i] = t * t + a;
    last = y[i] * x[i];
  }
  double s = last;
  for (int i = 0; i < n; i++)
    s += y[i] * x[i];
  return s;
}

int main(void) { return run_checks(); }
