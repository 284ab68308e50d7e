/* The program of TestCallABICXX (abi_test.go). */
#include <cmath>
#include <cstdio>
double __enzyme_autodiff(void *, ...) noexcept;   // C++-mangled: _Z17__enzyme_autodiffPvz
template <class R, class... T> R __enzyme_autodiff_template(void *, T...);
namespace model {
template <class T> T objective(T x, T y) { return std::sin(x) * y + x * x; }
}
struct D2 { double a, b; };
struct Energy {
	static double of(double x) { return std::exp(-x * x); }
};
static int failures;
static void check(const char *what, double got, double want) {
	if (std::fabs(got - want) > 1e-9 * std::fmax(1.0, std::fabs(want))) { std::printf("FAIL %s: %.17g vs %.17g\n", what, got, want); failures++; }
}
int main() {
	double x = 0.9, y = 1.7;
	check("mangled", __enzyme_autodiff((void *)Energy::of, x), -2 * x * std::exp(-x * x));
	D2 d = __enzyme_autodiff_template<D2>(reinterpret_cast<void *>(model::objective<double>), x, y);
	check("template a", d.a, std::cos(x) * y + 2 * x);
	check("template b", d.b, std::sin(x));
	return failures != 0;
}
