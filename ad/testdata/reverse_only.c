/* The program of TestReverseOnlyShadow (reverseonly_test.go), compiled
 * after checkPrelude: temporaries whose shadows exist in the reverse sweep
 * only (allocated by the reverse of their free, freed by the reverse of
 * their allocation), next to temporaries that keep a forward shadow:
 *   cell: a split helper called in a loop, its scratch buffer filled by
 *     one loop and read by two more (reverse only);
 *   early: the gradient's own buffer, freed on two paths, one of them an
 *     early return (reverse only);
 *   zeroed: a calloc'd buffer accumulated into, cleared by a memset and
 *     accumulated into again (reverse only);
 *   ptrs: a buffer of pointers (forward shadow: its shadow holds the
 *     pointers' shadows);
 *   passed: a buffer handed to a helper (forward shadow);
 *   looped: a buffer allocated in every iteration (forward shadow).
 * Each gradient against central differences; the test runs it under
 * valgrind (no invalid access, no leak). */
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
enum { N = 5, STEPS = 4 };
int n = N, steps = STEPS;

__attribute__((noinline)) void cell(int m, const double *w, double *h) {
	double *g = malloc(2 * m * sizeof(double));
	for (int i = 0; i < m; i++) {
		g[i] = 1 / (1 + exp(-(h[i] * w[i])));
		g[m + i] = tanh(h[i] + w[m + i]);
	}
	for (int i = 0; i < m; i++) h[i] = h[i] * g[i] + g[m + i];
	for (int i = 0; i < m; i++) h[i] += g[i] * g[m + i];
	free(g);
}
double run_cells(const double *w, double *h) {
	double s = 0;
	for (int t = 0; t < steps; t++) {
		cell(n, w, h);
		s += h[t % n];
	}
	return s;
}
double f_cell(double *x) {
	double h[N];
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	return run_cells(x, h);
}

__attribute__((noinline)) double early(double *x) {
	double *a = malloc(n * sizeof(double)), s = 0;
	for (int i = 0; i < n; i++) a[i] = x[i] * x[(i + 2) % n];
	if (a[0] > 2) {
		s = a[1] * a[2];
		free(a);
		return s;
	}
	for (int i = 0; i < n; i++) s += sin(a[i]) * a[(i + 1) % n];
	free(a);
	return s;
}

__attribute__((noinline)) double zeroed(double *x) {
	double *a = calloc(3, sizeof(double)), s;
	for (int i = 0; i < n; i++) a[i % 3] += x[i] * x[i];
	s = a[0] * a[1] + a[2];
	memset(a, 0, 3 * sizeof(double));
	for (int i = 0; i < n; i++) a[i % 3] += x[i] * s;
	s += a[0] + 2 * a[1] + a[2] * a[2];
	free(a);
	return s;
}

__attribute__((noinline)) double ptrs(double *x) {
	double **p = malloc(n * sizeof(double *)), s = 0;
	for (int i = 0; i < n; i++) p[i] = x + i % 3;
	for (int i = 0; i < n; i++) s += p[i][0] * p[(i + 1) % n][1];
	free(p);
	return s;
}

__attribute__((noinline)) static void fill(double *a, const double *x) {
	for (int i = 0; i < n; i++) a[i] = cos(x[i]);
}
__attribute__((noinline)) double passed(double *x) {
	double *a = malloc(n * sizeof(double)), s = 0;
	fill(a, x);
	for (int i = 0; i < n; i++) s += a[i] * x[i];
	free(a);
	return s;
}

__attribute__((noinline)) double looped(double *x) {
	double s = 0;
	for (int t = 0; t < steps; t++) {
		double *a = malloc(n * sizeof(double));
		for (int i = 0; i < n; i++) a[i] = x[i] * (t + 1) + s;
		for (int i = 0; i < n; i++) s += a[i] * a[i] * 0.1;
		free(a);
	}
	return s;
}

/* GRAD_CHECK checks f's gradient at x (its first nx values) against
 * central differences. */
#define GRAD_CHECK(name, f, nx, x) \
	do { \
		double g_[2 * N] = {0}; \
		__enzyme_autodiff((void *)f, enzyme_dup, x, g_); \
		for (int i = 0; i < nx; i++) { \
			double save = x[i], h = 1e-6; \
			x[i] = save + h; \
			double fp = f(x); \
			x[i] = save - h; \
			double fm = f(x); \
			x[i] = save; \
			char what[64]; \
			snprintf(what, sizeof what, "%s[%d]", name, i); \
			check(what, g_[i], (fp - fm) / (2 * h), 1e-6); \
		} \
	} while (0)

int main(void) {
	double x[2 * N];
	for (int i = 0; i < 2 * N; i++) x[i] = 0.3 + 0.1 * i;
	double h[N], dh[N] = {0}, g[2 * N] = {0};
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	__enzyme_autodiff((void *)run_cells, enzyme_dup, x, g, enzyme_dup, h, dh);
	for (int i = 0; i < 2 * N; i++) {
		double save = x[i], e = 1e-6;
		x[i] = save + e;
		double fp = f_cell(x);
		x[i] = save - e;
		double fm = f_cell(x);
		x[i] = save;
		char what[64];
		snprintf(what, sizeof what, "cell[%d]", i);
		check(what, g[i], (fp - fm) / (2 * e), 1e-6);
	}
	GRAD_CHECK("early", early, N, x);
	double big[2 * N];
	for (int i = 0; i < 2 * N; i++) big[i] = 1.5 + 0.1 * i;
	GRAD_CHECK("early-return", early, N, big);
	GRAD_CHECK("zeroed", zeroed, N, x);
	GRAD_CHECK("ptrs", ptrs, N, x);
	GRAD_CHECK("passed", passed, N, x);
	GRAD_CHECK("looped", looped, N, x);
	if (failures) return 1;
	printf("done\n");
	return 0;
}
