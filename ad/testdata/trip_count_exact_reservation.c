/* The program of TestTripCountExactReservation (tripcount_test.go). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <math.h>
static size_t smallest, largest, regrown;
void *realloc(void *p, size_t n) {
	static void *(*real)(void *, size_t);
	if (!real) real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	if (n < smallest) smallest = n;
	if (n > largest) largest = n;
	if (p) regrown++;
	return real(p, n);
}
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double steps(double *x, int n) {
	for (int k = 0; k < n; k++) x[0] = sin(x[0]) * x[0] + 0.1;
	return x[0];
}
__attribute__((noinline)) double nest(double *x, int n) {
	for (int s = 0; s < 20; s++)
		for (int k = 0; k < n; k++) x[k] = sin(x[k]) * x[k] + 0.1;
	double e = 0;
	for (int k = 0; k < n; k++) e += x[k];
	return e;
}
static double at(double (*f)(double *, int), int n, int i, double h) {
	double x[6] = {0.7, 0.5, 0.3, 0.9, 0.2, 0.6};
	x[i] += h;
	return f(x, n);
}
/* CHECK(f, n, lo, hi): the gradient of f against central differences;
 * every buffer it allocates takes lo to hi doubles, allocated once. */
#define CHECK(f, n, lo, hi) do { \
		double x[6] = {0.7, 0.5, 0.3, 0.9, 0.2, 0.6}, dx[6] = {0}, h = 1e-6; \
		smallest = (size_t)-1, largest = 0, regrown = 0; \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); \
		size_t small = smallest, large = largest; \
		printf("%s: buffers of %zu to %zu bytes, %zu grown\n", #f, small, large, regrown); \
		if (small < (lo) * sizeof(double) || large > (hi) * sizeof(double) || regrown) failures++; \
		for (int i = 0; i < 6; i++) { \
			double fd = (at(f, n, i, h) - at(f, n, i, -h)) / (2 * h); \
			if (fabs(dx[i] - fd) > 1e-6) { printf("%s x[%d]: gradient %g, central difference %g\n", #f, i, dx[i], fd); failures++; } \
		} \
	} while (0)
int main(void) {
	int failures = 0;
	CHECK(steps, 3, 3, 4);
	CHECK(nest, 6, 1, 140); /* (-O2 and -O3 unroll: fewer slots) */
	return failures != 0;
}
