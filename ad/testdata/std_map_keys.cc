/* std::map values by key (TestStdMapKeys in stdmap_test.go), keys of type
 * KEY written as literals (K(i): the i-th): the caller's map and its
 * shadow built alike (enzyme_dup); values read and written through
 * operator[], find, iteration both ways; a map built and destroyed in the
 * function; against analytic derivatives. */
#include <map>
#include <string>
#include <cstdio>
#include <cmath>
extern int enzyme_dup;
template <typename... T> double __enzyme_autodiff(void *, T...);
using dict = std::map<KEY, double>;
/* s = sin(a) b + a^2, stored under K(3); the sum of the values read back
 * walking the map forward and backward (a, b, the new s, twice each). */
double mix(dict &v) {
	v[K(3)] = std::sin(v[K(1)]) * v[K(2)] + v[K(1)] * v[K(1)];
	double t = 0;
	for (auto &kv : v) t += kv.second;
	for (auto r = v.rbegin(); r != v.rend(); ++r) t += r->second;
	return t;
}
/* The same through a map of the function's own: a copy of a and b under
 * new keys (K(4), K(5)), a value inserted and erased again. */
double through_local(dict &v) {
	dict loc;
	loc[K(4)] = v.find(K(1))->second;
	loc[K(5)] = v.find(K(2))->second;
	loc[K(6)] = loc[K(4)] * 100;
	loc.erase(K(6));
	double s = std::sin(loc[K(4)]) * loc[K(5)] + loc[K(4)] * loc[K(4)];
	auto last = loc.end();
	--last;
	return s + last->second; /* + b */
}
int main() {
	int bad = 0;
	auto check = [&](const char *what, double got, double want) {
		if (std::fabs(got - want) > 1e-12) { std::printf("FAIL %s: %g, want %g\n", what, got, want); bad++; }
	};
	const double a = 0.7, b = -1.3;
	for (int pass = 0; pass < 2; pass++) {
		dict v, dv;
		v[K(1)] = a; v[K(2)] = b; v[K(3)] = 0;
		dv[K(1)] = 0; dv[K(2)] = 0; dv[K(3)] = 0;
		if (pass) __enzyme_autodiff((void *)through_local, enzyme_dup, &v, &dv);
		else __enzyme_autodiff((void *)mix, enzyme_dup, &v, &dv);
		/* mix: t = 2 (a + b + s); through_local: s + b. */
		double ds_da = std::cos(a) * b + 2 * a, ds_db = std::sin(a);
		check(pass ? "local d/da" : "d/da", dv[K(1)], pass ? ds_da : 2 * (1 + ds_da));
		check(pass ? "local d/db" : "d/db", dv[K(2)], pass ? ds_db + 1 : 2 * (1 + ds_db));
		check(pass ? "local, untouched" : "the overwritten value", dv[K(3)], 0);
	}
	std::printf("failures %d\n", bad);
	return bad != 0;
}
