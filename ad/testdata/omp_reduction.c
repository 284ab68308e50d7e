/* reduction(+:...) of two sums in one clause, a product reduction and a
 * max reduction, over one parallel loop. */
#include "omp_check.h"

static double f(double *x, double a, int n) {
  double s = 0, t = 1, p = 1, m = -1e300;
  #pragma omp parallel for reduction(+:s, t) reduction(*:p) reduction(max:m)
  for (int i = 0; i < n; i++) {
    s += a * x[i] * x[i] / (1 + x[i] * x[i]);
    t += sin(a * x[i]);
    p *= 1 + 0.01 * x[i];
    double c = x[i] * a;
    m = c > m ? c : m;
  }
  return s * t + p + m;
}

int main(void) { return run_checks(); }
