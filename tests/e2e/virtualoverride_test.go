package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVirtualOverrideLink: through the whole link (partial parse before
// AD, the roots' cut), a virtual call whose overrides only vtables filled
// outside the derivative's call graph name (objects made in main, a
// caller, a factory) differentiates the overrides' real bodies; the
// program checks its gradients against central differences.
func TestVirtualOverrideLink(t *testing.T) {
	setup(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "ad", "testdata", "virtual_override_objects.cc"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, o := range []string{"-O0", "-O2"} {
		for _, cut := range []string{"GOZYME_CUT=on", "GOZYME_CUT=off"} {
			exe := filepath.Join(dir, "prog"+o+strings.TrimPrefix(cut, "GOZYME_CUT="))
			env := toolEnv("GOZYME_CACHE=off", cut)
			run(t, dir, env, tool("gozyme-c++"), o, src, "-o", exe)
			if out := run(t, dir, env, exe); !strings.Contains(out, "ok\n") {
				t.Errorf("%s %s: %s", o, cut, out)
			}
		}
	}
}
