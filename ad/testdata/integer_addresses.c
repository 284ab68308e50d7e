/* Addresses turned into integers (TestIntegerAddresses in
 * privcontents_test.go). sized allocates a buffer and uses its size as
 * end - begin (an integer from its address, for arithmetic and comparisons
 * only): the buffer stays uncaptured, so reads through a pointer loaded from
 * memory (the input's data) are reloaded, not cached. escaped stores the
 * buffer's address as an integer and reads it back as a pointer: the buffer is captured and the reads through that pointer, which
 * the loop's writes change, are cached. Both against central differences. */
#include <stdint.h>
#include <stdlib.h>
struct In {
	const double *x;
	double *end;
};
struct Box {
	const double *volatile p;
};
static double sized(const struct In *in, int n) {
	double *y = malloc(n * sizeof(double));
	double *yend = y + n;
	long m = yend - y; /* the size, from the addresses */
	for (long i = 0; i < m; i++) y[i] = 1.0;
	for (int k = 0; k < 3; k++)
		for (long i = 1; i < m; i++) y[i] += 0.3 * in->x[i] * y[i - 1];
	double r = y[m - 1];
	free(y);
	return r;
}
static double escaped(const struct In *in, int n) {
	double *y = malloc(n * sizeof(double));
	for (int i = 0; i < n; i++) y[i] = in->x[i];
	struct Box box; /* volatile: the optimizer keeps the round trip */
	*(volatile uintptr_t *)&box.p = (uintptr_t)y;
	const double *z = box.p; /* y again, a pointer read from memory */
	for (int k = 0; k < 3; k++)
		for (int i = 1; i < n; i++) y[i] += 0.3 * z[i] * y[i - 1];
	double r = y[n - 1];
	free(y);
	return r;
}
static double sizedAt(double *x, int n) {
	struct In in = {x, x + n};
	return sized(&in, n);
}
static double escapedAt(double *x, int n) {
	struct In in = {x, x + n};
	return escaped(&in, n);
}
int main(void) {
	enum { N = 6 };
	double x[N], dx[N] = {0}, ex[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.15 * i;
	struct In in = {x, x + N}, din = {dx, dx + N};
	__enzyme_autodiff((void *)sized, enzyme_dup, &in, &din, enzyme_const, N);
	fdcheck("sized", sizedAt, x, N, dx);
	struct In ein = {ex, ex + N};
	__enzyme_autodiff((void *)escaped, enzyme_dup, &in, &ein, enzyme_const, N);
	fdcheck("escaped", escapedAt, x, N, ex);
	return failures != 0;
}
