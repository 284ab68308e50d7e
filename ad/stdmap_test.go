package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStdMap: std::map<int, double> values through libstdc++'s compiled
// red-black tree routines (rbtree.go): the caller's map and its shadow
// built alike, maps the function builds, rebalances and destroys, a
// multiset of active keys; reverse, forward and split mode against
// central differences (std_map.cc). The -O2 program under valgrind: no
// shadow node outlives its use or leaks. A map copied inside the function
// stops the link at every level: the copy moves the tree's node count,
// which the type analysis cannot tell from the double a node holds at
// the same offset (it does not tell the tree's header from its nodes),
// and from -O1 on a node's value is copied by a memcpy of bytes it cannot
// tell either.
func TestStdMap(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "std_map.cc")
	defs := func(copies string) string {
		return "#define KEY int\n#define K(i) (i)\n#define GET(m, k) m[k]\n#define KEYS_INIT\n#define LOCAL 1\n#define COPIES " + copies + "\n"
	}
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			exe := buildCXX(t, defs("0")+src, o)
			out := run(t, exe)
			if o == "2" {
				out = runLeakChecked(t, exe)
			}
			if !strings.Contains(out, "failures 0") {
				t.Errorf("%s", out)
			}
		})
	}
	t.Run("copy/O0", func(t *testing.T) {
		t.Parallel()
		_, err := tryBuild(t, "prog.cc", defs("1")+src, "0")
		if err == nil || !strings.Contains(err.Error(), "bits the type analysis cannot tell") || !strings.Contains(err.Error(), "_M_copy") {
			t.Fatalf("a map copied in the function at -O0: want the link stopped at the node count's copy in _M_copy, got %v", err)
		}
	})
}

// TestStdMapKeys: std::map values by key for std::string, const char *
// and long keys written as literals (std_map_keys.cc), at every level.
func TestStdMapKeys(t *testing.T) {
	t.Parallel()
	names := "K_##i\n#define K_1 \"a\"\n#define K_2 \"b\"\n#define K_3 \"s\"\n#define K_4 \"x\"\n#define K_5 \"y\"\n#define K_6 \"z\""
	src := testdataC(t, "std_map_keys.cc")
	for _, c := range []struct{ key, k string }{
		{"std::string", names},
		{"const char *", names},
		{"long", "(100 * (i) + 7)"},
	} {
		c := c
		for _, o := range optLevels {
			o := o
			t.Run(c.key+"/O"+o, func(t *testing.T) {
				t.Parallel()
				exe := buildCXX(t, "#define KEY "+c.key+"\n#define K(i) "+c.k+"\n"+src, o)
				if out := run(t, exe); !strings.Contains(out, "failures 0") {
					t.Errorf("%s", out)
				}
			})
		}
	}
}

// stdMapStops is a program whose derivative links a node into a tree
// that outlives it: a key the caller's map lacks (in reverse, or in
// forward mode: FORWARD), or a map of its own in split mode (SPLIT).
const stdMapStops = `#include <map>
extern int enzyme_dup;
template <typename... T> double __enzyme_autodiff(void *, T...);
template <typename... T> void *__enzyme_augmentfwd(void *, T...);
template <typename... T> double __enzyme_fwddiff(void *, T...);
template <typename... T> void __enzyme_reverse(void *, T...);
using dict = std::map<int, double>;
double grow(dict &m) { m[7] = m[1] * m[1]; return m[7]; }
double own(dict &m) { dict loc; loc[3] = m[1]; return loc[3] * loc[3]; }
int main() {
	dict m, dm;
	m[1] = 3; dm[1] = 0;
#if SPLIT
	void *tape = __enzyme_augmentfwd((void *)own, enzyme_dup, &m, &dm);
	__enzyme_reverse((void *)own, enzyme_dup, &m, &dm, 1.0, tape);
#elif FORWARD
	__enzyme_fwddiff((void *)grow, enzyme_dup, &m, &dm);
#else
	__enzyme_autodiff((void *)grow, enzyme_dup, &m, &dm);
#endif
	return 0;
}
`

// TestStdMapNodeOutlivesStops: a node inserted into the caller's map
// would give its shadow map a node without its key (the key's bytes are
// integers, which the shadow does not receive): the program stops with a
// message, as it does for an insertion in split mode, where gozyme does
// not follow which nodes outlive the derivative.
func TestStdMapNodeOutlivesStops(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mode, want string }{
		{"REVERSE", "inserted a node into a std::map or std::set that outlives it"},
		{"FORWARD", "inserted a node into a std::map or std::set that outlives it"},
		{"SPLIT", "inserts into a std::map or std::set in split mode"},
	} {
		for _, o := range []string{"0", "2"} {
			exe := buildCXX(t, "#define "+c.mode+" 1\n"+stdMapStops, o)
			out, err := exec.Command(exe).CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Errorf("%s -O%s: %v, want a stop saying %q:\n%s", c.mode, o, err, c.want, out)
			}
		}
	}
}

// stdMapPrimalReturn differentiates, with enzyme_primal_return (an
// augmented forward and a reverse called back to back, as a combined
// gradient), a function building a map of its own.
const stdMapPrimalReturn = `#include <map>
#include <cstdio>
#include <cmath>
extern int enzyme_dup, enzyme_primal_return;
template <typename... T> double __enzyme_autodiff(void *, T...);
using dict = std::map<int, double>;
double own(dict &m) { dict loc; for (int i = 0; i < 9; i++) loc[(5 * i) % 9] = m[1] * i; return loc[3] * loc[4]; }
int main() {
	dict m, dm;
	m[1] = 3; dm[1] = 0;
	/* The result (no derivative returned: m is enzyme_dup). */
	double y = __enzyme_autodiff((void *)own, enzyme_primal_return, enzyme_dup, &m, &dm);
	/* loc[3] = 6 m1, loc[4] = 8 m1 (i = 6 and 8): y = 48 m1^2 */
	int bad = std::fabs(y - 48 * 9) > 1e-9 || std::fabs(dm[1] - 96 * 3) > 1e-9;
	std::printf("y %g dm %g\nfailures %d\n", y, dm[1], bad);
	return bad;
}
`

// TestStdMapPrimalReturn: a map the function builds, under
// enzyme_primal_return, whose augmented forward and reverse run back to
// back like a combined gradient's.
func TestStdMapPrimalReturn(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"0", "2"} {
		if out := runLeakChecked(t, buildCXX(t, stdMapPrimalReturn, o)); !strings.Contains(out, "failures 0") {
			t.Errorf("-O%s: %s", o, out)
		}
	}
}

// TestShadowOutlivesGradient: nodes the gradient allocates and links into
// the caller's list keep their shadows, linked into the caller's shadow
// list, which the caller reads, writes and frees afterwards; a scratch
// node freed inside loses its shadow with the gradient (valgrind: no use
// of freed memory, no leak).
func TestShadowOutlivesGradient(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "shadow_outlives.c")
	for _, o := range optLevels {
		exe := buildC(t, src, o, "-lm")
		if out := runLeakChecked(t, exe); !strings.Contains(out, "failures 0") {
			t.Errorf("-O%s: %s", o, out)
		}
	}
}
