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

/* Two augmented forwards, then their reverses in the order the forwards
 * ran (not last in, first out): each fork orders its own sections. */
static void split_in_order(void) {
  double x[N], dx1[N] = {0}, dx2[N] = {0}, dx[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.5 * sin(1.3 * i + 0.2);
  double da = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, 0.8, enzyme_const, N);
  void *t1 = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx1, 0.8, enzyme_const, N);
  void *t2 = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx2, 0.8, enzyme_const, N);
  double da1 = __enzyme_reverse((void *)f, enzyme_dup, x, dx1, 0.8, enzyme_const, N, 1.0, t1);
  double da2 = __enzyme_reverse((void *)f, enzyme_dup, x, dx2, 0.8, enzyme_const, N, 1.0, t2);
  expect("first of two split gradients d/da", 0, da1, da, 1e-10);
  expect("second of two split gradients d/da", 0, da2, da, 1e-10);
  for (int i = 0; i < N; i++) {
    expect("first of two split gradients d/dx", i, dx1[i], dx[i], 1e-10);
    expect("second of two split gradients d/dx", i, dx2[i], dx[i], 1e-10);
  }
}

int main(void) {
  split_in_order();
  return run_checks();
}
