/* The program of TestAllocatorThroughPointer (dispatch_test.go), compiled after checkPrelude. */
#include <string.h>
double __enzyme_autodiff(void *, ...);
typedef void *(*alloc_fn)(unsigned long);
struct { int count; alloc_fn alloc; } pool = {0, malloc};
static alloc_fn salloc = malloc;
static void *zalloc(unsigned long n) { return calloc(1, n); }
alloc_fn pick_alloc(int i) { return i ? zalloc : malloc; }
__attribute__((noinline)) void *pool_alloc(unsigned long n) { return pool.alloc(n); }
__attribute__((noinline)) void square_in_place(double *x) { *x *= *x; }
double through_struct(double x) {
	double *mem = pool_alloc(sizeof(double));
	*mem = x;
	square_in_place(mem);
	double r = mem[0] * x;
	free(mem);
	return r; /* x^3 */
}
double through_static(double x) {
	double *mem = salloc(2 * sizeof(double));
	mem[0] = sin(x);
	mem[1] = mem[0] * mem[0];
	double r = mem[1];
	free(mem);
	return r; /* sin^2 x */
}
__attribute__((noinline)) double fill(alloc_fn a, double x, int n) {
	double *v = a(n * sizeof(double)), s = 0;
	for (int i = 0; i < n; i++) v[i] = x * (i + 1);
	for (int i = 0; i < n; i++) s += v[i] * v[i];
	free(v);
	return s; /* x^2 n(n+1)(2n+1)/6 */
}
double through_param(double x) { return fill(pick_alloc(0), x, 4) + fill(pick_alloc(1), x, 3); }
int main(void) {
	double x = 0.7;
	CHECK("allocator in a global struct", __enzyme_autodiff((void *)through_struct, x), 3 * x * x);
	CHECK("allocator in a static pointer", __enzyme_autodiff((void *)through_static, x), 2 * sin(x) * cos(x));
	CHECK("allocator passed as a callback", __enzyme_autodiff((void *)through_param, x), 2 * x * (30 + 14));
	return failures != 0;
}
