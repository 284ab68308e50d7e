/* The program of TestStoreForwardHazards (storeforward_test.go), compiled
 * after checkPrelude: loads of a loop-filled array where rebuilding the
 * stored value in the reverse from its inputs would read them changed, or
 * would read an element that was not the loop's; each must be recorded:
 *   between: an input of the stored value written by a call between the
 *     loops; after: an input overwritten in the reading loop, after the
 *     read; outer: inputs changed after both loops in each iteration of a
 *     loop around them; aliasing: a write through a pointer that may point
 *     to an input; partial: one element of the array written again before
 *     the reading loop; shorter: a reading loop shorter than the storing
 *     one, and loops that run no iteration; merged, merged_pure,
 *     merged_nested and merged_calls: two storing loops on the arms of an
 *     if, which the optimizer makes exit into one block before the reading
 *     loop (passing that exit does not tell which loop ran), at the top,
 *     inside a loop, and in a split helper.
 * Each gradient against central differences. */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
enum { M = 6 };
int n = M, rounds = 3;
__attribute__((noinline)) static void bump(double *m, double v) { m[0] += v * m[1]; }
__attribute__((noinline)) static double sq(double v) { return v * v; }
/* an input of the stored value written by a call between the loops */
double between(double *x) {
	double a[M], s = 0, m[2] = {x[0], 0.5};
	for (int i = 0; i < n; i++) a[i] = x[i] * m[0];
	bump(m, x[1]);
	for (int j = 0; j < n; j++) s += sin(a[j]) * m[0];
	return s;
}
/* an input of the stored value overwritten in the reading loop, after the read */
double after(double *x) {
	double a[M], s = 0, y[M];
	for (int i = 0; i < n; i++) y[i] = x[i];
	for (int i = 0; i < n; i++) a[i] = y[i] * y[i];
	for (int j = 0; j < n; j++) { s += sin(a[j]) * y[j]; y[j] = s; }
	return s;
}
/* an outer loop changing the stored value's inputs after both loops */
double outer(double *x) {
	double a[M], y[M], s = 0;
	for (int i = 0; i < n; i++) y[i] = x[i];
	for (int k = 0; k < rounds; k++) {
		for (int i = 0; i < n; i++) a[i] = y[i] * 0.5 + y[0];
		for (int j = 0; j < n; j++) s += sq(a[j]) * a[j];
		for (int i = 0; i < n; i++) y[i] = sin(y[i] + s * 0.01);
	}
	return s;
}
/* a write through a pointer that may alias the input, between the loops */
__attribute__((noinline)) double aliased(double *x, double *w) {
	double a[M], s = 0;
	for (int i = 0; i < n; i++) a[i] = x[i] * x[i];
	w[0] = w[0] * 3;
	for (int j = 0; j < n; j++) s += a[j] * x[j];
	return s;
}
double aliasing(double *x) { double y[M]; for (int i = 0; i < M; i++) y[i] = x[i]; return aliased(y, y + 2); }
/* the stored array itself rewritten partly before the reading loop */
double partial(double *x) {
	double a[M], s = 0;
	for (int i = 0; i < n; i++) a[i] = cos(x[i]);
	a[n / 2] = x[0] * 7;
	for (int j = 0; j < n; j++) s += a[j] * a[j] * x[j];
	return s;
}
/* the reading loop shorter than the storing one, and a zero-trip pair */
int half = M / 2, none = 0;
double shorter(double *x) {
	double a[M], s = x[0];
	for (int i = 0; i < n; i++) a[i] = exp(0.3 * x[i]);
	for (int j = 0; j < half; j++) s += a[j] * x[j + 1];
	for (int i = 0; i < none; i++) a[i] = x[i] * 100;
	for (int j = 0; j < none; j++) s += a[j] * 100;
	return s * s;
}
/* two storing loops, one on each arm of an if, exiting into one block */
#define NV _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
int arm = 0;
__attribute__((noinline)) double merged_fill(double *y) {
	int m = n;
	double *g = malloc(m * sizeof(double)), s = 0;
	if (arm) {
		NV for (int i = 0; i < m; i++) {
			g[i] = exp(0.2 * y[i]);
			y[i] = y[i] * 0.9;
		}
	} else {
		NV for (int i = 0; i < m; i++) {
			g[i] = sin(y[i] + 1);
			y[i] = y[i] * 0.8;
		}
	}
	NV for (int j = 0; j < m; j++) s += g[j] * y[j];
	free(g);
	return s;
}
double merged(double *x) {
	double y[M];
	for (int i = 0; i < M; i++) y[i] = x[i];
	return merged_fill(y);
}
/* the stored values functions of memory nothing writes later */
__attribute__((noinline)) double merged_pure(double *x) {
	int m = n;
	double *g = malloc(m * sizeof(double)), s = 0;
	if (arm) {
		NV for (int i = 0; i < m; i++) g[i] = exp(0.2 * x[i]);
	} else {
		NV for (int i = 0; i < m; i++) g[i] = sin(x[i] + 1);
	}
	NV for (int j = 0; j < m; j++) s += g[j] * x[j];
	free(g);
	return s;
}
/* inside a loop, the arm changing from one iteration to the next */
__attribute__((noinline)) double merged_nested(double *x) {
	int m = n;
	double *g = malloc(m * sizeof(double)), y[M], s = 0;
	for (int i = 0; i < M; i++) y[i] = x[i];
	for (int t = 0; t < rounds; t++) {
		if (t % 2) {
			NV for (int i = 0; i < m; i++) {
				g[i] = exp(0.2 * y[i] * t);
				y[i] = y[i] * 0.9;
			}
		} else {
			NV for (int i = 0; i < m; i++) {
				g[i] = sin(y[i] * t + 1);
				y[i] = y[i] * 0.8;
			}
		}
		NV for (int j = 0; j < m; j++) s += g[j] * y[j];
	}
	free(g);
	return s;
}
/* split pairs of the helpers, called with each arm */
double merged_calls(double *x) {
	double y[M], s = 0;
	for (int i = 0; i < M; i++) y[i] = x[i];
	for (int k = 0; k < rounds; k++) {
		arm = k == 1;
		s += (merged_fill(y) + merged_pure(x) + merged_nested(y)) * (k + 1);
	}
	arm = 0;
	return s;
}
typedef double (*obj)(double *);
__attribute__((always_inline)) static inline void gc(const char *what, obj f) {
	double x[M], dx[M] = {0};
	for (int i = 0; i < M; i++) x[i] = 0.2 + 0.15 * i;
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx);
	for (int i = 0; i < M; i++) {
		double s = x[i], h = 1e-6;
		x[i] = s + h; double fp = f(x);
		x[i] = s - h; double fm = f(x);
		x[i] = s;
		char w[64]; snprintf(w, sizeof w, "%s dx[%d]", what, i);
		check(w, dx[i], (fp - fm) / (2 * h), 1e-6);
	}
}
#define GC(f) gc(#f, f)
int main(void) { GC(between); GC(after); GC(outer); GC(aliasing); GC(partial); GC(shorter); GC(merged); GC(merged_pure); GC(merged_nested); GC(merged_calls); return failures != 0; }
