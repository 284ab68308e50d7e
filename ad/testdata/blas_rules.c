/* BLAS calls differentiated by rule (ad/blasrules.go): each routine inside a
   function of four arrays (s: the scalars alpha, beta; a, b, c: the
   routine's arrays), in reverse mode under three activity patterns and in
   forward mode, against central differences; for every layout, transpose
   and a few increments and leading dimensions. With G.ow the function
   overwrites its inputs after the call, so the reverse needs copies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 64
static struct {
  int layout, ta, tb, m, n, k, lda, ldb, ldc, incx, incy, ow;
} G;
static double W[N];

static double wsum(const double *y) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += W[i] * y[i];
  return s;
}

static void overwrite_f(float *a, float *b) {
  if (G.ow) {
    a[0] = 0.5f;
    b[1] = -0.25f;
  }
}

static void overwrite(double *a, double *b) {
  if (G.ow) {
    a[0] = 0.5;
    b[1] = -0.25;
  }
}

double f_dot(double *s, double *a, double *b, double *c) {
  double r = cblas_ddot(G.n, a, G.incx, b, G.incy);
  overwrite(a, b);
  return r * s[0];
}

double f_nrm2(double *s, double *a, double *b, double *c) {
  double r = cblas_dnrm2(G.n, a, G.incx);
  overwrite(a, b);
  return r + s[0] * b[0];
}

double f_axpy(double *s, double *a, double *b, double *c) {
  double y[N];
  memcpy(y, b, sizeof y);
  cblas_daxpy(G.n, s[0], a, G.incx, y, G.incy);
  overwrite(a, b);
  return wsum(y);
}

double f_scal(double *s, double *a, double *b, double *c) {
  if (G.ow) { /* in place, on the argument */
    cblas_dscal(G.n, s[0], b, G.incx);
    return wsum(b) + a[0];
  }
  double x[N];
  memcpy(x, a, sizeof x);
  cblas_dscal(G.n, s[0], x, G.incx);
  return wsum(x);
}

double f_copy(double *s, double *a, double *b, double *c) {
  double y[N];
  memcpy(y, b, sizeof y);
  cblas_dcopy(G.n, a, G.incx, y, G.incy);
  overwrite(a, b);
  return wsum(y);
}

double f_gemv(double *s, double *a, double *b, double *c) {
  double y[N];
  memcpy(y, c, sizeof y);
  cblas_dgemv(G.layout, G.ta, G.m, G.n, s[0], a, G.lda, b, G.incx, s[1], y, G.incy);
  overwrite(a, b);
  return wsum(y);
}

double f_ger(double *s, double *a, double *b, double *c) {
  double A[N];
  memcpy(A, c, sizeof A);
  cblas_dger(G.layout, G.m, G.n, s[0], a, G.incx, b, G.incy, A, G.lda);
  overwrite(a, b);
  return wsum(A);
}

double f_gemm(double *s, double *a, double *b, double *c) {
  double C[N];
  memcpy(C, c, sizeof C);
  cblas_dgemm(G.layout, G.ta, G.tb, G.m, G.n, G.k, s[0], a, G.lda, b, G.ldb, s[1], C, G.ldc);
  overwrite(a, b);
  return wsum(C);
}

/* Triangular products and solves: the triangle's diagonal is moved away
   from zero (a[ii] + 2) so that the solves are well conditioned. */
static int UPLO, DIAG;

double f_trmv(double *s, double *a, double *b, double *c) {
  double A[N], x[N];
  memcpy(A, a, sizeof A);
  memcpy(x, b, sizeof x);
  for (int i = 0; i < G.n; i++)
    A[i * (G.lda + 1)] += 2;
  cblas_dtrmv(G.layout, UPLO, G.ta, DIAG, G.n, A, G.lda, x, G.incx);
  overwrite(a, b);
  return wsum(x) * s[0];
}

double f_trsv(double *s, double *a, double *b, double *c) {
  double A[N], x[N];
  memcpy(A, a, sizeof A);
  memcpy(x, b, sizeof x);
  for (int i = 0; i < G.n; i++)
    A[i * (G.lda + 1)] += 2;
  cblas_dtrsv(G.layout, UPLO, G.ta, DIAG, G.n, A, G.lda, x, G.incx);
  overwrite(a, b);
  double r = wsum(x);
  if (G.ow)
    x[1] = 0; /* the solution overwritten: the reverse needs a copy */
  return r + x[0] * s[0];
}

static int SIDE;

double f_trmm(double *s, double *a, double *b, double *c) {
  double A[N], B[N];
  memcpy(A, a, sizeof A);
  memcpy(B, b, sizeof B);
  int k = SIDE == CblasLeft ? G.m : G.n;
  for (int i = 0; i < k; i++)
    A[i * (G.lda + 1)] += 2;
  cblas_dtrmm(G.layout, SIDE, UPLO, G.ta, DIAG, G.m, G.n, s[0], A, G.lda, B, G.ldb);
  overwrite(a, b);
  return wsum(B);
}

double f_trsm(double *s, double *a, double *b, double *c) {
  double A[N], B[N];
  memcpy(A, a, sizeof A);
  memcpy(B, b, sizeof B);
  int k = SIDE == CblasLeft ? G.m : G.n;
  for (int i = 0; i < k; i++)
    A[i * (G.lda + 1)] += 2;
  cblas_dtrsm(G.layout, SIDE, UPLO, G.ta, DIAG, G.m, G.n, s[0], A, G.lda, B, G.ldb);
  overwrite(a, b);
  double r = wsum(B);
  if (G.ow)
    B[1] = 0; /* the solution overwritten: the reverse needs a copy */
  return r + B[0] * s[1];
}

double f_syrk(double *s, double *a, double *b, double *c) {
  double C[N];
  memcpy(C, c, sizeof C);
  cblas_dsyrk(G.layout, UPLO, G.ta, G.n, G.k, s[0], a, G.lda, s[1], C, G.ldc);
  overwrite(a, b);
  return wsum(C);
}

double f_symv(double *s, double *a, double *b, double *c) {
  double y[N];
  memcpy(y, c, sizeof y);
  cblas_dsymv(G.layout, UPLO, G.n, s[0], a, G.lda, b, G.incx, s[1], y, G.incy);
  overwrite(a, b);
  return wsum(y);
}

double f_symm(double *s, double *a, double *b, double *c) {
  double C[N];
  memcpy(C, c, sizeof C);
  cblas_dsymm(G.layout, SIDE, UPLO, G.m, G.n, s[0], a, G.lda, b, G.ldb, s[1], C, G.ldc);
  overwrite(a, b);
  return wsum(C);
}

double f_syr2k(double *s, double *a, double *b, double *c) {
  double C[N];
  memcpy(C, c, sizeof C);
  cblas_dsyr2k(G.layout, UPLO, G.ta, G.n, G.k, s[0], a, G.lda, b, G.ldb, s[1], C, G.ldc);
  overwrite(a, b);
  return wsum(C);
}

double f_syr(double *s, double *a, double *b, double *c) {
  double A[N];
  memcpy(A, c, sizeof A);
  cblas_dsyr(G.layout, UPLO, G.n, s[0], a, G.incx, A, G.lda);
  overwrite(a, b);
  return wsum(A);
}

/* The Fortran ABI: the same routines through dgemv_ and friends (column
   major), alpha and beta passed by address (their derivatives through
   memory). */
static char tr(int t) { return t == CblasNoTrans ? 'N' : 'T'; }

double f_fdot(double *s, double *a, double *b, double *c) {
  double r = ddot_(&G.n, a, &G.incx, b, &G.incy);
  overwrite(a, b);
  return r * s[0] + dnrm2_(&G.n, b, &G.incy);
}

double f_faxpy(double *s, double *a, double *b, double *c) {
  double y[N], x[N];
  memcpy(y, b, sizeof y);
  daxpy_(&G.n, &s[0], a, &G.incx, y, &G.incy);
  dcopy_(&G.n, y, &G.incy, x, &G.incx);
  dscal_(&G.n, &s[1], x, &G.incx);
  overwrite(a, b);
  return wsum(x);
}

double f_fgemv(double *s, double *a, double *b, double *c) {
  double y[N];
  char t = tr(G.ta);
  memcpy(y, c, sizeof y);
  dgemv_(&t, &G.m, &G.n, &s[0], a, &G.lda, b, &G.incx, &s[1], y, &G.incy);
  overwrite(a, b);
  return wsum(y);
}

double f_fger(double *s, double *a, double *b, double *c) {
  double A[N];
  memcpy(A, c, sizeof A);
  dger_(&G.m, &G.n, &s[0], a, &G.incx, b, &G.incy, A, &G.lda);
  overwrite(a, b);
  return wsum(A);
}

double f_fgemm(double *s, double *a, double *b, double *c) {
  double C[N];
  char ta = tr(G.ta), tb = tr(G.tb);
  memcpy(C, c, sizeof C);
  dgemm_(&ta, &tb, &G.m, &G.n, &G.k, &s[0], a, &G.lda, b, &G.ldb, &s[1], C, &G.ldc);
  overwrite(a, b);
  return wsum(C);
}

/* A Fortran-ABI call in a callee differentiated apart (an augmented
   forward and a reverse sharing a tape), called twice. */
__attribute__((noinline)) void fgemm_twice(double *s, double *a, double *b, double *C) {
  char ta = tr(G.ta), tb = tr(G.tb);
  dgemm_(&ta, &tb, &G.m, &G.n, &G.k, &s[0], a, &G.lda, b, &G.ldb, &s[1], C, &G.ldc);
}

double f_fgemm2(double *s, double *a, double *b, double *c) {
  double C[N];
  memcpy(C, c, sizeof C);
  fgemm_twice(s, a, b, C);
  fgemm_twice(s, a, b, C);
  overwrite(a, b);
  return wsum(C);
}

/* A loop of gemv and copy: x is overwritten every iteration, so each
   iteration's reverse needs its own copy of x. */
double f_loop(double *s, double *a, double *b, double *c) {
  double x[N], y[N];
  memcpy(x, b, sizeof x);
  memcpy(y, c, sizeof y);
  for (int it = 0; it < 3; it++) {
    cblas_dgemv(G.layout, CblasNoTrans, G.n, G.n, s[0], a, G.n, x, 1, s[1], y, 1);
    cblas_dcopy(G.n, y, 1, x, 1);
    cblas_dscal(G.n, 0.5, x, 1);
  }
  return wsum(x) + cblas_ddot(G.n, x, 1, y, 1);
}

/* Split mode: the tape holds the copies. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

/* Single precision: the same gemv (and a dot) in float, checked against
   the double gradient at the same (rounded) inputs. */
double f_sgemv(float *s, float *a, float *b, float *c) {
  float y[N];
  memcpy(y, c, sizeof y);
  cblas_sgemv(G.layout, G.ta, G.m, G.n, s[0], a, G.lda, b, G.incx, s[1], y, G.incy);
  double r = cblas_sdot(G.n, a, 1, b, 1);
  overwrite_f(a, b);
  for (int i = 0; i < N; i++)
    r += W[i] * y[i];
  return r;
}

double f_sgemv_as_double(double *s, double *a, double *b, double *c) {
  double y[N];
  memcpy(y, c, sizeof y);
  cblas_dgemv(G.layout, G.ta, G.m, G.n, s[0], a, G.lda, b, G.incx, s[1], y, G.incy);
  double r = cblas_ddot(G.n, a, 1, b, 1);
  overwrite(a, b);
  return r + wsum(y);
}

/* Batch forward mode: two tangents in one sweep. */
typedef struct {
  double a, b;
} pair;
pair __enzyme_fwddiff_batch(void *, ...);

/* Activity patterns: which of s, a, b, c are enzyme_dup (bits 1, 2, 4, 8). */
static const int masks[4] = {15, 10, 5, 8};

#define D(i) enzyme_dup, w[i], g[i]
#define K(i) enzyme_const, w[i]
#define DEFINE(F)                                                                 \
  static void rev_##F(int mode, double w[4][N], double g[4][N]) {                 \
    switch (mode) {                                                               \
    case 0: __enzyme_autodiff((void *)F, D(0), D(1), D(2), D(3)); break;          \
    case 1: __enzyme_autodiff((void *)F, K(0), D(1), K(2), D(3)); break;          \
    case 2: __enzyme_autodiff((void *)F, D(0), K(1), D(2), K(3)); break;          \
    case 3: __enzyme_autodiff((void *)F, K(0), K(1), K(2), D(3)); break;          \
    }                                                                             \
  }                                                                               \
  static double fwd_##F(int mode, double w[4][N], double g[4][N]) {               \
    switch (mode) {                                                               \
    case 0: return __enzyme_fwddiff((void *)F, D(0), D(1), D(2), D(3));           \
    case 1: return __enzyme_fwddiff((void *)F, K(0), D(1), K(2), D(3));           \
    case 2: return __enzyme_fwddiff((void *)F, D(0), K(1), D(2), K(3));           \
    default: return __enzyme_fwddiff((void *)F, K(0), K(1), K(2), D(3));          \
    }                                                                             \
  }
DEFINE(f_dot)
DEFINE(f_nrm2)
DEFINE(f_axpy)
DEFINE(f_scal)
DEFINE(f_copy)
DEFINE(f_gemv)
DEFINE(f_ger)
DEFINE(f_gemm)
DEFINE(f_loop)
DEFINE(f_trmv)
DEFINE(f_trsv)
DEFINE(f_trmm)
DEFINE(f_trsm)
DEFINE(f_syrk)
DEFINE(f_symv)
DEFINE(f_symm)
DEFINE(f_syr2k)
DEFINE(f_syr)
DEFINE(f_fdot)
DEFINE(f_faxpy)
DEFINE(f_fgemv)
DEFINE(f_fger)
DEFINE(f_fgemm)
DEFINE(f_fgemm2)

static void rev_split_f_gemv(int mode, double w[4][N], double g[4][N]) {
  void *tape = __enzyme_augmentfwd((void *)f_gemv, D(0), D(1), D(2), D(3));
  __enzyme_reverse((void *)f_gemv, D(0), D(1), D(2), D(3), 1.0, tape);
}

typedef double (*fn)(double *, double *, double *, double *);
typedef void (*revfn)(int, double[4][N], double[4][N]);
typedef double (*fwdfn)(int, double[4][N], double[4][N]);

static double X[4][N], T[4][N];
static int failures, checks;

static double eval(fn f, double h, int which, int j) {
  double w[4][N];
  memcpy(w, X, sizeof w);
  if (which >= 0)
    w[which][j] += h;
  else
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < N; k++)
        w[i][k] += h * T[i][k];
  return f(w[0], w[1], w[2], w[3]);
}

static void compare(const char *name, const char *what, int mode, double got, double want) {
  checks++;
  if (fabs(got - want) > 1e-6 * (1 + fabs(want))) {
    if (failures++ < 20)
      printf("FAIL %s %s mode %d: layout %d ta %d tb %d m %d n %d k %d ld %d %d %d inc %d %d ow %d: got %.10g want %.10g\n",
             name, what, mode, G.layout, G.ta, G.tb, G.m, G.n, G.k, G.lda, G.ldb, G.ldc, G.incx, G.incy, G.ow,
             got, want);
  }
}

static void check(const char *name, fn f, revfn rev, fwdfn fwd) {
  const double h = 1e-6;
  for (int mode = 0; mode < 4; mode++) {
    int mask = masks[mode];
    double w[4][N], g[4][N];
    memcpy(w, X, sizeof w);
    memset(g, 0, sizeof g);
    rev(mode, w, g);
    for (int i = 0; i < 4; i++) {
      if (!(mask & (1 << i)))
        continue;
      for (int j = 0; j < N; j++) {
        double fd = (eval(f, h, i, j) - eval(f, -h, i, j)) / (2 * h);
        compare(name, "reverse", mode, g[i][j], fd);
      }
    }
    double t[4][N];
    memcpy(w, X, sizeof w);
    memset(t, 0, sizeof t);
    double saved[4][N];
    memcpy(saved, T, sizeof saved);
    for (int i = 0; i < 4; i++)
      if (mask & (1 << i))
        memcpy(t[i], T[i], sizeof t[i]);
      else
        memset(T[i], 0, sizeof T[i]);
    double got = fwd(mode, w, t);
    double fd = (eval(f, h, -1, 0) - eval(f, -h, -1, 0)) / (2 * h);
    memcpy(T, saved, sizeof T);
    compare(name, "forward", mode, got, fd);
  }
}

#define CHECK(F) check(#F, F, rev_##F, fwd_##F)

static void check_float(void) {
  float w[4][N], g[4][N];
  double wd[4][N], gd[4][N];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < N; j++) {
      w[i][j] = (float)X[i][j];
      wd[i][j] = w[i][j];
    }
  memset(g, 0, sizeof g);
  memset(gd, 0, sizeof gd);
  __enzyme_autodiff((void *)f_sgemv, enzyme_dup, w[0], g[0], enzyme_dup, w[1], g[1], enzyme_dup, w[2], g[2],
                    enzyme_dup, w[3], g[3]);
  __enzyme_autodiff((void *)f_sgemv_as_double, enzyme_dup, wd[0], gd[0], enzyme_dup, wd[1], gd[1], enzyme_dup,
                    wd[2], gd[2], enzyme_dup, wd[3], gd[3]);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < N; j++) {
      checks++;
      if (fabs(g[i][j] - gd[i][j]) > 1e-4 * (1 + fabs(gd[i][j])) && failures++ < 20)
        printf("FAIL f_sgemv reverse [%d][%d]: got %g want %g\n", i, j, g[i][j], gd[i][j]);
    }
}

static void check_batch(void) {
  double w[4][N], t[4][N], u[4][N];
  memcpy(w, X, sizeof w);
  memcpy(t, T, sizeof t);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < N; j++)
      u[i][j] = 2 * T[i][j];
  double one = fwd_f_gemm(0, w, t); /* with G.ow, it zeroes tangents it overwrites */
  memcpy(w, X, sizeof w);
  memcpy(t, T, sizeof t);
  pair p = __enzyme_fwddiff_batch((void *)f_gemm, enzyme_width, 2, enzyme_dup, w[0], t[0], u[0], enzyme_dup,
                                  w[1], t[1], u[1], enzyme_dup, w[2], t[2], u[2], enzyme_dup, w[3], t[3], u[3]);
  compare("f_gemm", "batch lane 0", 0, p.a, one);
  compare("f_gemm", "batch lane 1", 0, p.b, 2 * one);
}

int main(void) {
  srand(7);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < N; j++) {
      X[i][j] = (double)rand() / RAND_MAX - 0.3;
      T[i][j] = (double)rand() / RAND_MAX - 0.5;
    }
  for (int j = 0; j < N; j++)
    W[j] = 0.1 + (double)(j % 7) / 5;
  X[0][0] = 1.3, X[0][1] = 0.7; /* alpha, beta */
  static const int incs[][2] = {{1, 1}, {2, 3}, {-1, 2}};
  for (G.ow = 0; G.ow < 2; G.ow++)
    for (int v = 0; v < 3; v++) {
      G.incx = incs[v][0], G.incy = incs[v][1], G.n = 5;
      CHECK(f_dot);
      CHECK(f_nrm2);
      CHECK(f_axpy);
      CHECK(f_scal);
      CHECK(f_copy);
      CHECK(f_fdot);
      CHECK(f_faxpy);
    }
  static const int layouts[] = {CblasRowMajor, CblasColMajor};
  static const int trans[] = {CblasNoTrans, CblasTrans};
  for (G.ow = 0; G.ow < 2; G.ow++)
    for (int l = 0; l < 2; l++)
      for (int pad = 0; pad < 3; pad += 2)
        for (int v = 0; v < 2; v++) {
          G.layout = layouts[l], G.m = 3, G.n = 4, G.k = 2;
          G.incx = incs[v][0], G.incy = incs[v][1];
          int rm = G.layout == CblasRowMajor;
          for (int ta = 0; ta < 2; ta++) {
            G.ta = trans[ta];
            G.lda = (rm ? G.n : G.m) + pad;
            CHECK(f_gemv);
            if (!rm)
              CHECK(f_fgemv), CHECK(f_fger);
            check("f_gemv split", f_gemv, rev_split_f_gemv, fwd_f_gemv);
            CHECK(f_ger);
            for (int tb = 0; tb < 2; tb++) {
              G.tb = trans[tb];
              int arows = ta ? G.k : G.m, acols = ta ? G.m : G.k;
              int brows = tb ? G.n : G.k, bcols = tb ? G.k : G.n;
              G.lda = (rm ? acols : arows) + pad;
              G.ldb = (rm ? bcols : brows) + pad / 2;
              G.ldc = (rm ? G.n : G.m) + pad;
              CHECK(f_gemm);
              if (!rm)
                CHECK(f_fgemm), CHECK(f_fgemm2);
              check_batch();
            }
            check_float();
          }
        }
  for (G.ow = 0; G.ow < 2; G.ow++)
    for (G.layout = CblasRowMajor; G.layout <= CblasColMajor; G.layout++)
      for (UPLO = CblasUpper; UPLO <= CblasLower; UPLO++)
        for (DIAG = CblasNonUnit; DIAG <= CblasUnit; DIAG++)
          for (int ta = 0; ta < 2; ta++)
            for (int v = 0; v < 3; v++) {
              G.ta = trans[ta], G.n = 4, G.lda = 4 + v, G.incx = incs[v][0];
              CHECK(f_trmv);
              CHECK(f_trsv);
            }
  for (G.ow = 0; G.ow < 2; G.ow++)
    for (G.layout = CblasRowMajor; G.layout <= CblasColMajor; G.layout++)
      for (SIDE = CblasLeft; SIDE <= CblasRight; SIDE++)
        for (UPLO = CblasUpper; UPLO <= CblasLower; UPLO++)
          for (DIAG = CblasNonUnit; DIAG <= CblasUnit; DIAG++)
            for (int ta = 0; ta < 2; ta++)
              for (int pad = 0; pad < 2; pad++) {
                int rm = G.layout == CblasRowMajor;
                G.ta = trans[ta], G.m = 3, G.n = 4;
                G.lda = (SIDE == CblasLeft ? G.m : G.n) + pad;
                G.ldb = (rm ? G.n : G.m) + 2 * pad;
                CHECK(f_trmm);
                CHECK(f_trsm);
              }
  for (G.ow = 0; G.ow < 2; G.ow++)
    for (G.layout = CblasRowMajor; G.layout <= CblasColMajor; G.layout++)
      for (UPLO = CblasUpper; UPLO <= CblasLower; UPLO++)
        for (int ta = 0; ta < 2; ta++)
          for (int pad = 0; pad < 2; pad++) {
            int rm = G.layout == CblasRowMajor;
            G.ta = trans[ta], G.n = 4, G.k = 3;
            int rows = ta ? G.k : G.n, cols = ta ? G.n : G.k;
            G.lda = (rm ? cols : rows) + pad;
            G.ldc = G.n + 2 * pad;
            CHECK(f_syrk);
            G.ldb = G.lda + 1;
            CHECK(f_syr2k);
            G.lda = G.n + pad;
            G.incx = incs[ta + pad][0], G.incy = incs[ta + pad][1];
            CHECK(f_symv);
            CHECK(f_syr);
            for (SIDE = CblasLeft; SIDE <= CblasRight; SIDE++) {
              G.m = 3;
              G.lda = (SIDE == CblasLeft ? G.m : G.n) + pad;
              G.ldb = G.ldc = (rm ? G.n : G.m) + 2 * pad;
              CHECK(f_symm);
            }
          }
  for (G.layout = CblasRowMajor; G.layout <= CblasColMajor; G.layout++) {
    G.n = 4;
    CHECK(f_loop);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
