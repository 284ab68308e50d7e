// Split mode (__enzyme_augmentfwd / __enzyme_reverse) and
// enzyme_primal_return with an enzyme_dupnoneed output whose primal pointer
// is nullptr: the augmented forward sweep must not store through it (it used
// to: a crash at -O0, an illegal instruction at -O2, where LLVM makes the
// store to address 0 unreachable).
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_primal_return;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct {
  double dx, primal;
} Both;
Both __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void f(double *out, const double *x, int n) {
  for (int i = 0; i < n; i++)
    out[i] = sin(x[i]) * x[i];
}

__attribute__((noinline)) double g(double *out, double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = sin(x) * i;
    s += x * x;
  }
  return s;
}

int main(void) {
  double x[3] = {0.3, 1.2, -0.7}, gx[3] = {0}, seed[3] = {1, 2, 3};
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dupnoneed, (double *)0, seed, enzyme_dup, x, gx,
                                   enzyme_const, 3);
  __enzyme_reverse((void *)f, enzyme_dupnoneed, (double *)0, seed, enzyme_dup, x, gx, enzyme_const, 3,
                   tape);
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    double want = (i + 1) * (cos(x[i]) * x[i] + sin(x[i]));
    if (fabs(gx[i] - want) > 1e-12) {
      printf("split %d: ad %.17g want %.17g\n", i, gx[i], want);
      bad = 1;
    }
  }
  double seed2[3] = {1, 2, 3};
  Both r = __enzyme_autodiff((void *)g, enzyme_primal_return, enzyme_dupnoneed, (double *)0, seed2,
                             0.5, enzyme_const, 3);
  double want = cos(0.5) * (0 * 1 + 1 * 2 + 2 * 3) + 3 * 2 * 0.5;
  if (fabs(r.dx - want) > 1e-12 || fabs(r.primal - 0.75) > 1e-12) {
    printf("primal_return: ad %.17g want %.17g, primal %.17g\n", r.dx, want, r.primal);
    bad = 1;
  }
  printf(bad ? "wrong\n" : "ok\n");
  return bad;
}
