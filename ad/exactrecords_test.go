package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// TestExactRecordBuffers: the record buffer of a loop whose trip count is
// known on entry and whose buffer is empty there (a split pair's loop in
// no other loop) is allocated once at the size that count gives, not grown
// (exactrecords.go): the augmented forwards of det's and tri's recursions
// (called from a gradient, tape-stack alloc; split by the user, malloc)
// never realloc; shrink's, whose bound changes inside the loop, and
// early's, whose exit test also reads the sum (no exact count), keep the
// growth check. Every gradient, combined and split, against central differences
// at every level (testdata/exact_records.c).
func TestExactRecordBuffers(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "exact_records.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"det_of_minor": false, "tri_of": false, "shrink_of": true, "early_of": true}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		for fn, grows := range want {
			if !strings.HasPrefix(f.Name(), "__gozyme_aug_"+fn+"_") || strings.Contains(f.Name(), ".tape.") {
				continue
			}
			seen[fn] = true
			calls := calleesOf(f)
			if got := calls["__gozyme_tape_realloc"] || calls["realloc"]; got != grows {
				t.Errorf("%s: grows its record buffer: %v, want %v", f.Name(), got, grows)
			}
			if !grows && !calls["__gozyme_tape_alloc"] && !calls["malloc"] {
				t.Errorf("%s: allocates no record buffer", f.Name())
			}
		}
	}
	for fn := range want {
		if !seen[fn] {
			t.Errorf("no augmented forward of %s", fn)
		}
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// calleesOf is the set of functions f calls directly, by name.
func calleesOf(f *ir.Func) map[string]bool {
	out := map[string]bool{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				out[irfacts.CalleeName(c)] = true
			}
		}
	}
	return out
}
