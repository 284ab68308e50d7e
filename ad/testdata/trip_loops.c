/* tripLoops are loop shapes whose caches are reserved from trip counts
 * (counting up and down, <, <=, !=, steps of 2, unsigned, nests with
 * invariant bounds) and shapes that fall back to growth (a triangular nest,
 * a data-dependent exit, an early break), all overwriting memory so that
 * every loop caches per iteration.
 * (tripLoops in tripcount_test.go) */
__attribute__((noinline)) double shapes(double *x, int n) {
	for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1;
	for (int i = 1; i <= n - 1; i += 2) x[i] = x[i] * cos(x[i - 1]);
	for (int i = n - 1; i >= 0; i--) x[i] = x[i] * x[i] * 0.5 + x[(i + 1) % n] * 0.25;
	for (int i = 2; i != n; i++) x[i] = exp(-x[i] * x[i - 2]);
	for (unsigned i = 1; i < (unsigned)n; i++) x[i] = sin(x[i] + x[i - 1]);
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * (i + 1);
	return s;
}

/* A nest with invariant bounds (reserved once) and a triangular one (grows). */
__attribute__((noinline)) double nests(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(x[j] - x[i]) * x[j];
			x[i] += 0.1 * f;
		}
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) x[j] = x[j] * cos(x[i]) + 0.01;
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}

/* Exits a count cannot describe: data-dependent, and an early break. */
__attribute__((noinline)) double exits(double *x, int n) {
	double s = 0;
	int i = 0;
	while (s < 2.0 && i < n) { x[i] = sin(x[i]) + 0.5; s += x[i] * x[i]; i++; }
	for (int k = 0; k < n; k++) {
		x[k] = x[k] * x[k] * 0.9;
		if (x[k] > 10) break;
	}
	for (int k = 0; k < n; k++) s += x[k];
	return s;
}

/* The finite differences need functions that leave x alone. */
#define COPYING(f) static double f##_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPYING(shapes)
COPYING(nests)
COPYING(exits)
