/* hashMapSrc: std::unordered_map values differentiated through
 * operator[] (the map and its shadow map, built alike, passed
 * enzyme_dup): d/dx of vals[k] = vals[k]^2 and of a sum over keys,
 * against analytic values. KEY chooses the key type, K(i) the i-th key.
 * (hashMapSrc in hashmap_test.go) */
#include <unordered_map>
#include <string>
#include <cstdio>
#include <cmath>
extern int enzyme_dup;
template <typename T> void __enzyme_autodiff(void *, int, T &, T &);
using dict = std::unordered_map<KEY, double>;
void square(dict &vals) { vals[K(0)] = vals[K(0)] * vals[K(0)]; }
void mix(dict &vals) { vals[K(3)] = std::sin(vals[K(1)]) * vals[K(2)] + vals[K(1)] * vals[K(1)]; }
int main() {
	int bad = 0;
	auto check = [&](const char *what, double got, double want) {
		if (std::fabs(got - want) > 1e-12) { std::printf("FAIL %s: %g, want %g\n", what, got, want); bad++; }
	};
	dict vals, dvals;
	vals[K(0)] = 3.0;
	dvals[K(0)] = 1.0;
	__enzyme_autodiff((void *)square, enzyme_dup, vals, dvals);
	check("d x^2/dx", dvals[K(0)], 6.0);
	check("x squared", vals[K(0)], 9.0);
	dict v2, d2;
	v2[K(1)] = 0.7; v2[K(2)] = -1.3; v2[K(3)] = 0;
	d2[K(1)] = 0; d2[K(2)] = 0; d2[K(3)] = 1.0;
	__enzyme_autodiff((void *)mix, enzyme_dup, v2, d2);
	check("ds/da", d2[K(1)], std::cos(0.7) * -1.3 + 2 * 0.7);
	check("ds/db", d2[K(2)], std::sin(0.7));
	check("the seed consumed", d2[K(3)], 0.0);
	std::printf("failures %d\n", bad);
	return bad != 0;
}
