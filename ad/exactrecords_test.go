package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// TestExactRecordBuffers: the record buffer of a loop whose trip count is
// known on entry and whose buffer is empty there (a split pair's loop in
// no other loop) is allocated once at the size that count gives, not grown
// (exactrecords.go): the augmented forwards of det's and tri's recursions
// (called from a gradient, tape-stack alloc; split by the user, malloc)
// never realloc; shrink's, whose bound changes inside the loop, and
// early's, whose exit test also reads the sum (no exact count), keep the
// growth check. The counters of det's and tri's loops are restarted by the
// reverse, not carried in the tape. Every gradient, combined and split,
// against central differences at every level (testdata/exact_records.c).
func TestExactRecordBuffers(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "det_of_minor.c") + testdataC(t, "exact_records.c")
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
	// The loop is in no other loop: with an exact count the reverse
	// restarts its counter at the count (exitentry.go, countsFromZero),
	// loads no forward value of it (revexposed.go), and the tape has no
	// counter field (the first slot made): its first field is the record
	// buffer's pointer. Without one the counter stays, an i64.
	tapes := map[string]bool{}
	for _, td := range m.TypeDefs {
		name := strings.TrimPrefix(td.Name(), "gozyme.tape.")
		st, ok := td.(*types.StructType)
		if !ok || name == td.Name() || len(st.Fields) == 0 {
			continue
		}
		for fn, grows := range want {
			if !strings.HasPrefix(name, "__gozyme_aug_"+fn+"_") {
				continue
			}
			tapes[fn] = true
			if counted := st.Fields[0].Equal(types.I64); counted != grows {
				t.Errorf("%s: the forward's loop counter in the tape: %v, want %v (%s)", name, counted, grows, st.LLString())
			}
		}
	}
	for fn := range want {
		if !tapes[fn] {
			t.Errorf("no tape of %s", fn)
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
