/* The program of TestLibmTieBreak (hoist_test.go), compiled after memoryPrelude. */
#include <malloc.h>
enum { STEPS = 20, N = 12, NI = 100 };
__attribute__((noinline)) double inplace(double *x, int n) {
	for (int k = 0; k < STEPS; k++)
		for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1;
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i];
	return s;
}
static const double W[N * N] = {
#define ROW(a) 0.11 * a, -0.07 * a, 0.05, 0.13, -0.02, 0.08 * a, 0.01, -0.09, 0.04, 0.06, -0.12, 0.03
	ROW(1), ROW(2), ROW(-1), ROW(0.5), ROW(1.5), ROW(-2), ROW(0.3), ROW(-0.7), ROW(1.1), ROW(0.9), ROW(-1.3), ROW(0.2)
};
__attribute__((noinline)) double rnn(double *h, int n) {
	double z[N];
	for (int t = 0; t < 6; t++) {
		for (int i = 0; i < n; i++) {
			double s = 0;
			for (int j = 0; j < n; j++) s += W[i * n + j] * h[j];
			z[i] = s;
		}
		for (int i = 0; i < n; i++) h[i] = tanh(z[i]);
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += h[i] * (i + 1);
	return e;
}
/* The finite differences need functions that leave x alone. */
static double inplace_copy(double *x, int n) { double y[NI]; memcpy(y, x, n * sizeof *x); return inplace(y, n); }
static double rnn_copy(double *x, int n) { double y[N]; memcpy(y, x, n * sizeof *x); return rnn(y, n); }
static size_t heap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }
/* DIRECT(f): the gradient of f itself (a combined gradient) against the
 * central differences of f_copy; prints the heap it keeps (its tape). */
#define DIRECT(f, n) do { \
		double x[n], xc[n], dx[n]; \
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.17 * (i % 12) - 0.05 * (i % 12) * (i % 12), dx[i] = 0; \
		memcpy(xc, x, sizeof x); \
		size_t before = heap(); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n); \
		printf("tape %s %zu\\n", #f, heap() - before); \
		fdcheck(#f, f##_copy, x, n, dx); \
	} while (0)
int main(void) {
	DIRECT(inplace, NI);
	DIRECT(rnn, N);
	return failures != 0;
}
