/* LAPACK's lacpy and lascl called by the program (TestLapackAux in
   lapack_test.go), differentiated by rule (lapackaux.go): through the
   Fortran ABI (Debian's reference liblapack, no bitcode) and through the
   cblas_<p>lacpy / cblas_<p>lascl ABI of Enzyme's harness (defined here,
   both layouts). f copies A's part into B (uplo U, L or all), scales B's
   part by cto/cfrom (type G, U, L or H; cfrom and cto active, read from
   S), and returns a weighted sum of every entry of A and B: the gradient
   against central differences (every entry, those the routines do not
   touch included), forward, split and batch mode against the gradient.
   Rectangular matrices, lda and ldb larger than needed. SINGLE: the same
   in single precision (slacpy_, slascl_; f's terms are at most quadratic,
   so central differences in float are exact up to rounding). One line
   per case; exit status 1 on any mismatch. */
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
typedef struct {
  float a, b;
} pairf;
pairf __enzyme_fwddiff_batchf(void *, ...);
#ifdef SINGLE
static pair topair(pairf p) {
  pair q = {p.a, p.b};
  return q;
}
#define BATCH(...) topair(__enzyme_fwddiff_batchf(__VA_ARGS__))
#else
#define BATCH __enzyme_fwddiff_batch
#endif

#ifdef SINGLE
typedef float real;
#define LACPY slacpy_
#define LASCL slascl_
#define CBLAS_LACPY cblas_slacpy
#define CBLAS_LASCL cblas_slascl
#define H 1e-2
#define TOL 1e-3
#define FTOL 1e-4
#else
typedef double real;
#define LACPY dlacpy_
#define LASCL dlascl_
#define CBLAS_LACPY cblas_dlacpy
#define CBLAS_LASCL cblas_dlascl
#define H 1e-6
#define TOL 1e-6
#define FTOL 1e-9
#endif
void LACPY(char *uplo, int *m, int *n, real *a, int *lda, real *b, int *ldb);
void LASCL(char *type, int *kl, int *ku, real *cfrom, real *cto, int *m, int *n, real *a, int *lda, int *info);

enum { ColMajor = 102, RowMajor = 101 };
static int at(int rm, int r, int c, int ld) { return rm ? r * ld + c : c * ld + r; }
static int inpart(char p, int r, int c) {
  switch (p) {
  case 'U': return r <= c;
  case 'L': return r >= c;
  case 'H': return r <= c + 1;
  default: return 1;
  }
}
/* Enzyme's harness ABI, over the matrix's own rows and columns (out of
   line, as Enzyme's are: inlined, they would be differentiated as loops). */
__attribute__((noinline)) void CBLAS_LACPY(char layout, char uplo, int m, int n, real *A, int lda, real *B, int ldb) {
  int rm = layout == RowMajor;
  for (int r = 0; r < m; r++)
    for (int c = 0; c < n; c++)
      if (uplo == 'U' || uplo == 'L' ? inpart(uplo, r, c) : 1) B[at(rm, r, c, ldb)] = A[at(rm, r, c, lda)];
}
__attribute__((noinline)) void CBLAS_LASCL(char layout, char type, int kl, int ku, real cfrom, real cto, int m, int n, real *A, int lda, int info) {
  int rm = layout == RowMajor;
  (void)kl, (void)ku, (void)info;
  for (int r = 0; r < m; r++)
    for (int c = 0; c < n; c++)
      if (inpart(type, r, c)) A[at(rm, r, c, lda)] *= cto / cfrom;
}

/* Column major: lda = M + 2, ldb = M + 3; row major: N + 2 and N + 1. */
enum { M = 4, N = 5, SA = (M + 2) * N, SB = (M + 3) * N };
/* The case: abi 0 Fortran (column major), 1 CBLAS column major, 2 CBLAS
   row major; the copy's uplo, the scaling's type. */
int abi;
char uplo, type;
real WA[SA], WB[SB];

real f(real *A, real *B, real *S) {
  int rm = abi == 2;
  int m = M, n = N, lda = rm ? N + 2 : M + 2, ldb = rm ? N + 1 : M + 3, z = 0, info;
  if (abi == 0) {
    LACPY(&uplo, &m, &n, A, &lda, B, &ldb);
    LASCL(&type, &z, &z, &S[0], &S[1], &m, &n, B, &ldb, &info);
  } else {
    char layout = rm ? RowMajor : ColMajor;
    CBLAS_LACPY(layout, uplo, m, n, A, lda, B, ldb);
    CBLAS_LASCL(layout, type, 0, 0, S[0], S[1], m, n, B, ldb, 0);
  }
  real s = 0;
  for (int i = 0; i < SA; i++) s += WA[i] * A[i] * A[i];
  for (int i = 0; i < SB; i++) s += WB[i] * B[i];
  return s;
}

static real A0[SA], B0[SB], S0[2];

static void setup(void) {
  for (int i = 0; i < SA; i++) A0[i] = 0.3 * sin(1.0 + i), WA[i] = 0.2 + 0.1 * cos(i);
  for (int i = 0; i < SB; i++) B0[i] = cos(0.5 * i), WB[i] = 0.3 + sin(0.7 * i);
  S0[0] = 1.7, S0[1] = -0.6;
}

static int check(void) {
  real A[SA], B[SB], S[2], dA[SA], dB[SB], dS[2], h = H;
  double err = 0, scale = 1e-3;
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
  memset(dA, 0, sizeof dA), memset(dB, 0, sizeof dB), memset(dS, 0, sizeof dS);
  __enzyme_autodiff((void *)f, A, dA, B, dB, S, dS);
  real *ps[3] = {A0, B0, S0}, *ds[3] = {dA, dB, dS};
  int ns[3] = {SA, SB, 2};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < ns[k]; i++) {
      real s = ps[k][i];
      ps[k][i] = s + h;
      memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
      double fp = f(A, B, S);
      ps[k][i] = s - h;
      memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
      double fm = f(A, B, S);
      ps[k][i] = s;
      double fd = (fp - fm) / (2 * h);
      if (fabs(fd) > scale) scale = fabs(fd);
      if (fabs(fd - ds[k][i]) > err) err = fabs(fd - ds[k][i]);
    }
  real tA[SA], tB[SB], tS[2];
  double g = 0;
  for (int i = 0; i < SA; i++) tA[i] = 0.01 * cos(3.0 * i), g += tA[i] * dA[i];
  for (int i = 0; i < SB; i++) tB[i] = 0.02 * sin(2.0 * i), g += tB[i] * dB[i];
  tS[0] = 0.03, tS[1] = -0.05, g += tS[0] * dS[0] + tS[1] * dS[1];
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
  double t = ((real(*)(void *, ...))__enzyme_fwddiff)((void *)f, enzyme_dup, A, tA, enzyme_dup, B, tB, enzyme_dup, S, tS);
  double ferr = fabs(t - g) / (fabs(g) > 1 ? fabs(g) : 1);
  /* Split mode against the gradient. */
  real sA[SA], sB[SB], sS[2];
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
  memset(sA, 0, sizeof sA), memset(sB, 0, sizeof sB), memset(sS, 0, sizeof sS);
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, A, sA, enzyme_dup, B, sB, enzyme_dup, S, sS);
  __enzyme_reverse((void *)f, enzyme_dup, A, sA, enzyme_dup, B, sB, enzyme_dup, S, sS, (real)1, tape);
  for (int i = 0; i < SA; i++) ferr = fmax(ferr, fabs(sA[i] - dA[i]));
  for (int i = 0; i < SB; i++) ferr = fmax(ferr, fabs(sB[i] - dB[i]));
  for (int i = 0; i < 2; i++) ferr = fmax(ferr, fabs(sS[i] - dS[i]));
  /* Batch forward mode: the direction and its double in one sweep. */
  real uA[SA], uB[SB], uS[2];
  for (int i = 0; i < SA; i++) tA[i] = 0.01 * cos(3.0 * i), uA[i] = 2 * tA[i];
  for (int i = 0; i < SB; i++) tB[i] = 0.02 * sin(2.0 * i), uB[i] = 2 * tB[i];
  tS[0] = 0.03, tS[1] = -0.05, uS[0] = 2 * tS[0], uS[1] = 2 * tS[1];
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(S, S0, sizeof S);
  pair p = BATCH((void *)f, enzyme_width, 2, enzyme_dup, A, tA, uA, enzyme_dup, B, tB, uB, enzyme_dup,
                                  S, tS, uS);
  double berr = (fabs(p.a - g) + fabs(p.b - 2 * g)) / (fabs(g) > 1 ? fabs(g) : 1);
  ferr = fmax(ferr, berr);
  int bad = err / scale > TOL || ferr > FTOL;
  printf("abi=%d uplo=%c type=%c: reverse vs FD %.1e, forward, split and batch vs reverse %.1e%s\n", abi, uplo, type,
         err / scale, ferr, bad ? "  MISMATCH" : "");
  return bad;
}

int main(void) {
  const char uplos[3] = {'U', 'L', 'G'}, types[4] = {'G', 'U', 'L', 'H'};
  int bad = 0;
  setup();
  for (abi = 0; abi < 3; abi++)
    for (int u = 0; u < 3; u++)
      for (int k = 0; k < 4; k++) {
        uplo = uplos[u], type = types[k];
        bad |= check();
      }
  return bad;
}
