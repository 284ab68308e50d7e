// Central differences against the gradient an Enzyme entry point wrote:
// each program prints "ok <name>" or "FAIL <name> ..." and exits 1.
#include <cmath>
#include <cstdio>

template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
extern int enzyme_dup, enzyme_const, enzyme_out;

// check compares g[i] with the central difference of f at x along i.
template <typename F> int check(const char *name, double *x, const double *g, int n, F f) {
	int bad = 0;
	for (int i = 0; i < n; i++) {
		double h = 1e-6, keep = x[i];
		x[i] = keep + h;
		double up = f(x);
		x[i] = keep - h;
		double down = f(x);
		x[i] = keep;
		double fd = (up - down) / (2 * h);
		if (std::fabs(fd - g[i]) > 1e-6 * (1 + std::fabs(fd))) {
			std::printf("FAIL %s: d/dx[%d] = %.12g, central difference %.12g\n", name, i, g[i], fd);
			bad = 1;
		}
	}
	if (!bad)
		std::printf("ok %s\n", name);
	return bad;
}
