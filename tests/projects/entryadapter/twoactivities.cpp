// The same function with two activities through one entry symbol: the
// markers differ between the calls, so no adapter serves them (the link
// owns the callers instead).
#include "check.hpp"

double h(double x, double y) { return std::sin(x) * y * y + x / (1 + y * y); }

int main() {
	double p[2] = {0.8, -0.4}, g[2];
	g[0] = __enzyme_autodiff<double>((void *)h, enzyme_out, p[0], enzyme_const, p[1]);
	g[1] = __enzyme_autodiff<double>((void *)h, enzyme_const, p[0], enzyme_out, p[1]);
	return check("twoactivities", p, g, 2, [](const double *q) { return h(q[0], q[1]); });
}
