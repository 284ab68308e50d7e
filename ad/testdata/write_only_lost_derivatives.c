/* The program of TestWriteOnlyLostDerivatives (callactivity_test.go). */
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double last;   /* a log of the last value, never read by the function */
__attribute__((noinline)) void note(double v) { last = v; }
double f(double *x, double *trace) {
	double y = sin(x[0]) * x[1];
	trace[0] = y;  /* an output the caller does not differentiate */
	note(y);
	return y * y;
}
int main(void) {
	double x[2] = {0.6, 1.7}, dx[2] = {0}, tr[1];
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, tr);
	double y = sin(x[0]) * x[1];
	double want0 = 2 * y * cos(x[0]) * x[1], want1 = 2 * y * sin(x[0]);
	int bad = fabs(dx[0] - want0) > 1e-12 || fabs(dx[1] - want1) > 1e-12;
	printf("%s %g %g (want %g %g) last=%g\n", bad ? "FAIL" : "ok", dx[0], dx[1], want0, want1, last);
	return bad;
}
