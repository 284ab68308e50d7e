/* C's variadic entry point, every call passing the same argument types:
   one active double, one duplicated array and its length. */
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

static double model(double a, const double *w, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += sin(a * w[i]) + w[i] * w[i] * a;
	return s;
}

double grad_into(double a, const double *w, double *dw, int n) {
	return __enzyme_autodiff((void *)model, enzyme_out, a, enzyme_dup, w, dw, enzyme_const, n);
}

int main(void) {
	double w[3] = {0.4, -0.9, 1.3}, dw[3] = {0, 0, 0}, a = 0.7;
	double da = grad_into(a, w, dw, 3);
	double h = 1e-6, fd = (model(a + h, w, 3) - model(a - h, w, 3)) / (2 * h);
	int bad = fabs(fd - da) > 1e-6 * (1 + fabs(fd));
	for (int i = 0; i < 3; i++) {
		double keep = w[i];
		w[i] = keep + h;
		double up = model(a, w, 3);
		w[i] = keep - h;
		double down = model(a, w, 3);
		w[i] = keep;
		double d = (up - down) / (2 * h);
		bad |= fabs(d - dw[i]) > 1e-6 * (1 + fabs(d));
	}
	printf(bad ? "FAIL variadic\n" : "ok variadic\n");
	return bad;
}
