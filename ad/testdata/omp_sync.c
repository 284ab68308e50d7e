/* Synchronization and team control: a region in a called function with a
 * num_threads clause, single and master sections, explicit barriers, a
 * lock, a min reduction, and nowait loops. */
#include "omp_check.h"

__attribute__((noinline)) static void smooth(double *y, const double *x, double a, int n) {
  #pragma omp parallel num_threads(3)
  {
    #pragma omp for nowait
    for (int i = 0; i < n; i++)
      y[i] = x[i] * a;
    #pragma omp barrier
    #pragma omp single
    y[0] = y[0] + y[n - 1] * y[1];
    #pragma omp for
    for (int i = 1; i < n - 1; i++)
      y[i] = y[i] * y[i];
  }
}

static double f(double *x, double a, int n) {
  double y[N], total = 1, lo = 1e300, extra = 0;
  smooth(y, x, a, n);
#ifdef _OPENMP
  omp_lock_t lock;
  omp_init_lock(&lock);
#endif
  #pragma omp parallel
  {
    double mine = 0;
    #pragma omp for reduction(min:lo)
    for (int i = 0; i < n; i++) {
      mine += y[i] * x[i];
      lo = y[i] < lo ? y[i] : lo;
    }
#ifdef _OPENMP
    omp_set_lock(&lock);
#endif
    total *= exp(0.01 * mine);
#ifdef _OPENMP
    omp_unset_lock(&lock);
#endif
    #pragma omp master
    extra = a * x[0] * x[0];
  }
#ifdef _OPENMP
  omp_destroy_lock(&lock);
#endif
  return total + lo * a + extra;
}

int main(void) { return run_checks(); }
