/* The program of TestRuntimeActivityStop (callactivity_test.go). */
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct { double *work; const double *a; } Job;
__attribute__((noinline)) double step(Job *j) { j->work[0] = j->a[0] * j->a[0]; return j->work[0] * 3; }
double f(double *x, double *work) { Job j = {work, x}; return step(&j); }
int main(void) {
	double x[1] = {1.5}, dx[1] = {0}, work[1];
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, work);
	printf("dx %g\n", dx[0]);
	return 0;
}