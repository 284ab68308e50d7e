/* A plain-C reference BLAS (the routines blas_decls.h declares): the tests
   link it as bitcode beside the program (the rules must still apply) or as
   a separately compiled object (no bitcode). */
#include <math.h>

static int ref_start(int n, int inc) { return inc < 0 ? (1 - n) * inc : 0; }

/* Element (i, j) of a matrix in layout with leading dimension ld. */
static int ref_at(int layout, int i, int j, int ld) {
  return layout == CblasRowMajor ? i * ld + j : j * ld + i;
}

#define BLAS_REF(T, p)                                                                                 \
  T cblas_##p##dot(int n, const T *x, int incx, const T *y, int incy) {                                \
    T s = 0;                                                                                           \
    int ix = ref_start(n, incx), iy = ref_start(n, incy);                                              \
    for (int i = 0; i < n; i++, ix += incx, iy += incy)                                                \
      s += x[ix] * y[iy];                                                                              \
    return s;                                                                                          \
  }                                                                                                    \
  T cblas_##p##nrm2(int n, const T *x, int incx) { /* 0 for incx <= 0, as BLAS */                    \
    T s = 0;                                                                                           \
    if (incx <= 0)                                                                                     \
      return 0;                                                                                        \
    int ix = ref_start(n, incx);                                                                       \
    for (int i = 0; i < n; i++, ix += incx)                                                            \
      s += x[ix] * x[ix];                                                                              \
    return sqrt(s);                                                                                    \
  }                                                                                                    \
  void cblas_##p##axpy(int n, T alpha, const T *x, int incx, T *y, int incy) {                         \
    int ix = ref_start(n, incx), iy = ref_start(n, incy);                                              \
    for (int i = 0; i < n; i++, ix += incx, iy += incy)                                                \
      y[iy] += alpha * x[ix];                                                                          \
  }                                                                                                    \
  void cblas_##p##scal(int n, T alpha, T *x, int incx) { /* nothing for incx <= 0, as BLAS */        \
    if (incx <= 0)                                                                                     \
      return;                                                                                          \
    int ix = ref_start(n, incx);                                                                       \
    for (int i = 0; i < n; i++, ix += incx)                                                            \
      x[ix] *= alpha;                                                                                  \
  }                                                                                                    \
  void cblas_##p##copy(int n, const T *x, int incx, T *y, int incy) {                                  \
    int ix = ref_start(n, incx), iy = ref_start(n, incy);                                              \
    for (int i = 0; i < n; i++, ix += incx, iy += incy)                                                \
      y[iy] = x[ix];                                                                                   \
  }                                                                                                    \
  void cblas_##p##gemv(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE trans, int m, int n, T alpha,     \
                       const T *A, int lda, const T *x, int incx, T beta, T *y, int incy) {            \
    int t = trans != CblasNoTrans;                                                                     \
    int leny = t ? n : m, lenx = t ? m : n;                                                            \
    int iy = ref_start(leny, incy);                                                                    \
    for (int i = 0; i < leny; i++, iy += incy) {                                                       \
      T s = 0;                                                                                         \
      int ix = ref_start(lenx, incx);                                                                  \
      for (int j = 0; j < lenx; j++, ix += incx)                                                       \
        s += (t ? A[ref_at(layout, j, i, lda)] : A[ref_at(layout, i, j, lda)]) * x[ix];                \
      y[iy] = alpha * s + (beta == 0 ? 0 : beta * y[iy]);                                              \
    }                                                                                                  \
  }                                                                                                    \
  void cblas_##p##ger(enum CBLAS_ORDER layout, int m, int n, T alpha, const T *x, int incx,            \
                      const T *y, int incy, T *A, int lda) {                                           \
    int ix = ref_start(m, incx);                                                                       \
    for (int i = 0; i < m; i++, ix += incx) {                                                          \
      int iy = ref_start(n, incy);                                                                     \
      for (int j = 0; j < n; j++, iy += incy)                                                          \
        A[ref_at(layout, i, j, lda)] += alpha * x[ix] * y[iy];                                         \
    }                                                                                                  \
  }                                                                                                    \
  void cblas_##p##gemm(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,      \
                       int m, int n, int k, T alpha, const T *A, int lda, const T *B, int ldb, T beta, \
                       T *C, int ldc) {                                                                \
    for (int i = 0; i < m; i++)                                                                        \
      for (int j = 0; j < n; j++) {                                                                    \
        T s = 0;                                                                                       \
        for (int l = 0; l < k; l++) {                                                                  \
          T a = ta == CblasNoTrans ? A[ref_at(layout, i, l, lda)] : A[ref_at(layout, l, i, lda)];      \
          T b = tb == CblasNoTrans ? B[ref_at(layout, l, j, ldb)] : B[ref_at(layout, j, l, ldb)];      \
          s += a * b;                                                                                  \
        }                                                                                              \
        T *c = &C[ref_at(layout, i, j, ldc)];                                                          \
        *c = alpha * s + (beta == 0 ? 0 : beta * *c);                                                  \
      }                                                                                                \
  }                                                                                                    \
  /* op(T)(i, j) of a triangular matrix. */                                                            \
  static T p##ref_tri(int layout, int uplo, int trans, int diag, const T *A, int lda, int i, int j) {  \
    if (trans != CblasNoTrans) {                                                                       \
      int t = i;                                                                                       \
      i = j, j = t;                                                                                    \
    }                                                                                                  \
    if (i == j)                                                                                        \
      return diag == CblasUnit ? 1 : A[ref_at(layout, i, i, lda)];                                     \
    if (uplo == CblasUpper ? j < i : j > i)                                                            \
      return 0;                                                                                        \
    return A[ref_at(layout, i, j, lda)];                                                               \
  }                                                                                                    \
  void cblas_##p##trmv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,      \
                       enum CBLAS_DIAG diag, int n, const T *A, int lda, T *x, int incx) {             \
    T y[64];                                                                                           \
    for (int i = 0; i < n; i++) {                                                                      \
      y[i] = 0;                                                                                        \
      for (int j = 0, ix = ref_start(n, incx); j < n; j++, ix += incx)                                 \
        y[i] += p##ref_tri(layout, uplo, trans, diag, A, lda, i, j) * x[ix];                           \
    }                                                                                                  \
    for (int i = 0, ix = ref_start(n, incx); i < n; i++, ix += incx)                                   \
      x[ix] = y[i];                                                                                    \
  }                                                                                                    \
  void cblas_##p##trsv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,      \
                       enum CBLAS_DIAG diag, int n, const T *A, int lda, T *x, int incx) {             \
    T y[64];                                                                                           \
    for (int i = 0, ix = ref_start(n, incx); i < n; i++, ix += incx)                                   \
      y[i] = x[ix];                                                                                    \
    int up = (uplo == CblasUpper) != (trans != CblasNoTrans);                                          \
    for (int k = 0; k < n; k++) {                                                                      \
      int i = up ? n - 1 - k : k;                                                                      \
      for (int j = 0; j < n; j++)                                                                      \
        if (up ? j > i : j < i)                                                                        \
          y[i] -= p##ref_tri(layout, uplo, trans, diag, A, lda, i, j) * y[j];                          \
      y[i] /= p##ref_tri(layout, uplo, trans, diag, A, lda, i, i);                                     \
    }                                                                                                  \
    for (int i = 0, ix = ref_start(n, incx); i < n; i++, ix += incx)                                   \
      x[ix] = y[i];                                                                                    \
  }
BLAS_REF(double, d)
BLAS_REF(float, s)

/* B = alpha op(T) B (left) or alpha B op(T). */
void cblas_dtrmm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *A, int lda, double *B, int ldb) {
  double Y[64];
  int left = side == CblasLeft, k = left ? m : n;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int l = 0; l < k; l++)
        s += left ? dref_tri(layout, uplo, trans, diag, A, lda, i, l) * B[ref_at(layout, l, j, ldb)]
                  : B[ref_at(layout, i, l, ldb)] * dref_tri(layout, uplo, trans, diag, A, lda, l, j);
      Y[i * n + j] = alpha * s;
    }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      B[ref_at(layout, i, j, ldb)] = Y[i * n + j];
}

/* B = alpha op(T)^-1 B (left) or alpha B op(T)^-1, by substitution. */
void cblas_dtrsm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *A, int lda, double *B, int ldb) {
  int left = side == CblasLeft, k = left ? m : n, cnt = left ? n : m;
  /* Left: op(T) y = b per column; right: y op(T) = b per row, i.e.
     op(T)^T y = b. */
  enum CBLAS_TRANSPOSE t = left ? trans : (trans == CblasNoTrans ? CblasTrans : CblasNoTrans);
  int up = (uplo == CblasUpper) != (t != CblasNoTrans);
  for (int c = 0; c < cnt; c++) {
    double y[64];
    for (int i = 0; i < k; i++)
      y[i] = alpha * (left ? B[ref_at(layout, i, c, ldb)] : B[ref_at(layout, c, i, ldb)]);
    for (int s = 0; s < k; s++) {
      int i = up ? k - 1 - s : s;
      for (int j = 0; j < k; j++)
        if (up ? j > i : j < i)
          y[i] -= dref_tri(layout, uplo, t, diag, A, lda, i, j) * y[j];
      y[i] /= dref_tri(layout, uplo, t, diag, A, lda, i, i);
    }
    for (int i = 0; i < k; i++)
      if (left)
        B[ref_at(layout, i, c, ldb)] = y[i];
      else
        B[ref_at(layout, c, i, ldb)] = y[i];
  }
}

static enum CBLAS_TRANSPOSE ref_trans(const char *t) {
  return *t == 'N' || *t == 'n' ? CblasNoTrans : CblasTrans;
}

#define FBLAS_REF(T, p)                                                                                \
  T p##dot_(const int *n, const T *x, const int *incx, const T *y, const int *incy) {                  \
    return cblas_##p##dot(*n, x, *incx, y, *incy);                                                     \
  }                                                                                                    \
  T p##nrm2_(const int *n, const T *x, const int *incx) { return cblas_##p##nrm2(*n, x, *incx); }      \
  void p##axpy_(const int *n, const T *alpha, const T *x, const int *incx, T *y, const int *incy) {    \
    cblas_##p##axpy(*n, *alpha, x, *incx, y, *incy);                                                   \
  }                                                                                                    \
  void p##scal_(const int *n, const T *alpha, T *x, const int *incx) {                                 \
    cblas_##p##scal(*n, *alpha, x, *incx);                                                             \
  }                                                                                                    \
  void p##copy_(const int *n, const T *x, const int *incx, T *y, const int *incy) {                    \
    cblas_##p##copy(*n, x, *incx, y, *incy);                                                           \
  }                                                                                                    \
  void p##gemv_(const char *trans, const int *m, const int *n, const T *alpha, const T *A,             \
                const int *lda, const T *x, const int *incx, const T *beta, T *y, const int *incy) {   \
    cblas_##p##gemv(CblasColMajor, ref_trans(trans), *m, *n, *alpha, A, *lda, x, *incx, *beta, y,      \
                    *incy);                                                                            \
  }                                                                                                    \
  void p##ger_(const int *m, const int *n, const T *alpha, const T *x, const int *incx, const T *y,    \
               const int *incy, T *A, const int *lda) {                                                \
    cblas_##p##ger(CblasColMajor, *m, *n, *alpha, x, *incx, y, *incy, A, *lda);                        \
  }                                                                                                    \
  void p##gemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,              \
                const T *alpha, const T *A, const int *lda, const T *B, const int *ldb, const T *beta, \
                T *C, const int *ldc) {                                                                \
    cblas_##p##gemm(CblasColMajor, ref_trans(ta), ref_trans(tb), *m, *n, *k, *alpha, A, *lda, B, *ldb, \
                    *beta, C, *ldc);                                                                   \
  }
FBLAS_REF(double, d)

/* op(A)(i, l) for an n x k product. */
static double ref_op(int layout, int trans, const double *A, int lda, int i, int l) {
  return trans == CblasNoTrans ? A[ref_at(layout, i, l, lda)] : A[ref_at(layout, l, i, lda)];
}

static int ref_in_tri(int uplo, int i, int j) { return uplo == CblasUpper ? j >= i : j <= i; }

void cblas_dsyrk(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                 double alpha, const double *A, int lda, double beta, double *C, int ldc) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (!ref_in_tri(uplo, i, j))
        continue;
      double s = 0;
      for (int l = 0; l < k; l++)
        s += ref_op(layout, trans, A, lda, i, l) * ref_op(layout, trans, A, lda, j, l);
      double *c = &C[ref_at(layout, i, j, ldc)];
      *c = alpha * s + (beta == 0 ? 0 : beta * *c);
    }
}

void cblas_dsyr2k(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  double alpha, const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (!ref_in_tri(uplo, i, j))
        continue;
      double s = 0;
      for (int l = 0; l < k; l++)
        s += ref_op(layout, trans, A, lda, i, l) * ref_op(layout, trans, B, ldb, j, l) +
             ref_op(layout, trans, B, ldb, i, l) * ref_op(layout, trans, A, lda, j, l);
      double *c = &C[ref_at(layout, i, j, ldc)];
      *c = alpha * s + (beta == 0 ? 0 : beta * *c);
    }
}

void cblas_dsymm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, double alpha,
                 const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc) {
  int left = side == CblasLeft, k = left ? m : n;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int l = 0; l < k; l++) {
        int r = left ? i : l, q = left ? l : j; /* S(r, q) */
        double a = ref_in_tri(uplo, r, q) ? A[ref_at(layout, r, q, lda)] : A[ref_at(layout, q, r, lda)];
        s += left ? a * B[ref_at(layout, l, j, ldb)] : B[ref_at(layout, i, l, ldb)] * a;
      }
      double *c = &C[ref_at(layout, i, j, ldc)];
      *c = alpha * s + (beta == 0 ? 0 : beta * *c);
    }
}

void cblas_dsymv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *A, int lda,
                 const double *x, int incx, double beta, double *y, int incy) {
  int iy = ref_start(n, incy);
  for (int i = 0; i < n; i++, iy += incy) {
    double s = 0;
    int ix = ref_start(n, incx);
    for (int j = 0; j < n; j++, ix += incx)
      s += (ref_in_tri(uplo, i, j) ? A[ref_at(layout, i, j, lda)] : A[ref_at(layout, j, i, lda)]) * x[ix];
    y[iy] = alpha * s + (beta == 0 ? 0 : beta * y[iy]);
  }
}

void cblas_dsyr2(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *x, int incx,
                 const double *y, int incy, double *A, int lda) {
  for (int i = 0, ix = ref_start(n, incx), iy = ref_start(n, incy); i < n; i++, ix += incx, iy += incy)
    for (int j = 0, jx = ref_start(n, incx), jy = ref_start(n, incy); j < n; j++, jx += incx, jy += incy)
      if (ref_in_tri(uplo, i, j))
        A[ref_at(layout, i, j, lda)] += alpha * (x[ix] * y[jy] + y[iy] * x[jx]);
}

void cblas_dsyr(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *x, int incx,
                double *A, int lda) {
  for (int i = 0, ix = ref_start(n, incx); i < n; i++, ix += incx)
    for (int j = 0, jx = ref_start(n, incx); j < n; j++, jx += incx)
      if (ref_in_tri(uplo, i, j))
        A[ref_at(layout, i, j, lda)] += alpha * x[ix] * x[jx];
}
