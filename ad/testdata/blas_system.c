/* Real CBLAS (Debian's libblas, no bitcode) through its own cblas.h:
   gemv, gemm, copy, trsv, dot and nrm2 in one loss, its gradient against
   central differences and its forward derivative against the gradient. */
#include <cblas.h>
#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double loss(double *A, double *x, double *B) {
  double y[3], C[9], L[9] = {2, 0, 0, 0.5, 3, 0, 0.2, 0.1, 4}, z[3];
  cblas_dgemv(CblasRowMajor, CblasNoTrans, 3, 3, 1.5, A, 3, x, 1, 0.0, y, 1);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 3, 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3);
  cblas_dcopy(3, y, 1, z, 1);
  cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, 3, L, 3, z, 1);
  return cblas_ddot(3, y, 1, z, 1) + cblas_dnrm2(9, C, 1);
}

int main(void) {
  double A[9], x[3], B[9], dA[9] = {0}, dx[3] = {0}, dB[9] = {0};
  for (int i = 0; i < 9; i++) A[i] = 0.1 * i + 0.3, B[i] = 0.2 - 0.05 * i;
  for (int i = 0; i < 3; i++) x[i] = 1.0 / (i + 1);
  __enzyme_autodiff((void *)loss, A, dA, x, dx, B, dB);
  double err = 0, h = 1e-6;
  double *ps[3] = {A, x, B}, *ds[3] = {dA, dx, dB};
  int ns[3] = {9, 3, 9};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < ns[k]; i++) {
      double s = ps[k][i];
      ps[k][i] = s + h; double fp = loss(A, x, B);
      ps[k][i] = s - h; double fm = loss(A, x, B);
      ps[k][i] = s;
      double fd = (fp - fm) / (2 * h);
      if (fabs(fd - ds[k][i]) > err) err = fabs(fd - ds[k][i]);
    }
  double tA[9], tx[3], tB[9];
  for (int i = 0; i < 9; i++) tA[i] = 0.01 * i, tB[i] = -0.02 * i;
  for (int i = 0; i < 3; i++) tx[i] = 0.5;
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, A, tA, enzyme_dup, x, tx, enzyme_dup, B, tB);
  double g = 0;
  for (int i = 0; i < 9; i++) g += dA[i] * tA[i] + dB[i] * tB[i];
  for (int i = 0; i < 3; i++) g += dx[i] * tx[i];
  printf("reverse vs FD max error %.2e, forward vs reverse %.2e\n", err, fabs(t - g));
  return err > 1e-6 || fabs(t - g) > 1e-10;
}
