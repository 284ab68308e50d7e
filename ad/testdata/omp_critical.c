/* Each thread sums its share of a worksharing loop, then adds it into a
 * shared total inside a critical section (an unnamed one), and
 * multiplies a factor into a shared product in another (a named one). */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double res = 0, res2 = 1;
  #pragma omp parallel
  {
    double mine = 0, mine2 = 0;
    #pragma omp for
    for (int i = 0; i < n; i++) {
      mine += x[i] * x[i] * a;
      mine2 += cos(x[i] + a);
    }
    #pragma omp critical
    res += mine;
    #pragma omp critical(second)
    {
      /* exp(sum) as a product of each thread's exp(partial sum): the
       * reverse of a product depends on the order the threads took */
      res2 *= exp(0.1 * mine2);
    }
  }
  return res * res2;
}

int main(void) { return run_checks(); }
