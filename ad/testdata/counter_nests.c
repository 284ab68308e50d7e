/* counterNests are loop nests whose inner loops cache values per iteration
 * (they overwrite what they read), so that the reverse sweep needs each
 * inner loop's counter on entry: a rectangular nest, where it is
 * recomputed from the counters around it (counters.go), and nests where it
 * is not and stays cached: a triangular one (j from i), a data-dependent
 * inner trip count, a guard on the data, and early exits from the inner
 * loop; three of them also as callees (split gradients).
 * (counterNests in counters_test.go; compiled after memoryPrelude) */
#include <malloc.h>
/* Rectangular: 3 steps over ROWS rows of n/ROWS columns, each element
 * overwritten once per step. (Not unrolled at run time, as gozyme's pre-AD
 * pipeline does not; the test harness runs LLVM's default pipelines.) */
int ROWS = 4; /* $ROWS where set */
__attribute__((noinline)) double rect(double *x, int n) {
	int r = ROWS, c = n / r;
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < r; i++)
#pragma clang loop unroll(disable)
			for (int j = 0; j < c; j++) x[i * c + j] = sin(x[i * c + j]) * x[i * c + j] + 0.1;
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * x[i];
	return e;
}

/* Rectangular with a sibling loop in each step, run after the pairwise
 * loop (entered from that loop's exit, under its zero-trip guard). */
__attribute__((noinline)) double siblings(double *x, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(x[j] - x[i]) * x[j];
			x[i] += 0.05 * f;
		}
		for (int i = 0; i < n; i++) x[i] = x[i] * cos(x[i]) + 0.02;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * (i + 1);
	return e;
}

/* Triangular: the inner loop starts at i, its header count changes with i. */
__attribute__((noinline)) double tri(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++) x[j] = x[j] * cos(x[i]) + 0.01;
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * x[i];
	return e;
}

/* A data-dependent inner trip count, loaded in the outer loop. */
static const int LEN[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__attribute__((noinline)) double datadep(double *x, int n) {
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < n; i++) {
			int m = LEN[i % 8] < n ? LEN[i % 8] : n;
			for (int j = 0; j < m; j++) x[j] = sin(x[j] + 0.1 * x[i]);
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * (i + 1);
	return e;
}

/* A guard on the data: the inner loop runs in some iterations of the
 * outer one only. */
__attribute__((noinline)) double guarded(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++)
			if (x[i] > 0.4)
				for (int j = 0; j < n; j++) x[j] = x[j] * cos(x[i]) * 0.9 + 0.05;
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * (i + 1);
	return e;
}

/* Early exits from the inner loop: on the data, and on an index the outer
 * loop computes. */
__attribute__((noinline)) double early(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			for (int j = 0; j < n; j++) {
				x[j] = x[j] * cos(x[i]) + 0.3;
				if (x[j] > 0.7) break;
			}
			for (int j = 0; j < n; j++) {
				x[j] = sin(x[j]) * x[j] + 0.05;
				if (j == (i * 3) % n) break;
			}
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * (i + 1);
	return e;
}

/* As callees: split into an augmented forward and a reverse that share
 * a tape. */
#define CALLEE(f) __attribute__((noinline)) double f##_callee(double *x, int n) { return 2 * f(x, n); }
CALLEE(siblings)
CALLEE(guarded)
CALLEE(early)

/* The finite differences need functions that leave x alone. */
#define COPY64(f) static double f##_copy(double *x, int n) { double y[64]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY64(rect)
COPY64(siblings)
COPY64(tri)
COPY64(datadep)
COPY64(guarded)
COPY64(early)
COPY64(siblings_callee)
COPY64(guarded_callee)
COPY64(early_callee)
static size_t heap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }
/* NEST(f, n): the gradient of f against central differences; prints the
 * heap the gradient keeps (its tape) as "tape f BYTES". */
#define NEST(f, n) do { \
		double x[n], xc[n], dx[n]; \
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (i % 12) - 0.05 * (i % 12) * (i % 12), dx[i] = 0; \
		memcpy(xc, x, sizeof x); \
		size_t before = heap(); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n); \
		printf("tape %s %zu\\n", #f, heap() - before); \
		fdcheck(#f, f##_copy, x, n, dx); \
	} while (0)
int main(void) {
	if (getenv("ROWS")) ROWS = atoi(getenv("ROWS"));
	NEST(rect, 64);
	NEST(siblings, 12);
	NEST(tri, 12);
	NEST(datadep, 12);
	NEST(guarded, 12);
	NEST(early, 12);
	NEST(siblings_callee, 12);
	NEST(guarded_callee, 12);
	NEST(early_callee, 12);
	return failures != 0;
}
