package e2e

import (
	"debug/elf"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRootCut links tests/projects/rootcut, whose gradient (grad.c) reaches
// two more objects (model.c, util.c) and is called from a fourth (main.c):
// only the roots' cut of the module is compiled at link time. The program
// checks the gradient against central differences and prints the counters
// the native code writes and reads; this test checks them, and that the
// link's object defines only the entry point, as the adapter the native
// gradient calls (lto/cutadapter.go): not the caller, nothing the roots
// merely reach (energy, scale_factor: native code) or do not reach
// (unrelated_work), while the whole module (GOZYME_CUT=off) defines them
// all.
func TestRootCut(t *testing.T) {
	setup(t)
	dir := copyProject(t, "rootcut")
	env := toolEnv("GOZYME_CACHE=off")
	objs := []string{"main.o", "grad.o", "model.o", "util.o"}
	for _, o := range objs {
		run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", strings.TrimSuffix(o, ".o")+".c", "-o", o)
	}
	for _, mode := range []struct {
		name, env string
		defined   []string
	}{
		{"cut", "GOZYME_CUT=on", []string{"__enzyme_autodiff"}},
		{"whole", "GOZYME_CUT=off", []string{"energy", "energy_calls", "gradient", "gradient_calls", "scale_factor", "unrelated_work"}},
	} {
		keep := t.TempDir()
		menv := append(append([]string(nil), env...), mode.env, "GOZYME_KEEP_TEMPS="+keep)
		exe := filepath.Join(dir, "prog-"+mode.name)
		run(t, dir, menv, tool("gozyme-cc"), append(append([]string{"-O2"}, objs...), "-o", exe, "-lm")...)
		out := run(t, dir, env, exe)
		for _, want := range []string{"failures 0\n", "gradient_calls 1\n", "energy_calls 13\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", mode.name, want, out)
			}
		}
		if n := strings.Count(out, "grad "); n != 6 {
			t.Errorf("%s: %d gradient lines, want 6:\n%s", mode.name, n, out)
		}
		rewritten, _ := filepath.Glob(filepath.Join(keep, "gozyme-ld-*", "arg*.o"))
		var objects []string
		for _, p := range rewritten {
			if !strings.HasSuffix(p, ".native.o") {
				objects = append(objects, p)
			}
		}
		if len(objects) != 1 {
			t.Fatalf("%s: %d rewritten objects kept, want 1: %v", mode.name, len(objects), rewritten)
		}
		if got := strongDefinitions(t, objects[0]); strings.Join(got, " ") != strings.Join(mode.defined, " ") {
			t.Errorf("%s: the link's object defines %v, want %v", mode.name, got, mode.defined)
		}
	}
}

// strongDefinitions lists the global (not weak) symbols an object defines,
// sorted.
func strongDefinitions(t *testing.T, path string) []string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range syms {
		if elf.ST_BIND(s.Info) == elf.STB_GLOBAL && s.Section != elf.SHN_UNDEF {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}
