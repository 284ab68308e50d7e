/* A C++ caller with a std::vector in scope invokes __enzyme_autodiff (an
 * exception would have to destroy the vector), one call's result merged
 * by a phi, one returning a struct (TestInvokedEntryPointRun, cxx_test.go). */
#include <cstdio>
#include <string>
#include <vector>
extern "C" {
extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
}
struct Pair { double a, b; };
extern "C" Pair __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
static double cube(double x) { return x * x * x; }
static double prod(double x, double y) { return x * y * y; }
int main(int argc, char **) {
	std::vector<double> a(argc + 3, 1.5);
	std::string s = "scope";
	double d = argc > 0 ? __enzyme_autodiff((void *)cube, a[1] + argc) : -1;
	Pair g = __enzyme_autodiff2((void *)prod, enzyme_out, a[0], enzyme_out, a[2] + 1);
	if (d != 18.75 || g.a != 6.25 || g.b != 7.5) {
		printf("FAIL %s: got %.17g %.17g %.17g want 18.75 6.25 7.5\n", s.c_str(), d, g.a, g.b);
		return 1;
	}
	printf("ok %g\n", d);
	return 0;
}
