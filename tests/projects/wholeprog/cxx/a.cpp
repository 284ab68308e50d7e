#include <cstdio>
#include "poly.hpp"
double __enzyme_autodiff(void *, ...) noexcept;
int main() {
	int failures = 0;
	for (double x = -1; x <= 1.5; x += 0.5) {
		double d = __enzyme_autodiff((void *)energy, x);
		double want = 2 * (3 * x * x - 2 + std::cos(x)) + 1;  // energy = 2 poly(x) + x
		std::printf("cxx %g %.17g %.17g\n", x, d, want);
		if (std::fabs(d - want) > 1e-12 * std::fmax(1, std::fabs(want))) failures++;
		failures += poly(x) != poly(x);
	}
	std::printf("failures %d\n", failures);
	return failures != 0;
}
