package ad

import (
	"sort"
	"strings"
	"testing"
)

// TestPairedFree: temporaries a function always frees itself (a split
// helper's scratch buffer freed after its loops, the gradient's own) have
// their shadows released by the reverse of the allocation without the
// shadow set; a node freed on some calls only (linked into the caller's
// list on the others) and a buffer freed one iteration late keep the set
// (testdata/paired_free.c). Gradients against central differences at
// every level, under valgrind (no invalid access, no leak); at -O2 the
// functions calling the set are those of the refused cases only.
func TestPairedFree(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "paired_free.c")
	runEveryLevelLeakChecked(t, src)
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range m.Funcs {
		if !strings.HasPrefix(f.Name(), "__gozyme_") || strings.HasPrefix(f.Name(), "__gozyme_shadowlife") {
			continue
		}
		for c := range calleesOf(f) {
			if strings.HasPrefix(c, "__gozyme_shadowlife") && (strings.Contains(c, ".note") || strings.Contains(c, ".release")) {
				got = append(got, f.Name())
				break
			}
		}
	}
	sort.Strings(got)
	want := "__gozyme_aug_keep_ocd_r_f __gozyme_grad_lagged_d __gozyme_rev_keep_ocd_r_f"
	if strings.Join(got, " ") != want {
		t.Fatalf("functions calling the shadow set: %v, want %s", got, want)
	}
}

// TestPairedFreeVector: a split helper's std::vector temporary, freed by
// its inlined destructor behind a null test, releases its shadow without
// the shadow set (testdata/paired_free_cxx.cc); gradient against central
// differences at every level under valgrind, and at -O2 no function
// calls the set.
func TestPairedFreeVector(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "paired_free_cxx.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := runLeakChecked(t, buildCXX(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "done") {
				t.Fatal(out)
			}
		})
	}
	dir := t.TempDir()
	m := preAD(t, dir, compileBitcode(t, dir, "clang++", "prog.cc", src, "2"), "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if !strings.HasPrefix(f.Name(), "__gozyme_") || strings.HasPrefix(f.Name(), "__gozyme_shadowlife") {
			continue
		}
		for c := range calleesOf(f) {
			if strings.HasPrefix(c, "__gozyme_shadowlife") && (strings.Contains(c, ".note") || strings.Contains(c, ".release")) {
				t.Errorf("%s calls the shadow set (%s)", f.Name(), c)
			}
		}
	}
}
