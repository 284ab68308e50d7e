package e2e

import (
	"debug/elf"
	"path/filepath"
	"strings"
	"testing"
)

// TestEntryAdapter links the programs of tests/projects/entryadapter, each
// checking its gradients against central differences at -O0 and -O2, and
// checks how the roots' cut served their Enzyme calls: where an adapter
// may define the entry symbol (one root from main, a root in an internal
// function called from a lambda, two functions through one symbol, C's
// variadic entry with one argument list, also without PIE), the link's
// object defines that symbol and nothing else; where it may not (the same
// function with two activities, C's variadic entry with two argument
// lists, two separate groups calling one symbol, two batch widths), it
// owns the callers as before. Either way the roots' cut serves the link,
// not the whole module. Compiled for a CPU (-march), the adapter takes
// its callers' target attributes and the gradient is inlined into it.
func TestEntryAdapter(t *testing.T) {
	setup(t)
	dir := copyProject(t, "entryadapter")
	cases := []struct {
		name    string
		sources []string
		adapter bool
		flags   []string
	}{
		{"mainroot", []string{"mainroot.cpp"}, true, nil},
		{"mainrootmarch", []string{"mainroot.cpp"}, true, []string{"-march=x86-64-v2"}},
		{"lambdaroot", []string{"lambdaroot.cpp"}, true, nil},
		{"dispatch", []string{"dispatch.cpp"}, true, nil},
		{"variadic", []string{"variadic.c"}, true, nil},
		{"variadicnopie", []string{"variadic.c"}, true, []string{"-fno-pie", "-no-pie"}},
		{"dispatchnopie", []string{"dispatch.cpp"}, true, []string{"-fno-pie", "-no-pie"}},
		{"twoactivities", []string{"twoactivities.cpp"}, false, nil},
		{"twoactivitiesnopie", []string{"twoactivities.cpp"}, false, []string{"-fno-pie", "-no-pie"}},
		{"variadicmixed", []string{"variadicmixed.c"}, false, nil},
		{"twoobjects", []string{"twoobjects_a.cpp", "twoobjects_b.cpp", "twoobjects_main.cpp"}, false, nil},
		{"widths", []string{"widths.cpp"}, false, nil},
	}
	for _, c := range cases {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(c.name+opt, func(t *testing.T) {
				t.Parallel()
				cc := tool("gozyme-cc")
				if strings.HasSuffix(c.sources[0], ".cpp") {
					cc = tool("gozyme-c++")
				}
				keep := t.TempDir()
				env := toolEnv("GOZYME_CACHE=off", "GOZYME_KEEP_TEMPS="+keep)
				var objs []string
				for _, src := range c.sources {
					obj := filepath.Join(keep, strings.TrimSuffix(src, filepath.Ext(src))+opt+".o")
					run(t, dir, env, cc, append(append([]string{opt}, c.flags...), "-c", src, "-o", obj)...)
					objs = append(objs, obj)
				}
				exe := filepath.Join(keep, c.name+opt)
				run(t, dir, env, cc, append(append(append([]string{opt}, c.flags...), objs...), "-o", exe, "-lm")...)
				out := run(t, dir, env, exe)
				if strings.Contains(out, "FAIL") || !strings.Contains(out, "ok ") {
					t.Fatalf("gradients:\n%s", out)
				}
				rewritten, _ := filepath.Glob(filepath.Join(keep, "gozyme-ld-*", "arg*.o"))
				var defined []string
				for _, p := range rewritten {
					if !strings.HasSuffix(p, ".native.o") {
						defined = append(defined, strongDefinitions(t, p)...)
						if !hasSection(t, p, ".gozyme.partial") {
							t.Errorf("%s was compiled from the whole module, not the roots' cut", p)
						}
					}
				}
				adapted := len(defined) > 0
				for _, d := range defined {
					adapted = adapted && strings.Contains(d, "__enzyme_autodiff")
				}
				if adapted != c.adapter {
					t.Errorf("the link's objects define %v; an adapter for the entry symbol: %v, want %v", defined, adapted, c.adapter)
				}
				if opt != "-O0" && c.adapter && strings.HasPrefix(strings.Join(c.flags, " "), "-march=") {
					for _, p := range rewritten {
						if g := gradientFunctions(t, p); len(g) > 0 {
							t.Errorf("%s keeps the gradient out of the adapter: %v", p, g)
						}
					}
				}
			})
		}
	}
}

// hasSection reports that the object at path has the named section.
func hasSection(t *testing.T, path, name string) bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.Section(name) != nil
}

// gradientFunctions are the function symbols of the object at path that
// are gradients gozyme wrote (__gozyme_grad...).
func gradientFunctions(t *testing.T, path string) []string {
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
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && strings.HasPrefix(s.Name, "__gozyme_grad") {
			out = append(out, s.Name)
		}
	}
	return out
}
