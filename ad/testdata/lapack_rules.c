/* LAPACK's potrf, potrs and trtrs (Debian's reference liblapack, no
   bitcode) through the Fortran ABI and through the cblas_<p><x>(layout,
   ..., int *info) ABI of Enzyme's rules (defined here over the Fortran
   routines, row major by transposition): for each uplo, transpose, diag
   and layout, with lda > n, the gradient of a weighted sum of what the
   routine writes against central differences (every entry of A and B,
   those the routine does not read included), and the forward derivative
   along a direction against the gradient. Prints one line per case;
   exit status 1 on any mismatch. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_width;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct {
  double a, b;
} pair;
pair __enzyme_fwddiff_batch(void *, ...);

void dpotrf_(char *uplo, int *n, double *a, int *lda, int *info);
void dpotrs_(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, int *info);
void dtrtrs_(char *uplo, char *trans, char *diag, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb,
             int *info);
#ifdef LAPACK_AUX
/* With these in the program, the Fortran-ABI rules copy and scale with
   them (as Enzyme's do) instead of their own loops. */
void dlacpy_(char *uplo, int *m, int *n, double *a, int *lda, double *b, int *ldb);
void dlascl_(char *type, int *kl, int *ku, double *cfrom, double *cto, int *m, int *n, double *a, int *lda, int *info);
#endif

/* Row major: the Fortran routine sees Aᵀ (the other triangle) and, for the
   right-hand sides, a transposed copy. */
static void tocol(int rm, int n, int m, double *b, int ldb, double *t) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      t[i + j * n] = rm ? b[i * ldb + j] : b[i + j * ldb];
}
static void fromcol(int rm, int n, int m, double *t, double *b, int ldb) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (rm)
        b[i * ldb + j] = t[i + j * n];
      else
        b[i + j * ldb] = t[i + j * n];
    }
}
static char uploc(int rm, int uplo) { return (uplo == CblasUpper) != rm ? 'U' : 'L'; }

void cblas_dpotrf(int layout, int uplo, int n, double *A, int lda, int *info) {
  char u = uploc(layout == CblasRowMajor, uplo);
  dpotrf_(&u, &n, A, &lda, info);
}
void cblas_dpotrs(int layout, int uplo, int n, int nrhs, double *A, int lda, double *B, int ldb, int *info) {
  int rm = layout == CblasRowMajor;
  char u = uploc(rm, uplo);
  double *t = malloc(sizeof(double) * n * nrhs);
  tocol(rm, n, nrhs, B, ldb, t);
  dpotrs_(&u, &n, &nrhs, A, &lda, t, &n, info);
  fromcol(rm, n, nrhs, t, B, ldb);
  free(t);
}
void cblas_dtrtrs(int layout, int uplo, int trans, int diag, int n, int nrhs, double *A, int lda, double *B, int ldb,
                  int *info) {
  int rm = layout == CblasRowMajor;
  char u = uploc(rm, uplo), tr = (trans == CblasNoTrans) != rm ? 'N' : 'T', d = diag == CblasUnit ? 'U' : 'N';
  double *t = malloc(sizeof(double) * n * nrhs);
  tocol(rm, n, nrhs, B, ldb, t);
  dtrtrs_(&u, &tr, &d, &n, &nrhs, A, &lda, t, &n, info);
  fromcol(rm, n, nrhs, t, B, ldb);
  free(t);
}

enum { N = 4, NRHS = 3, LDA = N + 2, LDB = NRHS + 3, SA = N * LDA, SB = N * LDB };
/* The case: abi 0 Fortran (column major), 1 CBLAS column major, 2 CBLAS
   row major; routine 0 potrf, 1 potrs, 2 trtrs. */
int abi, routine, up, tr, unit;
double W[SB > SA ? SB : SA];

static int at(int rm, int r, int c, int ld) { return rm ? r * ld + c : c * ld + r; }

double f(double *A, double *B) {
  int n = N, nrhs = NRHS, lda = LDA, ldb = LDB, info;
  int rm = abi == 2, layout = rm ? CblasRowMajor : CblasColMajor;
  int uplo = up ? CblasUpper : CblasLower;
  char u = up ? 'U' : 'L', t = tr ? 'T' : 'N', d = unit ? 'U' : 'N';
  double s = 0;
  if (routine == 0) {
    if (abi == 0)
      dpotrf_(&u, &n, A, &lda, &info);
    else
      cblas_dpotrf(layout, uplo, n, A, lda, &info);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++)
        if (up ? c >= r : r >= c)
          s += W[r * N + c] * A[at(rm, r, c, lda)];
    return s;
  }
  if (routine == 1) {
    if (abi == 0)
      dpotrs_(&u, &n, &nrhs, A, &lda, B, &ldb, &info);
    else
      cblas_dpotrs(layout, uplo, n, nrhs, A, lda, B, ldb, &info);
  } else {
    if (abi == 0)
      dtrtrs_(&u, &t, &d, &n, &nrhs, A, &lda, B, &ldb, &info);
    else
      cblas_dtrtrs(layout, uplo, tr ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, n, nrhs, A, lda, B,
                   ldb, &info);
  }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < nrhs; c++)
      s += W[r * NRHS + c] * B[at(rm, r, c, ldb)];
  return s;
}

static double A0[SA], B0[SB];

/* A: SPD (potrf), its Cholesky factor (potrs), a well-conditioned
   triangle (trtrs); the entries the routine does not read hold values
   too. */
static void setup(void) {
  int rm = abi == 2;
  for (int i = 0; i < SA; i++) A0[i] = 0.1 * sin(1.0 + i);
  for (int i = 0; i < SB; i++) B0[i] = cos(0.5 * i);
  for (int i = 0; i < SB; i++) W[i] = 0.3 + sin(0.7 * i);
  if (routine == 0 || routine == 1) {
    double M[N][N];
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) M[r][c] = 0.3 * sin(r + 2.0 * c) + (r == c ? 2.0 : 0);
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) {
        double v = 0;
        for (int k = 0; k < N; k++) v += M[r][k] * M[c][k];
        A0[at(rm, r, c, LDA)] = v;
      }
    if (routine == 1) {
      int n = N, lda = LDA, info;
      char u = uploc(rm, up ? CblasUpper : CblasLower);
      dpotrf_(&u, &n, A0, &lda, &info);
    }
  } else {
    for (int r = 0; r < N; r++) A0[at(rm, r, r, LDA)] = 2.0 + 0.25 * r;
  }
#ifdef LAPACK_AUX
  {
    double t[SB], one = 1.0;
    int n = N, m = SB / N, z = 0, info;
    char g = 'G';
    dlacpy_(&g, &n, &m, B0, &n, t, &n);
    dlascl_(&g, &z, &z, &one, &one, &n, &m, t, &n, &info);
    memcpy(B0, t, sizeof t);
  }
#endif
}

static int check(const char *name) {
  double A[SA], B[SB], dA[SA], dB[SB], h = 1e-6, err = 0, scale = 1e-3;
  memcpy(A, A0, sizeof A);
  memcpy(B, B0, sizeof B);
  memset(dA, 0, sizeof dA);
  memset(dB, 0, sizeof dB);
  __enzyme_autodiff((void *)f, A, dA, B, dB);
  double *ps[2] = {A0, B0}, *ds[2] = {dA, dB};
  int ns[2] = {SA, SB};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < ns[k]; i++) {
      double s = ps[k][i];
      ps[k][i] = s + h;
      memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B);
      double fp = f(A, B);
      ps[k][i] = s - h;
      memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B);
      double fm = f(A, B);
      ps[k][i] = s;
      double fd = (fp - fm) / (2 * h);
      if (fabs(fd) > scale) scale = fabs(fd);
      if (fabs(fd - ds[k][i]) > err) err = fabs(fd - ds[k][i]);
    }
  double tA[SA], tB[SB], g = 0;
  for (int i = 0; i < SA; i++) tA[i] = 0.01 * cos(3.0 * i), g += tA[i] * dA[i];
  for (int i = 0; i < SB; i++) tB[i] = 0.02 * sin(2.0 * i), g += tB[i] * dB[i];
  memcpy(A, A0, sizeof A);
  memcpy(B, B0, sizeof B);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, A, tA, enzyme_dup, B, tB);
  double ferr = fabs(t - g) / (fabs(g) > 1 ? fabs(g) : 1);
  /* Split mode (the tape holds the copies) against the gradient. */
  double sA[SA], sB[SB];
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B);
  memset(sA, 0, sizeof sA), memset(sB, 0, sizeof sB);
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, A, sA, enzyme_dup, B, sB);
  __enzyme_reverse((void *)f, enzyme_dup, A, sA, enzyme_dup, B, sB, 1.0, tape);
  for (int i = 0; i < SA; i++)
    if (fabs(sA[i] - dA[i]) > ferr) ferr = fabs(sA[i] - dA[i]);
  for (int i = 0; i < SB; i++)
    if (fabs(sB[i] - dB[i]) > ferr) ferr = fabs(sB[i] - dB[i]);
  /* Batch forward mode: the direction (forward mode overwrote tA and tB
     with the outputs' tangents) and its double in one sweep. */
  double uA[SA], uB[SB];
  for (int i = 0; i < SA; i++) tA[i] = 0.01 * cos(3.0 * i), uA[i] = 2 * tA[i];
  for (int i = 0; i < SB; i++) tB[i] = 0.02 * sin(2.0 * i), uB[i] = 2 * tB[i];
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B);
  pair p = __enzyme_fwddiff_batch((void *)f, enzyme_width, 2, enzyme_dup, A, tA, uA, enzyme_dup, B, tB, uB);
  double berr = fabs(p.a - g) + fabs(p.b - 2 * g);
  if (berr / (fabs(g) > 1 ? fabs(g) : 1) > ferr) ferr = berr / (fabs(g) > 1 ? fabs(g) : 1);
  int bad = err / scale > 1e-6 || ferr > 1e-9;
  printf("%s abi=%d uplo=%c trans=%c diag=%c: reverse vs FD %.1e, forward, split and batch vs reverse %.1e%s\n", name, abi,
         up ? 'U' : 'L', tr ? 'T' : 'N', unit ? 'U' : 'N', err / scale, ferr, bad ? "  MISMATCH" : "");
  return bad;
}

int main(void) {
  const char *names[3] = {"potrf", "potrs", "trtrs"};
  int bad = 0;
  for (routine = 0; routine < 3; routine++)
    for (abi = 0; abi < 3; abi++)
      for (up = 0; up < 2; up++)
        for (tr = 0; tr < (routine == 2 ? 2 : 1); tr++)
          for (unit = 0; unit < (routine == 2 ? 2 : 1); unit++) {
            setup();
            bad |= check(names[routine]);
          }
  return bad;
}
