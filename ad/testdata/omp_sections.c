/* Parallel sections: each section a different computation, run by
 * whichever thread the schedule gives it. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double p = 0, q = 0, r = 1;
  #pragma omp parallel sections
  {
    #pragma omp section
    {
      for (int i = 0; i < n / 2; i++)
        p += sin(x[i]) * a;
    }
    #pragma omp section
    {
      for (int i = n / 2; i < n; i++)
        q += x[i] * x[i] * a;
    }
    #pragma omp section
    r = exp(a * x[0]);
  }
  return p * q + r;
}

int main(void) { return run_checks(); }
