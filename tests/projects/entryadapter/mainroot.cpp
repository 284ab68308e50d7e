// One root, called from main.
#include "check.hpp"

double energy(const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += std::sin(x[i]) * x[(i + 1) % n] + x[i] * x[i] * x[i];
	return s;
}

int main() {
	double x[4] = {0.3, -1.2, 2.0, 0.7}, dx[4] = {0, 0, 0, 0};
	__enzyme_autodiff<void>((void *)energy, enzyme_dup, x, dx, enzyme_const, 4);
	return check("mainroot", x, dx, 4, [](const double *p) { return energy(p, 4); });
}
