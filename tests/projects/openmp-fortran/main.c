/* Gradients of the OpenMP Fortran kernels against their analytic values;
 * prints "ok NAME" or "FAIL NAME i got want" per derivative. */
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double energy(const double *x, int n);
double total(const double *x, int n);
enum { N = 37 };

static int check(const char *name, const double *got, const double *want) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-12 * fmax(1, fabs(want[i])))) {
      printf("FAIL %s %d %.17g %.17g\n", name, i, got[i], want[i]);
      bad++;
    }
  if (!bad)
    printf("ok %s\n", name);
  return bad;
}

int main(void) {
  double x[N], dx[N] = {0}, want[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.5 * sin(1.3 * i);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    want[i] = 2 * sin(x[i]) * x[i] * (cos(x[i]) * x[i] + sin(x[i]));
  int bad = check("energy", dx, want);
  for (int i = 0; i < N; i++)
    dx[i] = 0, want[i] = exp(0.1 * x[i]) * (1 + 0.1 * x[i]);
  __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_const, N);
  return bad + check("total", dx, want) != 0;
}
