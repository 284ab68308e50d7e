/* hashMapNewKey: a differentiated function writes vals[107] into the
 * caller's std::unordered_map (and its shadow map, passed enzyme_dup).
 * With the key already in both maps the tangent and the gradient are
 * checked against analytic values; with the key missing ("new" on the
 * command line) the insertion would leave the shadow map a node without
 * its key, and the program must stop (TestHashMapNewKey). */
#include <unordered_map>
#include <cstdio>
#include <cstring>
#include <cmath>
extern int enzyme_dup;
template <typename... T> double __enzyme_fwddiff(void *, T...);
template <typename... T> double __enzyme_autodiff(void *, T...);
using dict = std::unordered_map<long, double>;
double grow(dict &vals, double x) {
	vals[107] = x * x;
	return vals[7] * vals[107];
}
int main(int argc, char **argv) {
	bool fresh = argc > 1 && std::strcmp(argv[1], "new") == 0;
	int bad = 0;
	auto check = [&](const char *what, double got, double want) {
		if (std::fabs(got - want) > 1e-12) { std::printf("FAIL %s: %g, want %g\n", what, got, want); bad++; }
	};
	double x = 1.5;
	dict vals, dvals;
	vals[7] = 3.0; dvals[7] = 0.0;
	if (!fresh) { vals[107] = 0.0; dvals[107] = 0.0; }
	double t = __enzyme_fwddiff<int, dict &, dict &, int, double, double>((void *)grow, enzyme_dup, vals, dvals, enzyme_dup, x, 1.0);
	check("tangent", t, 3.0 * 2 * x);
	check("tangent of the entry", dvals[107], 2 * x);
	dict v2, d2;
	v2[7] = 3.0; d2[7] = 0.0;
	if (!fresh) { v2[107] = 0.0; d2[107] = 0.0; }
	double g = __enzyme_autodiff<dict &, dict &, double>((void *)grow, v2, d2, x);
	check("gradient", g, 3.0 * 2 * x);
	check("d/d vals[7]", d2[7], x * x);
	std::printf("failures %d\n", bad);
	return bad != 0;
}
