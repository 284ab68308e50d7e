// See twoobjects_a.cpp.
#include "check.hpp"

double fb(const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += std::cos(x[i]) / (2 + x[i]);
	return s;
}

int run_b() {
	double x[3] = {0.5, -0.2, 0.9}, dx[3] = {0, 0, 0};
	__enzyme_autodiff<void>((void *)fb, enzyme_dup, x, dx, enzyme_const, 3);
	return check("twoobjects b", x, dx, 3, [](const double *p) { return fb(p, 3); });
}
