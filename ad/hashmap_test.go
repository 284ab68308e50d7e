package ad

import "testing"

// hashMapSrc: std::unordered_map values differentiated through
// operator[] (the map and its shadow map, built alike, passed
// enzyme_dup): d/dx of vals[k] = vals[k]^2 and of a sum over keys,
// against analytic values. KEY chooses the key type.
const hashMapSrc = `
#include <unordered_map>
#include <string>
#include <cstdio>
#include <cmath>
extern int enzyme_dup;
template <typename T> void __enzyme_autodiff(void *, int, T &, T &);
using dict = std::unordered_map<KEY, double>;
void square(dict &vals) { vals["x"] = vals["x"] * vals["x"]; }
void mix(dict &vals) { vals["s"] = std::sin(vals["a"]) * vals["b"] + vals["a"] * vals["a"]; }
int main() {
	int bad = 0;
	auto check = [&](const char *what, double got, double want) {
		if (std::fabs(got - want) > 1e-12) { std::printf("FAIL %s: %g, want %g\n", what, got, want); bad++; }
	};
	dict vals, dvals;
	vals["x"] = 3.0;
	dvals["x"] = 1.0;
	__enzyme_autodiff((void *)square, enzyme_dup, vals, dvals);
	check("d x^2/dx", dvals["x"], 6.0);
	check("x squared", vals["x"], 9.0);
	dict v2, d2;
	v2["a"] = 0.7; v2["b"] = -1.3; v2["s"] = 0;
	d2["a"] = 0; d2["b"] = 0; d2["s"] = 1.0;
	__enzyme_autodiff((void *)mix, enzyme_dup, v2, d2);
	check("ds/da", d2["a"], std::cos(0.7) * -1.3 + 2 * 0.7);
	check("ds/db", d2["b"], std::sin(0.7));
	check("the seed consumed", d2["s"], 0.0);
	std::printf("failures %d\n", bad);
	return bad != 0;
}
`

// TestHashMapValues: keys that are pointers at every level (libstdc++'s
// rehash policy, which takes the table's float load factor with integers
// and carries no derivative, stays a plain call); std::string keys at -O0
// and -O1 (at -O2 the copy of a short key's characters into a node is one
// whose bytes the type analysis cannot tell, an error).
func TestHashMapValues(t *testing.T) {
	for _, c := range []struct {
		key    string
		levels []string
	}{
		{"const char *", optLevels},
		{"std::string", []string{"0", "1"}},
	} {
		src := "#define KEY " + c.key + "\n" + hashMapSrc
		for _, o := range c.levels {
			t.Run(c.key+"/O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
		}
	}
}
