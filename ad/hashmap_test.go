package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// hashMapSrc: std::unordered_map values differentiated through
// operator[] (the map and its shadow map, built alike, passed
// enzyme_dup): d/dx of vals[k] = vals[k]^2 and of a sum over keys,
// against analytic values. KEY chooses the key type, K(i) the i-th key.
func hashMapSrc(t *testing.T) string {
	t.Helper()
	return testdataC(t, "hash_map.cc")
}

// TestHashMapValues: keys that are pointers, integers or std::string at
// every level (libstdc++'s rehash policy, which takes the table's float
// load factor with integers and carries no derivative, stays a plain
// call; from -O2 on, the copy of a short key's characters into a new node
// is one whose bytes the type analysis cannot tell, differentiated with
// run-time checks that its shadows are zero: zeroshadowcopy.go).
func TestHashMapValues(t *testing.T) {
	t.Parallel()
	names := "K_##i\n#define K_0 \"x\"\n#define K_1 \"a\"\n#define K_2 \"b\"\n#define K_3 \"s\""
	for _, c := range []struct {
		key, k string
		levels []string
	}{
		{"const char *", names, optLevels},
		{"long", "(100 * (i) + 7)", optLevels},
		{"std::string", names, optLevels},
	} {
		src := "#define KEY " + c.key + "\n#define K(i) " + c.k + "\n" + hashMapSrc(t)
		for _, o := range c.levels {
			t.Run(c.key+"/O"+o, func(t *testing.T) {
				t.Parallel() // the package's longest test: its builds spread over the cores
				run(t, buildCXX(t, src, o))
			})
		}
	}
}

// TestHashMapNewKey: a differentiated function writing a key of the
// caller's std::unordered_map: with the key in both maps beforehand the
// tangent and gradient are exact; a key it inserts (the shadow map's node
// would have no key) stops the program with a message.
func TestHashMapNewKey(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "hash_map_new_key.cc")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			exe := buildCXX(t, src, o)
			if out := run(t, exe); !strings.Contains(out, "failures 0") {
				t.Errorf("existing key: %s", out)
			}
			out, err := exec.Command(exe, "new").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "inserts a new key into a std::unordered_map that carries derivatives") {
				t.Errorf("a new key ran (%v): %s", err, out)
			}
		})
	}
}
