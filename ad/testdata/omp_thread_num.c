/* Code that depends on the thread number: a cyclic distribution by hand
 * (i = thread, thread + team size, ...) into per-thread partial sums
 * indexed by omp_get_thread_num(), and work only thread 0 does. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double partial[64] = {0};
  double extra = 0;
  #pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int i = t; i < n; i += nt)
      partial[t] += sin(x[i]) * a;
    if (t == 0)
      extra = a * a * x[0];
    #pragma omp master
    partial[t] += x[1] * x[2];
  }
  double s = extra;
  for (int t = 0; t < 64; t++)
    s += partial[t] * partial[t] * 0 + partial[t];
  return s * s;
}

int main(void) { return run_checks(); }
