package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkCache links tests/projects/optlevels twice with a fresh link
// cache: the second link, to another output (so that it is not a relink
// of the same line, relink_test.go), reuses the cached object and bitcode
// symbols and writes the same executable byte for byte; after the source
// changes, the link misses and the new program's derivatives are right;
// GOZYME_CACHE=off never reuses.
func TestLinkCache(t *testing.T) {
	setup(t)
	dir := copyProject(t, "optlevels")
	env := toolEnv("GOZYME_CACHE="+filepath.Join(t.TempDir(), "cache"), "GOZYME_VERBOSE=1")
	linkTo := func(env []string, out string) (string, []byte) {
		t.Helper()
		_, stderr, err := runErr(dir, env, tool("gozyme-cc"), "-O2", "deriv.o", "-o", out, "-lm")
		if err != nil {
			t.Fatalf("link: %v\n%s", err, stderr)
		}
		exe, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return stderr, exe
	}
	link := func(env []string) (string, []byte) { return linkTo(env, "deriv") }
	reused := func(stderr string) bool { return strings.Contains(stderr, ": reusing ") }
	run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", "deriv.c", "-o", "deriv.o")
	first, exe1 := link(env)
	if reused(first) {
		t.Fatalf("first link reused a cached object:\n%s", first)
	}
	second, exe2 := linkTo(env, "deriv2")
	if !reused(second) || strings.Contains(second, "llvm-nm") {
		t.Errorf("second link did not reuse the cached object and symbol listing:\n%s", second)
	}
	if !bytes.Equal(exe1, exe2) {
		t.Errorf("the cached link's executable differs from the first")
	}
	checkDerivatives(t, run(t, dir, env, filepath.Join(dir, "deriv")), map[string]int{"relu3": 7, "square": 7})

	src, err := os.ReadFile(filepath.Join(dir, "deriv.c"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "double square(double x) { return x * x; }", "double square(double x) { return x * x + 0 * x; }", 1)
	if changed == string(src) {
		t.Fatal("deriv.c no longer has the line this test changes")
	}
	if err := os.WriteFile(filepath.Join(dir, "deriv.c"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", "deriv.c", "-o", "deriv.o")
	if third, _ := link(env); reused(third) {
		t.Errorf("link after a change reused a cached object:\n%s", third)
	}
	checkDerivatives(t, run(t, dir, env, filepath.Join(dir, "deriv")), map[string]int{"relu3": 7, "square": 7})
	if off, _ := link(append(env, "GOZYME_CACHE=off")); reused(off) {
		t.Errorf("GOZYME_CACHE=off reused a cached object:\n%s", off)
	}
}
