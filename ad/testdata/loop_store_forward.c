/* A scratch array filled by one loop from memory nothing writes and read
   back by later loops at their own index (GMM's xcentered): the reverse
   sweep may rebuild xc[i] from x and m at i instead of recording it, but
   only where nothing writes xc between the loops. Each function's gradient
   against central finite differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 7, K = 3, D = 4 };

__attribute__((noinline)) void scribble(double *a, int i) { a[i] = 0.5 * a[i] + 0.25; }

/* mode 0: nothing writes xc between its fill and its reads (rebuilt);
   mode 1: a store into xc between them (recorded);
   mode 2: a call writing xc between them (recorded);
   mode 3: the filling loop itself writes an element an earlier iteration
   stored (recorded);
   mode 4: a memset of one element between them (folded to an integer
   store of zero, which must clear the element's derivative). */
static inline __attribute__((always_inline)) double objective(const double *x, const double *m, const double *q, int n,
                                                             int k, int d, int mode) {
	double *xc = malloc(d * sizeof(double)), *qx = malloc(d * sizeof(double));
	double s = 0;
	for (int p = 0; p < n; p++) {
		for (int c = 0; c < k; c++) {
			for (int i = 0; i < d; i++) {
				xc[i] = x[p * d + i] - m[c * d + i];
				if (mode == 3) xc[d - 1 - i] *= 1.25;
			}
			if (mode == 1) xc[(p + c) % d] = xc[(p + c) % d] * xc[0];
			if (mode == 2) scribble(xc, (p + c) % d);
			if (mode == 4) memset(xc + (p + c) % d, 0, sizeof(double));
			for (int i = 0; i < d; i++) qx[i] = exp(q[c * d + i]) * xc[i];
			int li = 0;
			for (int i = 0; i < d; i++)
				for (int j = i + 1; j < d; j++) qx[j] += q[(c * d + li++) % (k * d)] * xc[i];
			double t = 0;
			for (int i = 0; i < d; i++) t += qx[i] * qx[i] * xc[i];
			s += log(1 + t * t);
		}
	}
	free(xc);
	free(qx);
	return s;
}

__attribute__((noinline)) double f0(const double *x, const double *m, const double *q, int n, int k, int d) {
	return objective(x, m, q, n, k, d, 0);
}
__attribute__((noinline)) double f1(const double *x, const double *m, const double *q, int n, int k, int d) {
	return objective(x, m, q, n, k, d, 1);
}
__attribute__((noinline)) double f2(const double *x, const double *m, const double *q, int n, int k, int d) {
	return objective(x, m, q, n, k, d, 2);
}
__attribute__((noinline)) double f3(const double *x, const double *m, const double *q, int n, int k, int d) {
	return objective(x, m, q, n, k, d, 3);
}
__attribute__((noinline)) double f4(const double *x, const double *m, const double *q, int n, int k, int d) {
	return objective(x, m, q, n, k, d, 4);
}

typedef double (*fn)(const double *, const double *, const double *, int, int, int);

#define GRAD(g, f)                                                                                               \
	static void g(const double *x, double *m, double *dm, double *q, double *dq) {                              \
		__enzyme_autodiff((void *)f, enzyme_const, x, enzyme_dup, m, dm, enzyme_dup, q, dq, enzyme_const, N,   \
		                  enzyme_const, K, enzyme_const, D);                                                \
	}
GRAD(g0, f0)
GRAD(g1, f1)
GRAD(g2, f2)
GRAD(g3, f3)
GRAD(g4, f4)
typedef void (*gn)(const double *, double *, double *, double *, double *);

static int failures;

static void check(const char *name, fn f, gn g, const double *x, double *m, double *q) {
	double dm[K * D] = {0}, dq[K * D] = {0};
	g(x, m, dm, q, dq);
	for (int v = 0; v < 2; v++) {
		double *a = v ? q : m, *da = v ? dq : dm;
		for (int i = 0; i < K * D; i++) {
			double h = 1e-6, keep = a[i];
			a[i] = keep + h;
			double hi = f(x, m, q, N, K, D);
			a[i] = keep - h;
			double lo = f(x, m, q, N, K, D);
			a[i] = keep;
			double fd = (hi - lo) / (2 * h), err = fabs(da[i] - fd) / fmax(1.0, fabs(fd));
			if (!(err <= 1e-6)) {
				printf("FAIL %s d%c[%d]: got %.17g want %.17g\n", name, v ? 'q' : 'm', i, da[i], fd);
				failures++;
			}
		}
	}
	printf("%s done\n", name);
}

int main(void) {
	double x[N * D], m[K * D], q[K * D];
	for (int i = 0; i < N * D; i++) x[i] = sin(1.3 * i + 0.2);
	for (int i = 0; i < K * D; i++) m[i] = 0.3 * cos(0.7 * i), q[i] = 0.2 * sin(0.9 * i + 1);
	check("unwritten", f0, g0, x, m, q);
	check("stored", f1, g1, x, m, q);
	check("called", f2, g2, x, m, q);
	check("refilled", f3, g3, x, m, q);
	check("zeroed", f4, g4, x, m, q);
	return failures != 0;
}
