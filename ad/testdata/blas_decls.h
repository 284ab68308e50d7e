/* CBLAS declarations (as cblas.h has them) for the BLAS rule tests, in
   double (d) and single (s) precision. */
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 };
enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 };
enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 };

#define BLAS_DECLS(T, p)                                                                               \
  T cblas_##p##dot(int n, const T *x, int incx, const T *y, int incy);                                 \
  T cblas_##p##nrm2(int n, const T *x, int incx);                                                      \
  void cblas_##p##axpy(int n, T alpha, const T *x, int incx, T *y, int incy);                          \
  void cblas_##p##scal(int n, T alpha, T *x, int incx);                                                \
  void cblas_##p##copy(int n, const T *x, int incx, T *y, int incy);                                   \
  void cblas_##p##gemv(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE trans, int m, int n, T alpha,     \
                       const T *A, int lda, const T *x, int incx, T beta, T *y, int incy);             \
  void cblas_##p##ger(enum CBLAS_ORDER layout, int m, int n, T alpha, const T *x, int incx,            \
                      const T *y, int incy, T *A, int lda);                                            \
  void cblas_##p##gemm(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,      \
                       int m, int n, int k, T alpha, const T *A, int lda, const T *B, int ldb, T beta, \
                       T *C, int ldc);                                                                 \
  void cblas_##p##trmv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,      \
                       enum CBLAS_DIAG diag, int n, const T *A, int lda, T *x, int incx);              \
  void cblas_##p##trsv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,      \
                       enum CBLAS_DIAG diag, int n, const T *A, int lda, T *x, int incx);
BLAS_DECLS(double, d)
BLAS_DECLS(float, s)
void cblas_dtrmm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *A, int lda, double *B, int ldb);
void cblas_dsyrk(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                 double alpha, const double *A, int lda, double beta, double *C, int ldc);
void cblas_dsyr2k(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  double alpha, const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc);
void cblas_dsymm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, double alpha,
                 const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc);
void cblas_dsymv(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *A, int lda,
                 const double *x, int incx, double beta, double *y, int incy);
void cblas_dsyr(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *x, int incx,
                double *A, int lda);
void cblas_dsyr2(enum CBLAS_ORDER layout, enum CBLAS_UPLO uplo, int n, double alpha, const double *x, int incx,
                 const double *y, int incy, double *A, int lda);
void cblas_dtrsm(enum CBLAS_ORDER layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *A, int lda, double *B, int ldb);

/* The Fortran ABI (column major, every argument by address). */
#define FBLAS_DECLS(T, p)                                                                              \
  T p##dot_(const int *n, const T *x, const int *incx, const T *y, const int *incy);                   \
  T p##nrm2_(const int *n, const T *x, const int *incx);                                               \
  void p##axpy_(const int *n, const T *alpha, const T *x, const int *incx, T *y, const int *incy);     \
  void p##scal_(const int *n, const T *alpha, T *x, const int *incx);                                  \
  void p##copy_(const int *n, const T *x, const int *incx, T *y, const int *incy);                     \
  void p##gemv_(const char *trans, const int *m, const int *n, const T *alpha, const T *A,             \
                const int *lda, const T *x, const int *incx, const T *beta, T *y, const int *incy);    \
  void p##ger_(const int *m, const int *n, const T *alpha, const T *x, const int *incx, const T *y,    \
               const int *incy, T *A, const int *lda);                                                 \
  void p##gemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,              \
                const T *alpha, const T *A, const int *lda, const T *B, const int *ldb, const T *beta, \
                T *C, const int *ldc);
FBLAS_DECLS(double, d)
