package ad

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
)

// TestPrivateContents runs the callees of testdata/private_contents.cc at
// every level against central differences: one whose call site proves the
// vector it writes private, and four where it is not (the same vector
// twice, a second pointer to its buffer in memory or as an argument, a
// callee keeping the buffer's address) whose reads through the other
// pointer must see the writes.
func TestPrivateContents(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "private_contents.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXXLinked(t, src, o)) })
	}
}

// TestPrivateContentsFact checks who gets the fact in the same program at
// -O2: the caller's half (privateArgs: a split pair named _pc1 for y) only
// where y's buffer is held by y alone, the callee's half (calleeContents)
// only where the callee lets the loaded buffer address go nowhere.
func TestPrivateContentsFact(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "private_contents.cc")
	dir := t.TempDir()
	m := preAD(t, dir, compileBitcode(t, dir, "clang++", "prog.cc", src, "2"), "2", linkedLoops...)
	fn := func(part string) *ir.Func {
		for _, f := range m.Funcs {
			if len(f.Blocks) > 0 && strings.Contains(f.Name(), part) {
				return f
			}
		}
		t.Fatalf("no function named like %s in %s", part, filepath.Base(dir))
		return nil
	}
	for _, c := range []struct {
		root, callee string
		private      bool
	}{
		{"4last", "6evolve", true},
		{"4self", "6evolve", false},
		{"6viewed", "11evolve_view", false},
		{"4kept", "11evolve_keep", true}, // the caller's half holds
		{"6passed", "10evolve_raw", false},
	} {
		d := newDiffer(m, Options{})
		pf, err := d.prepared(fn(c.root))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.generateReverse(func() (*reverseGen, error) {
			return newReverseGen(d, pf, []Activity{Dup, Const}, true, false, false, "grad_"+c.root)
		}); err != nil {
			t.Fatalf("%s: %v", c.root, err)
		}
		found, private := false, false
		for name := range d.splits {
			if strings.Contains(name, c.callee) {
				found = true
				private = private || strings.HasSuffix(name, "_pc1")
			}
		}
		if !found || private != c.private {
			t.Errorf("%s: split pair of %s found %v, private contents %v; want %v", c.root, c.callee, found, private, c.private)
		}
	}
	d := newDiffer(m, Options{})
	for _, c := range []struct {
		callee string
		kept   bool
	}{{"6evolve", true}, {"11evolve_keep", false}} {
		pf, err := d.prepared(fn(c.callee))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.calleeContents(pf, []bool{false, true, false}) != nil; got != c.kept {
			t.Errorf("%s keeps the fact: %v, want %v", c.callee, got, c.kept)
		}
	}
}
