package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestNoEnzymeCallsLinkIdentically links the same gozyme-cc objects of a
// program without Enzyme calls once with gozyme-cc and once with plain
// clang-14: the executables must be byte-identical.
func TestNoEnzymeCallsLinkIdentically(t *testing.T) {
	setup(t)
	dir := copyProject(t, "noenzyme")
	env := toolEnv()
	var objs []string
	for _, src := range []string{"main.c", "stats.c"} {
		obj := filepath.Join(dir, src[:len(src)-2]+".o")
		run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", src, "-o", obj)
		checkFatObject(t, obj)
		objs = append(objs, obj)
	}
	// Same output name in two directories: nothing in the link differs
	// but the driver.
	exes := map[string]string{}
	for _, driver := range []string{"gozyme-cc", "clang-14"} {
		out := filepath.Join(dir, driver, "prog")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		path := driver
		if driver == "gozyme-cc" {
			path = tool(driver)
		}
		run(t, dir, env, path, append(append([]string{"-O2"}, objs...), "-o", out)...)
		exes[driver] = out
		if got := run(t, dir, env, out); got != "n=8 mean=3.875000 min=1 max=9\n" {
			t.Errorf("%s printed %q", out, got)
		}
		checkNoBitcode(t, out)
	}
	a, errA := os.ReadFile(exes["gozyme-cc"])
	b, errB := os.ReadFile(exes["clang-14"])
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !bytes.Equal(a, b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Errorf("gozyme-cc and clang-14 linked different executables (%d vs %d bytes, first difference at offset %#x)", len(a), len(b), i)
	}
}
