#include <cmath>
#include <cstdio>
#include "snap.hpp"

extern int snap_grad_calls;
double __enzyme_autodiff(void *, ...);

static double f(double x) { return q::snap(x) * x; }

int main() {
	int failures = 0;
	const double xs[] = {0.3, 1.7, -2.4};
	for (double x : xs) {
		double g = __enzyme_autodiff((void *)f, x), want = x + q::snap(x);
		std::printf("cxxdecl %g %.17g %.17g\n", x, g, want);
		if (std::fabs(g - want) > 1e-12 * std::fmax(1, std::fabs(want))) failures++;
	}
	std::printf("snap_grad_calls %d\nfailures %d\n", snap_grad_calls, failures);
	return failures != 0;
}
