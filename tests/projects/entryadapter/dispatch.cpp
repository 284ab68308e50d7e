// Two functions differentiated through one entry symbol (the same
// signature): the link's adapter tells them apart by the first argument.
// f is called with a constant length and with a variable one.
#include "check.hpp"

double f(const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i] * x[i] * std::cos(x[i]);
	return s;
}

double g(const double *x, int n) {
	double s = 1;
	for (int i = 0; i < n; i++)
		s *= 1 + 0.5 * std::sin(x[i]);
	return s;
}

int len = 4;

int main() {
	int bad = 0;
	double x[4] = {0.3, -1.2, 2.0, 0.7};
	double df[4] = {0, 0, 0, 0}, dg[4] = {0, 0, 0, 0}, dh[4] = {0, 0, 0, 0};
	__enzyme_autodiff<void>((void *)f, enzyme_dup, x, df, enzyme_const, 3);
	__enzyme_autodiff<void>((void *)g, enzyme_dup, x, dg, enzyme_const, 4);
	__enzyme_autodiff<void>((void *)f, enzyme_dup, x, dh, enzyme_const, len);
	bad |= check("dispatch f(3)", x, df, 4, [](const double *p) { return f(p, 3); });
	bad |= check("dispatch g", x, dg, 4, [](const double *p) { return g(p, 4); });
	bad |= check("dispatch f(len)", x, dh, 4, [](const double *p) { return f(p, len); });
	return bad;
}
