/* The program of TestIndirectCallUnknown (dispatch_test.go). */
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef void (*scale_fn)(double *, int);
__attribute__((noinline)) void run(scale_fn f, double *a, int n) { f(a, n); }
double g(double *a, scale_fn f) { run(f, a, 3); return a[0] + a[1]; }
int main(void) {
	double a[3] = {1, 2, 3}, da[3] = {0};
	__enzyme_autodiff((void *)g, enzyme_dup, a, da, enzyme_const, (scale_fn)0);
	printf("%g\n", da[0]);
	return 0;
}