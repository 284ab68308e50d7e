/* pathKernels: steps around loops the vectorizer splits into a vector body
 * and a scalar remainder (pathdecide.go). In vsteps and vlast the trip
 * count m is the same in every step: the joins after the vector loops are
 * decided by min.iters.check, the alias check and cmp.n, computed before
 * the step loop, and by the remainder's start (a phi the path fixes); they
 * keep no record per step. vlast's loop has a live-out value, which the
 * join merges from the vector and the scalar loop. vsum's reduction is not
 * vectorized (no fast-math) but unrolled with a remainder, whose joins the
 * dominating branches decide (decide.go). In vdata the trip count depends
 * on data each step changes: its joins keep their record.
 * (pathKernels in pathdecide_test.go) */
/* STEPS(f, body): f runs body in steps over x[0..n), with m = n/2. */
#define STEPS(f, ...) __attribute__((noinline)) double f(double *x, int n) { \
	int m = n / 2, steps = n > 3 ? 3 : n; \
	double e = 0; \
	for (int s = 0; s < steps; s++) { __VA_ARGS__ } \
	return e; \
}
STEPS(vsteps,
	for (int i = 0; i < m; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
	for (int i = 0; i < m; i++) x[i] = sin(x[i]) + 0.25 * x[m + i];
	e += x[s] * x[n - 1];)
STEPS(vsum,
	double t = 0;
	for (int i = 0; i < m; i++) t += x[m + i] * x[i];
	x[s] = cos(t) * x[s];
	e += t;)
STEPS(vlast,
	double y = 0;
	for (int i = 0; i < m; i++) {
		y = x[i] * x[m + i];
		x[m + i] = y + 0.1;
	}
	e += y * x[s];)
__attribute__((noinline)) double vnest(double *x, int n) {
	int rounds = n > 3 ? 3 : n, steps = 2 + (n & 1);
	double e = 0;
	for (int r = 1; r <= rounds; r++) {
		int m = n / 2 - r + 1;
		for (int s = 0; s < steps; s++) {
			for (int i = 0; i < m; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
			e += x[s] * x[n - 1];
		}
	}
	return e;
}
STEPS(vdata,
	int k = x[s] > 0.45 ? m : m / 2;
	for (int i = 0; i < k; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
	x[(s + 1) % n] = x[(s + 1) % n] + 0.2 * s;
	e += x[s] * x[n - 1];)
