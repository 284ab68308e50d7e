/* The program of TestIndirectCallUnknown (dispatch_test.go): the callback,
   of a type no function of the program has, is called given memory that
   carries derivatives. */
#include <dlfcn.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef void (*scale_fn)(double *, int);
__attribute__((noinline)) void run(scale_fn f, double *a, int n) { f(a, n); }
double g(double *a, scale_fn f) { run(f, a, 3); return a[0] + a[1]; }
int main(void) {
	double a[3] = {1, 2, 3}, da[3] = {0};
	scale_fn outside = (scale_fn)dlsym(RTLD_DEFAULT, "srand48"); /* never called: the stop comes first */
	fflush(stdout);
	__enzyme_autodiff((void *)g, enzyme_dup, a, da, enzyme_const, outside);
	printf("gradient %g\n", da[0]);
	return 0;
}
