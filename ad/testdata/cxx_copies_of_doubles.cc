/* The program of TestCXXCopiesOfDoubles (retype_test.go). */
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>
extern "C" double __enzyme_autodiff(void *, ...);
static int failures;
static void check(const char *what, double got, double want) {
	double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
	if (!(err <= 1e-9)) { std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else std::printf("ok %s: %.17g\n", what, got);
}
struct P { double a, b; };
__attribute__((noinline)) void copied(std::vector<double> &dst, const std::vector<double> &src) { std::copy(src.begin(), src.end(), dst.begin()); }
__attribute__((noinline)) void assign(std::array<double, 1> &d, const std::array<double, 1> &s) { d = s; }
double vectors(double x) {
	std::vector<double> v = {x, x * x, std::sin(x)};
	std::vector<double> w(3);
	copied(w, v);
	std::vector<double> u = w;
	return u[0] * u[1] + u[2];
}
double arrays(double x) {
	std::array<double, 1> a = {x * x}, b;
	assign(b, a);
	std::array<double, 1> c = b;
	return c[0] * x;
}
double structs(double x) {
	std::vector<P> ps(2);
	ps[0] = {x, 2 * x};
	ps[1] = ps[0];
	std::vector<P> qs = ps;
	return qs[1].a * qs[1].b + qs[0].a;
}
int main() {
	volatile double xs[] = {-0.5, 1.25};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		check("vector copies", __enzyme_autodiff((void *)vectors, x), 3 * x * x + std::cos(x));
		check("std::array copies", __enzyme_autodiff((void *)arrays, x), 3 * x * x);
		check("struct vector copies", __enzyme_autodiff((void *)structs, x), 4 * x + 1);
	}
	return failures != 0;
}
