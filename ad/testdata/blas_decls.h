/* CBLAS declarations (as cblas.h has them) for the BLAS rule tests. */
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double cblas_dnrm2(int n, const double *x, int incx);
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void cblas_dscal(int n, double alpha, double *x, int incx);
void cblas_dcopy(int n, const double *x, int incx, double *y, int incy);
void cblas_dgemv(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE trans, int m, int n, double alpha,
                 const double *A, int lda, const double *x, int incx, double beta, double *y, int incy);
void cblas_dger(enum CBLAS_ORDER layout, int m, int n, double alpha, const double *x, int incx,
                const double *y, int incy, double *A, int lda);
void cblas_dgemm(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n,
                 int k, double alpha, const double *A, int lda, const double *B, int ldb, double beta,
                 double *C, int ldc);
