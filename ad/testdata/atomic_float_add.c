/* The program of TestAtomicFloatAdd (atomicrmw_test.go). */
#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
void f(double *x, double *out, int n) {
  for (int i = 0; i < n; i++) __atomic_fetch_add(out, x[i] * x[i] + sin(x[i]), __ATOMIC_RELAXED);
  __atomic_fetch_sub(out, 0.5 * x[0], __ATOMIC_RELAXED);
}
int main(void) {
  double x[5] = {0.5, -1.25, 2, 0.75, -0.3}, dx[5] = {0}, out = 0, dout = 1.5;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &out, &dout, enzyme_const, 5);
  int bad = 0;
  for (int i = 0; i < 5; i++) {
    double want = 1.5 * (2 * x[i] + cos(x[i]) - (i == 0 ? 0.5 : 0));
    if (fabs(dx[i] - want) > 1e-12) bad++, printf("dx[%d] = %g, want %g\n", i, dx[i], want);
  }
  if (dout != 1.5) bad++, printf("dout = %g, want it unchanged\n", dout);
  double tx[5] = {1, 0.5, -1, 2, 0.25}, tout = 0, fwant = 0;
  out = 0;
  __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_dup, &out, &tout, enzyme_const, 5);
  for (int i = 0; i < 5; i++) fwant += tx[i] * (2 * x[i] + cos(x[i]) - (i == 0 ? 0.5 : 0));
  if (fabs(tout - fwant) > 1e-12) bad++, printf("tangent %g, want %g\n", tout, fwant);
  printf(bad ? "FAIL\n" : "ok\n");
  return bad;
}
