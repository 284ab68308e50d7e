/* The program of TestRecordForward (storeforward_test.go's record form),
 * compiled after checkPrelude: loads of what an earlier loop stored,
 * rebuilt in the reverse sweep from that loop's records instead of being
 * recorded again:
 *   gates: an LSTM cell as a split helper called in a loop: one loop
 *     stores four gates at i, m + i, 2m + i and 3m + i of one buffer
 *     (reading the state h it overwrites later, so the gates are no
 *     function of memory the reverse could read again), the next two read
 *     them back;
 *   gates_top: the same cell as the gradient's own function;
 *   reused: the gradient's own buffer, filled and read back twice (so
 *     not read again from memory in the reverse sweep);
 *   shifted: a second store in the first loop overwrites the element the
 *     previous iteration stored (g[i - 1], cyclically): not forwarded;
 *   nested: the storing loop inside another loop: forwarded from the
 *     records of the storing loop's execution in the outer iteration;
 *   varying: the same with a trip count changing from one outer
 *     iteration to the next, 0 in some (records of earlier executions
 *     of different lengths before them);
 *   deep: the storing loop two loops deep, the outer ones' counts
 *     varying too.
 * shifted and nested are split helpers too (run_shifted, run_nested).
 * Each gradient against central differences; the test runs it under
 * valgrind (no invalid access, no leak). */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
enum { N = 5, STEPS = 3 };
int n = N, steps = STEPS;

__attribute__((noinline)) void gates(int m, const double *w, double *h, double *c) {
	double *g = malloc(4 * m * sizeof(double));
	for (int i = 0; i < m; i++) {
		g[i] = 1 / (1 + exp(-(h[i] * w[i] + w[4 * m + i])));
		g[m + i] = 1 / (1 + exp(-(h[i] * w[m + i])));
		g[2 * m + i] = 1 / (1 + exp(-(c[i] * w[2 * m + i])));
		g[3 * m + i] = tanh(h[i] * w[3 * m + i]);
	}
	/* Scalar, as with a client's -O3 -march=native (a vectorized loop's
	 * vector loads would not be forwarded). */
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
	for (int i = 0; i < m; i++) c[i] = c[i] * g[i] + g[m + i] * g[3 * m + i];
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
	for (int i = 0; i < m; i++) h[i] = g[2 * m + i] * tanh(c[i]);
	free(g);
}
double run_gates(const double *w, double *h) {
	double c[N], s = 0;
	for (int i = 0; i < N; i++) c[i] = 0.2 * i - 0.3;
	for (int t = 0; t < steps; t++) {
		gates(n, w, h, c);
		s += h[t % n] * c[(t + 1) % n];
	}
	return s;
}
double f_gates(double *x) {
	double h[N];
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	return run_gates(x, h);
}

double gates_top(double *w) {
	double h[N], c[N], s = 0;
	for (int i = 0; i < N; i++) {
		h[i] = 0.1 * i;
		c[i] = 0.3 - 0.1 * i;
	}
	gates(n, w, h, c);
	for (int i = 0; i < N; i++) s += h[i] * c[i];
	return s;
}

double reused(double *x) {
	int m = n;
	double *g = malloc(m * sizeof(double)), s = 0;
	for (int i = 0; i < m; i++) {
		g[i] = exp(-x[i] * x[i]);
		x[i] = x[i] + 0.5;
	}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
	for (int i = 0; i < m; i++) s += g[i] * x[(i + 1) % m];
	for (int i = 0; i < m; i++) {
		g[i] = sin(x[i] * s);
		x[i] = x[i] * 0.5;
	}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
	for (int i = 0; i < m; i++) s += g[i] * g[i] * x[i];
	free(g);
	return s;
}

__attribute__((noinline)) double shifted(double *x) {
	int m = n;
	double *g = calloc(m, sizeof(double)), s = 0;
	for (int i = 0; i < m; i++) {
		g[i] = x[i] * x[i] + 0.5;
		g[(i + m - 1) % m] = g[(i + m - 1) % m] * x[i];
		x[i] = x[i] * 0.5;
	}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
	for (int i = 0; i < m; i++) s += g[i] * g[i] + x[i];
	free(g);
	return s;
}

__attribute__((noinline)) double nested(double *x) {
	int m = n; /* not read again after cos, which may write memory */
	double *g = malloc(m * sizeof(double)), s = 0;
	for (int t = 0; t < steps; t++) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
		for (int i = 0; i < m; i++) {
			g[i] = cos(x[i] + t);
			x[i] = x[i] * 0.9;
		}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
		for (int i = 0; i < m; i++) s += g[i] * x[i];
	}
	free(g);
	return s;
}

__attribute__((noinline)) double varying(double *x) {
	double *g = malloc(n * sizeof(double)), s = 0;
	for (int t = 0; t < 2 * steps; t++) {
		int m = (3 * t + 2) % (n + 1); /* 2, 5, 3, 0, 4, 1 for n = 5 */
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
		for (int i = 0; i < m; i++) {
			g[i] = exp(0.3 * x[i] - 0.1 * t);
			x[i] = x[i] * 0.8 + 0.1;
		}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
		for (int i = 0; i < m; i++) s += g[i] * x[i] * (i + 1);
	}
	free(g);
	return s;
}

__attribute__((noinline)) double deep(double *x) {
	int k = n;
	double *g = malloc(k * sizeof(double)), s = 0;
	for (int a = 0; a < steps; a++) {
		for (int b = 0; b <= a; b++) {
			int m = (a + 2 * b + k) % (k + 1);
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
			for (int i = 0; i < m; i++) {
				g[i] = exp(x[i] * (b + 1) * 0.2) * x[(i + a) % k];
				x[i] = x[i] * 0.9 - 0.05 * b;
			}
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
			for (int i = 0; i < m; i++) s += g[i] * g[i] * x[i];
		}
	}
	free(g);
	return s;
}

double run_shifted(double *x) {
	double s = 0;
	for (int t = 0; t < steps; t++) s += shifted(x) * (t + 1);
	return s;
}
double run_nested(double *x) {
	double s = 0;
	for (int t = 0; t < steps; t++) s += nested(x) * (t + 1);
	return s;
}

/* FD_CHECK checks gradient g of f at x (its first nx values) against
 * central differences; f may change x's copy it is given. */
#define FD_CHECK(name, f, nx, x, g) \
	do { \
		for (int i = 0; i < nx; i++) { \
			double xp[5 * N], xm[5 * N], e = 1e-6; \
			for (int k = 0; k < 5 * N; k++) xp[k] = xm[k] = x[k]; \
			xp[i] += e; \
			xm[i] -= e; \
			char what[64]; \
			snprintf(what, sizeof what, "%s[%d]", name, i); \
			check(what, g[i], (f(xp) - f(xm)) / (2 * e), 1e-6); \
		} \
	} while (0)

/* ON_COPY checks the gradient of f, which changes x, at a copy of x. */
#define ON_COPY(name, f) \
	do { \
		for (int i = 0; i < 5 * N; i++) { \
			g[i] = 0; \
			xc[i] = x[i]; \
		} \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, g); \
		FD_CHECK(name, f, N, x, g); \
	} while (0)

int main(void) {
	double x[5 * N], g[5 * N] = {0}, h[N], dh[N] = {0}, xc[5 * N];
	for (int i = 0; i < 5 * N; i++) x[i] = 0.3 + 0.07 * i - 0.02 * (i % 3);
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	__enzyme_autodiff((void *)run_gates, enzyme_dup, x, g, enzyme_dup, h, dh);
	FD_CHECK("gates", f_gates, 5 * N, x, g);
	for (int i = 0; i < 5 * N; i++) g[i] = 0;
	__enzyme_autodiff((void *)gates_top, enzyme_dup, x, g);
	FD_CHECK("gates_top", gates_top, 5 * N, x, g);
	ON_COPY("shifted", shifted);
	ON_COPY("nested", nested);
	ON_COPY("reused", reused);
	ON_COPY("run_shifted", run_shifted);
	ON_COPY("run_nested", run_nested);
	ON_COPY("varying", varying);
	ON_COPY("deep", deep);
	if (failures) return 1;
	printf("done\n");
	return 0;
}
