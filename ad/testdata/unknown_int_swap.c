/* 4 bytes of unknown type moved between memories with shadows
 * (TestUnknownIntSwap in retype_test.go): swap_int's ints are reached
 * through a getter called from several places, so the type analysis
 * cannot tell them from floats (PartialPivLU's std::swap<int> on the
 * indices of a permutation kept in an object with a shadow). The reverse
 * sweep checks the destination's adjoint is zero (unknownbits.go):
 * permuted swaps integers and runs against central differences; with the
 * argument "floats", swapped moves floats that carry derivatives through
 * the same swap_int, and the check stops the program. */
#include <string.h>
struct Perm {
	int *idx;
	double *w;
	float *v;
	long n;
};
__attribute__((noinline)) int *at(struct Perm *p, long i) { return &p->idx[i]; }
__attribute__((noinline)) int *bits(struct Perm *p, long i) { return (int *)&p->v[i]; }
__attribute__((noinline)) void swap_int(int *a, int *b) {
	int t = *a;
	*a = *b;
	*b = t;
}
__attribute__((noinline)) void init(struct Perm *p) {
	for (long i = 0; i < p->n; i++) {
		*at(p, i) = (int)i;
		*bits(p, i) = 0;
	}
}
__attribute__((noinline)) void transpose(struct Perm *p, long i, long j) { swap_int(at(p, i), at(p, j)); }
__attribute__((noinline)) void swapv(struct Perm *p, long i, long j) { swap_int(bits(p, i), bits(p, j)); }
static double permuted(double *x, int n) {
	struct Perm p = {malloc(n * sizeof(int)), malloc(n * sizeof(double)), malloc(n * sizeof(float)), n};
	init(&p);
	for (int i = 0; i < n; i++) p.w[i] = x[i] * x[i];
	transpose(&p, 0, n - 1);
	transpose(&p, 1, 2);
	double s = 0;
	for (int i = 0; i < n; i++) s += p.w[p.idx[i]] * (i + 1);
	free(p.idx), free(p.w), free(p.v);
	return s;
}
static double swapped(double *x, int n) {
	struct Perm p = {malloc(n * sizeof(int)), malloc(n * sizeof(double)), malloc(n * sizeof(float)), n};
	init(&p);
	for (int i = 0; i < n; i++) p.v[i] = (float)x[i];
	swapv(&p, 0, 1);
	double s = 3.0 * p.v[0] * p.v[0] + p.v[1];
	free(p.idx), free(p.w), free(p.v);
	return s;
}
int main(int argc, char **argv) {
	enum { N = 5 };
	double x[N] = {0.5, 1.5, -0.7, 2.0, 0.3};
	if (argc > 1 && strcmp(argv[1], "floats") == 0) {
		double dx[N] = {0};
		__enzyme_autodiff((void *)swapped, enzyme_dup, x, dx, enzyme_const, N);
		printf("no stop: %g %g\n", dx[0], dx[1]);
		return 0;
	}
	GRADCHECK(permuted);
	return failures != 0;
}
