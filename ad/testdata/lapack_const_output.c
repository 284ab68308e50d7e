/* trtrs solving into memory passed without a shadow (enzyme_const) while
   its matrix carries derivatives: the solution's derivative is dropped, as
   Enzyme drops it, where nothing reads that memory back; the call reading
   its own right-hand side before writing it is no read-back unless it runs
   again (READ_AFTER, IN_LOOP: link errors). */
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void dtrtrs_(char *uplo, char *trans, char *diag, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb,
             int *info);
int reps = 1;

double g(double *A, double *B) {
  int n = 2, nrhs = 1, lda = 2, ldb = 2, info;
  char u = 'L', t = 'N', d = 'N';
#ifdef IN_LOOP
  for (int k = 0; k < reps; k++)
#endif
    dtrtrs_(&u, &t, &d, &n, &nrhs, A, &lda, B, &ldb, &info);
#ifdef READ_AFTER
  return A[0] * B[0];
#endif
  return A[0] * A[0];
}

int main(void) {
  double A[4] = {2, 0.5, 0, 4}, B[2] = {1, 1}, dA[4] = {0};
  __enzyme_autodiff((void *)g, enzyme_dup, A, dA, enzyme_const, B);
  printf("dA = %g %g %g %g\n", dA[0], dA[1], dA[2], dA[3]);
  return !(dA[0] == 4 && dA[1] == 0 && dA[2] == 0 && dA[3] == 0);
}
