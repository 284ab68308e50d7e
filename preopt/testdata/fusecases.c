/* Pairs of adjacent loops for FuseLoops (fuse_test.go): the functions named
 * fused_* have a pair FuseLoops fuses, the others one it must leave alone.
 * main prints what each computes, the same fused or not. */
#include <stdio.h>
#include <stdlib.h>

/* GMM's pair: xc through a private buffer, then qx from xc. */
double fused_pair(const double *x, const double *mu, const double *q, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] - mu[j];
	for (int j = 0; j < d; j++) qx[j] = q[j] * xc[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The pair on restrict parameters. */
void fused_restrict(double *restrict xc, double *restrict qx, const double *restrict x, int d) {
	for (int j = 0; j < d; j++) xc[j] = x[j] * x[j];
	for (int j = 0; j < d; j++) qx[j] = xc[j] + x[j];
}

/* The second loop reads xc[j+1], which the first loop writes one iteration
 * later: fused, it would read the element before it is written. */
double shifted(const double *x, const double *mu, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] - mu[j];
	for (int j = 0; j < d; j++) qx[j] = 2 * xc[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* LLVM 14's loop-fusion fuses this pair (issue 191238): the first loop
 * writes one location, the second reads it and must see the last write. */
double invariant(const double *x, int d) {
	double *last = malloc(sizeof *last), *out = malloc(d * sizeof *out);
	*last = -1;
	for (int j = 0; j < d; j++)
		if (x[j] > 0) *last = x[j];
	for (int j = 0; j < d; j++)
		if (x[j] < 1) out[j] = *last;
		else out[j] = 0;
	double s = 0;
	for (int j = 0; j < d; j++) s += out[j] * (j + 1);
	free(last);
	free(out);
	return s;
}

/* a and b may be the same array (main passes b = a + 1). */
void params(double *a, double *b, int d) {
	for (int j = 0; j < d; j++) a[j] = a[j] * 2;
	for (int j = 0; j < d; j++) b[j] = b[j] + a[j];
}

/* Different trip counts (main passes e = d - 1). */
double trip(const double *x, int d, int e) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] + 1;
	for (int j = 0; j < e; j++) qx[j] = xc[j] * 3;
	double s = 0;
	for (int j = 0; j < e; j++) s += qx[j];
	free(xc);
	free(qx);
	return s;
}

/* xc escapes (its address goes to *where), and the second loop reads
 * through a pointer loaded from there. */
double escaped(const double *x, double **where, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	xc[d] = 0.25;
	*where = xc;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	double *alias = *where;
	for (int j = 0; j < d; j++) qx[j] = alias[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* GMM's pair, but the second loop has a pragma of its own. */
double pragma_pair(const double *x, const double *mu, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] - mu[j];
#pragma clang loop unroll(disable)
	for (int j = 0; j < d; j++) qx[j] = 3 * xc[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The first loop is a memset, the second a memcpy: LLVM makes calls of
 * them, unless they are fused. */
double idioms(const double *x, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = 0;
	for (int j = 0; j < d; j++) qx[j] = x[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += (qx[j] + xc[j]) * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The second loop uses the first loop's counter after that loop: d. */
double exitvalue(const double *x, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	int j;
	for (j = 0; j < d; j++) xc[j] = x[j] + 1;
	for (int k = 0; k < d; k++) qx[k] = xc[k] * j;
	double s = 0;
	for (int k = 0; k < d; k++) s += qx[k] * (k + 1);
	free(xc);
	free(qx);
	return s;
}

int main(int argc, char **argv) {
	(void)argv;
	enum { MAX = 16 };
	int d = argc + 6; /* 7, from the command line so that nothing folds */
	double x[MAX], mu[MAX], q[MAX], a[MAX + 1], xc[MAX], qx[MAX];
	double *where;
	for (int i = 0; i < d; i++) {
		x[i] = 0.3 * i - 0.8;
		mu[i] = 0.1 * i * i;
		q[i] = 1.5 - 0.2 * i;
	}
	for (int i = 0; i <= d; i++) a[i] = i + 1;
	params(a, a + 1, d);
	fused_restrict(xc, qx, x, d);
	printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", fused_pair(x, mu, q, d), shifted(x, mu, d),
	       invariant(x, d), trip(x, d, d - 1), escaped(x, &where, d), pragma_pair(x, mu, d), idioms(x, d),
	       exitvalue(x, d), a[0] + 10 * a[3] + 100 * a[d] + qx[2] + xc[5]);
	return 0;
}
