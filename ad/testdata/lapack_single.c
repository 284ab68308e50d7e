/* Single precision: spotrf_, spotrs_ and strtrs_ (Fortran ABI, column
   major, lda > n) differentiated by rule, reverse and forward, against
   central differences of the same computation in double precision
   (dpotrf_, ...), to single precision's accuracy. Exit status 1 on any
   mismatch. */
#include <math.h>
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
float __enzyme_fwddiff(void *, ...);

void spotrf_(char *uplo, int *n, float *a, int *lda, int *info);
void spotrs_(char *uplo, int *n, int *nrhs, float *a, int *lda, float *b, int *ldb, int *info);
void strtrs_(char *uplo, char *trans, char *diag, int *n, int *nrhs, float *a, int *lda, float *b, int *ldb, int *info);
void dpotrf_(char *uplo, int *n, double *a, int *lda, int *info);
void dpotrs_(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, int *info);
void dtrtrs_(char *uplo, char *trans, char *diag, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb,
             int *info);

enum { N = 3, NRHS = 2, LDA = N + 1, LDB = N + 2, SA = N * LDA, SB = NRHS * LDB };
int routine, up, tr, unit;

/* The weighted sum of what the routine writes, in either precision. */
#define BODY(T, POTRF, POTRS, TRTRS)                                                   \
  int n = N, nrhs = NRHS, lda = LDA, ldb = LDB, info;                                  \
  char u = up ? 'U' : 'L', t = tr ? 'T' : 'N', d = unit ? 'U' : 'N';                   \
  T s = 0;                                                                             \
  if (routine == 0) {                                                                  \
    POTRF(&u, &n, A, &lda, &info);                                                     \
    for (int r = 0; r < N; r++)                                                        \
      for (int c = 0; c < N; c++)                                                      \
        if (up ? c >= r : r >= c) s += (T)(0.3 + sin(r + 2.0 * c)) * A[c * LDA + r];  \
    return s;                                                                          \
  }                                                                                    \
  if (routine == 1)                                                                    \
    POTRS(&u, &n, &nrhs, A, &lda, B, &ldb, &info);                                     \
  else                                                                                 \
    TRTRS(&u, &t, &d, &n, &nrhs, A, &lda, B, &ldb, &info);                             \
  for (int r = 0; r < N; r++)                                                          \
    for (int c = 0; c < NRHS; c++) s += (T)(0.3 + sin(r + 2.0 * c)) * B[c * LDB + r];  \
  return s;

float fs(float *A, float *B) { BODY(float, spotrf_, spotrs_, strtrs_) }
double fd(double *A, double *B) { BODY(double, dpotrf_, dpotrs_, dtrtrs_) }

static double A0[SA], B0[SB];

static void setup(void) {
  for (int i = 0; i < SA; i++) A0[i] = 0.1 * sin(1.0 + i);
  for (int i = 0; i < SB; i++) B0[i] = cos(0.5 * i);
  if (routine < 2) {
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) A0[c * LDA + r] = (r == c ? 3.0 : 0.5 * cos(r + c));
    if (routine == 1) {
      int n = N, lda = LDA, info;
      char u = up ? 'U' : 'L';
      dpotrf_(&u, &n, A0, &lda, &info);
    }
  } else {
    for (int r = 0; r < N; r++) A0[r * LDA + r] = 2.0 + 0.25 * r;
  }
}

int main(void) {
  int bad = 0;
  for (routine = 0; routine < 3; routine++)
    for (up = 0; up < 2; up++)
      for (tr = 0; tr < (routine == 2 ? 2 : 1); tr++)
        for (unit = 0; unit < (routine == 2 ? 2 : 1); unit++) {
          setup();
          float A[SA], B[SB], dA[SA] = {0}, dB[SB] = {0}, tA[SA], tB[SB];
          double a[SA], b[SB], h = 1e-6, err = 0, g = 0, scale = 1;
          for (int i = 0; i < SA; i++) A[i] = (float)A0[i];
          for (int i = 0; i < SB; i++) B[i] = (float)B0[i];
          __enzyme_autodiff((void *)fs, A, dA, B, dB);
          for (int k = 0; k < SA + SB; k++) {
            double *p = k < SA ? &A0[k] : &B0[k - SA], s = *p, fp, fm;
            *p = s + h, memcpy(a, A0, sizeof a), memcpy(b, B0, sizeof b), fp = fd(a, b);
            *p = s - h, memcpy(a, A0, sizeof a), memcpy(b, B0, sizeof b), fm = fd(a, b);
            *p = s;
            double fdv = (fp - fm) / (2 * h), got = k < SA ? dA[k] : dB[k - SA];
            if (fabs(fdv) > scale) scale = fabs(fdv);
            if (fabs(got - fdv) > err) err = fabs(got - fdv);
            double dir = 0.1 * cos(3.0 * k);
            g += dir * fdv;
            if (k < SA) tA[k] = (float)dir;
            else tB[k - SA] = (float)dir;
          }
          for (int i = 0; i < SA; i++) A[i] = (float)A0[i];
          for (int i = 0; i < SB; i++) B[i] = (float)B0[i];
          float t = __enzyme_fwddiff((void *)fs, enzyme_dup, A, tA, enzyme_dup, B, tB);
          double ferr = fabs(t - g) / (fabs(g) > 1 ? fabs(g) : 1);
          int fail = err / scale > 1e-4 || ferr > 1e-4;
          printf("s%s uplo=%c trans=%c diag=%c: reverse vs FD %.1e, forward vs FD %.1e%s\n",
                 routine == 0 ? "potrf" : routine == 1 ? "potrs" : "trtrs", up ? 'U' : 'L', tr ? 'T' : 'N',
                 unit ? 'U' : 'N', err / scale, ferr, fail ? "  MISMATCH" : "");
          bad |= fail;
        }
  return bad;
}
