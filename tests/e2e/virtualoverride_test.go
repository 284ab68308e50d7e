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
// program checks its gradients against central differences. At -O0 the
// native objects define every vtable, so the cut must hold (the linkonce
// vtables and overrides pinned for AD), not fall back to the whole module.
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
			keep := t.TempDir()
			env := toolEnv("GOZYME_CACHE=off", cut)
			run(t, dir, append(env, "GOZYME_KEEP_TEMPS="+keep), tool("gozyme-c++"), o, src, "-o", exe)
			if o == "-O0" && cut == "GOZYME_CUT=on" {
				whole, _ := filepath.Glob(filepath.Join(keep, "gozyme-ld-*", "module-*", "differentiated.ll"))
				inCut, _ := filepath.Glob(filepath.Join(keep, "gozyme-ld-*", "module-*", "cut", "differentiated.ll"))
				if len(whole) != 0 || len(inCut) != 1 {
					t.Errorf("-O0: the roots' cut was not used (whole module %v, cut %v)", whole, inCut)
				}
			}
			if out := run(t, dir, env, exe); !strings.Contains(out, "ok\n") {
				t.Errorf("%s %s: %s", o, cut, out)
			}
		}
	}
}
