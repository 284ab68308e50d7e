/* C's variadic entry point called with different argument types: one
   definition of __enzyme_autodiff cannot read both, so no adapter (the
   link owns the callers). */
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

static double sq(double a) { return a * a * sin(a); }

static double norm(const double *w, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += w[i] * w[i] * w[i];
	return s;
}

int main(void) {
	double a = 0.7, w[2] = {0.4, -0.9}, dw[2] = {0, 0}, h = 1e-6;
	double da = __enzyme_autodiff((void *)sq, a);
	__enzyme_autodiff((void *)norm, enzyme_dup, w, dw, enzyme_const, 2);
	int bad = fabs(da - (sq(a + h) - sq(a - h)) / (2 * h)) > 1e-6;
	for (int i = 0; i < 2; i++)
		bad |= fabs(dw[i] - 3 * w[i] * w[i]) > 1e-9;
	printf(bad ? "FAIL variadicmixed\n" : "ok variadicmixed\n");
	return bad;
}
