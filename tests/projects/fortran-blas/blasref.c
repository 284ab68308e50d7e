/* A reference Fortran-ABI BLAS, column major, compiled without gozyme: the
   routines f calls and those its derivative calls. */
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy) {
  double s = 0;
  for (int i = 0; i < *n; i++)
    s += x[i * *incx] * y[i * *incy];
  return s;
}

void daxpy_(const int *n, const double *a, const double *x, const int *incx, double *y, const int *incy) {
  for (int i = 0; i < *n; i++)
    y[i * *incy] += *a * x[i * *incx];
}

void dscal_(const int *n, const double *a, double *x, const int *incx) {
  for (int i = 0; i < *n; i++)
    x[i * *incx] *= *a;
}

void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy) {
  for (int i = 0; i < *n; i++)
    y[i * *incy] = x[i * *incx];
}

void dger_(const int *m, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
           const int *incy, double *A, const int *lda) {
  for (int j = 0; j < *n; j++)
    for (int i = 0; i < *m; i++)
      A[i + j * *lda] += *alpha * x[i * *incx] * y[j * *incy];
}

/* The trailing length is the hidden length of the character argument. */
void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *A, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy, long len) {
  int tr = *t != 'N' && *t != 'n';
  int ly = tr ? *n : *m, lx = tr ? *m : *n;
  for (int i = 0; i < ly; i++) {
    double s = 0;
    for (int j = 0; j < lx; j++)
      s += (tr ? A[j + i * *lda] : A[i + j * *lda]) * x[j * *incx];
    y[i * *incy] = *alpha * s + (*beta == 0 ? 0 : *beta * y[i * *incy]);
  }
}
