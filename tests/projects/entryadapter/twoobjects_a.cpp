// With twoobjects_b.cpp and twoobjects_main.cpp: two objects that do not
// refer to each other call the same entry symbol, so their links are
// separate groups; neither may define the symbol for both (no adapter).
#include "check.hpp"

double fa(const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += std::exp(x[i]) * x[i];
	return s;
}

int run_a() {
	double x[3] = {0.1, 0.2, -0.3}, dx[3] = {0, 0, 0};
	__enzyme_autodiff<void>((void *)fa, enzyme_dup, x, dx, enzyme_const, 3);
	return check("twoobjects a", x, dx, 3, [](const double *p) { return fa(p, 3); });
}
