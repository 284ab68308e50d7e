/* The gradient of chol (chol.f90: LAPACK's dpotrf, dpotrs, dtrtrs from
   Debian's liblapack, no bitcode) against central differences, for every
   entry of a (lda 4 > n 3) and b. Prints the largest error; exit status 1
   above 1e-6. */
#include <stdio.h>
#include <string.h>
#include <math.h>
void __enzyme_autodiff(void *, ...);
double chol(double *a, double *b);
int main(void) {
  double a0[12], b0[6], a[12], b[6], da[12] = {0}, db[6] = {0}, h = 1e-6, err = 0;
  for (int i = 0; i < 12; i++) a0[i] = 0.1 * sin(i + 1.0);
  for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) a0[c * 4 + r] = (r == c ? 3.0 : 0.5 * cos(r + c));
  for (int i = 0; i < 6; i++) b0[i] = cos(0.5 * i);
  memcpy(a, a0, sizeof a); memcpy(b, b0, sizeof b);
  __enzyme_autodiff((void *)chol, a, da, b, db);
  for (int k = 0; k < 18; k++) {
    double *p = k < 12 ? &a0[k] : &b0[k - 12], s = *p, fp, fm;
    *p = s + h; memcpy(a, a0, sizeof a); memcpy(b, b0, sizeof b); fp = chol(a, b);
    *p = s - h; memcpy(a, a0, sizeof a); memcpy(b, b0, sizeof b); fm = chol(a, b);
    *p = s;
    double fd = (fp - fm) / (2 * h), got = k < 12 ? da[k] : db[k - 12];
    if (fabs(fd - got) > err) err = fabs(fd - got);
  }
  printf("max error %.2e\n", err);
  return err > 1e-6;
}
