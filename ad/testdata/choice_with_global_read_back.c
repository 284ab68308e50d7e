/* The program of TestChoiceWithGlobalReadBack (globalchoice_test.go). */
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
double *shared_buf;
int use_shared;
__attribute__((noinline)) double f(double x) {
	double *local = malloc(sizeof(double));
	double *p = use_shared ? shared_buf : local;
	*p = x * x;
	double r = local[0];
	free(local);
	return r;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 4.0; }
