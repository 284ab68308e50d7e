package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
)

// TestTapeVectorAlignment: a pair whose tape caches <4 x double> values
// (the SLP vectorizer's with AVX, the vector extension's everywhere), its
// gradient against central differences. The tape is 16-byte aligned
// memory; accesses claiming the vector's 32 faulted (vmovapd) at -O3
// -march=x86-64-v3.
func TestTapeVectorAlignment(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "tape_vector_alignment.c")
	for _, o := range optLevels {
		for _, flags := range [][]string{nil, {"-march=x86-64-v3"}} {
			o, flags := o, flags
			t.Run("O"+o+strings.Join(flags, ""), func(t *testing.T) {
				t.Parallel()
				out := run(t, buildC(t, src, o, flags...))
				if strings.Contains(out, "FAIL") {
					t.Fatal(out)
				}
			})
		}
	}
}

// TestTapeAccessesAligned: every load and store of the split pairs' halves
// carries an alignment of at most 8 bytes for values wider than that
// (none is left to the type's ABI alignment, which LLVM would assume).
func TestTapeAccessesAligned(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, checkPrelude+testdataC(t, "tape_vector_alignment.c"), "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, f := range m.Funcs {
		if !strings.HasPrefix(f.Name(), "__gozyme_aug_") && !strings.HasPrefix(f.Name(), "__gozyme_rev_") {
			continue
		}
		pairs++
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstLoad:
					if x.Align == 0 {
						t.Errorf("%s: %s has no alignment", f.Name(), x.LLString())
					}
				case *ir.InstStore:
					if x.Align == 0 {
						t.Errorf("%s: %s has no alignment", f.Name(), x.LLString())
					}
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no split pair generated")
	}
}
