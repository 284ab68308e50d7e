/* Gradients through fused loops (TestFusedGradientNests, fuse_test.go): GMM's pair with a
 * branch and sqrt/fabs, a pair in a triangular nest, a chain of three in an
 * outer loop that overwrites x; central differences at n = 1..11. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
static int failures;
__attribute__((noinline)) double gmm(double *x, int n) {
	int d = n / 2;
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx), s = 0;
	for (int j = 0; j < d; j++) xc[j] = x[j] - x[j + d] * 0.5;
	for (int j = 0; j < d; j++) qx[j] = xc[j] > 0 ? sqrt(xc[j] * xc[j] + 1) : fabs(xc[j]) * x[j];
	for (int j = 0; j < d; j++) s += qx[j] * qx[j];
	free(xc); free(qx);
	return s;
}
__attribute__((noinline)) double trinest(double *x, int n) {
	double *xc = malloc(n * sizeof *xc), *qx = malloc(n * sizeof *qx), s = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) xc[j] = x[j] * x[i] - 0.3;
		for (int j = 0; j < i; j++) qx[j] = sin(xc[j]) * x[j];
		for (int j = 0; j < i; j++) s += qx[j] * xc[j];
	}
	free(xc); free(qx);
	return s;
}
__attribute__((noinline)) double chain3(double *x, int n) {
	double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), s = 0;
	for (int r = 0; r < 3; r++) {
		for (int j = 0; j < n; j++) a[j] = x[j] * x[j] + r;
		for (int j = 0; j < n; j++) b[j] = a[j] * x[(j + r) % n];
		for (int j = 0; j < n; j++) c[j] = b[j] * a[j] - x[j];
		for (int j = 0; j < n; j++) x[j] = c[j] * 0.5;
	}
	for (int j = 0; j < n; j++) s += x[j];
	free(a); free(b); free(c);
	return s;
}
#define COPY(f) static double f##_copy(double *x, int n) { double y[64]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(gmm) COPY(trinest) COPY(chain3)
static void fd(const char *name, double (*f)(double *, int), double (*fc)(double *, int), int n) {
	double x[64], xc[64], dx[64] = {0};
	for (int i = 0; i < n; i++) x[i] = 0.3 + 0.11 * (i % 7) - 0.2 * (i % 3);
	memcpy(xc, x, sizeof x);
	__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n);
	for (int i = 0; i < n; i++) {
		double s = x[i], h = 1e-6;
		x[i] = s + h; double fp = fc(x, n);
		x[i] = s - h; double fm = fc(x, n);
		x[i] = s;
		double want = (fp - fm) / (2 * h);
		if (!(fabs(dx[i] - want) <= 1e-6 * fmax(1, fabs(want)))) { printf("FAIL %s n=%d [%d]: %g want %g\n", name, n, i, dx[i], want); failures++; }
	}
}
int main(void) {
	for (int n = 1; n < 12; n++) { fd("gmm", gmm, gmm_copy, n); fd("trinest", trinest, trinest_copy, n); fd("chain3", chain3, chain3_copy, n); }
	printf("failures %d\n", failures);
	return failures != 0;
}
