package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// snapshotNests are particle systems whose reverse needs counters on
// entry to loops nested two and three deep (counters.go): the j loop's
// entry counter and the fill level of the group caching p[j] without the
// i loop's dimension, both on entry to the i loop in every step. deep
// nests the steps in rounds; the others must keep a snapshot cached: the
// i loop skipped in some steps (on the data, or on the step), or the j
// loop skipped in some rows (its entry counter on entry to the i loop is
// not a multiple of the row count).
func snapshotNests(t *testing.T) string {
	t.Helper()
	return testdataC(t, "snapshot_nests.c")
}

// Every snapshot nest's gradient matches central differences at every
// level, combined and split, and leaks nothing.
func TestSnapshotNests(t *testing.T) {
	t.Parallel()
	main := "int main(void) {\n"
	for _, f := range []string{"deep", "stepdata", "stepskip", "rowskip", "deep_callee", "stepdata_callee", "rowskip_callee"} {
		main += "\tCHECK_PARTICLES(" + f + ", 9);\n"
	}
	main += "\treturn failures != 0;\n}\n"
	src := particleC(t) + snapshotNests(t) + main
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			run(t, buildC(t, src, o))
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// The reverse of particles and deep caches no counter snapshot at any
// level, combined or split: their tape holds overwritten values only (it
// held the j loop's entry counter and the p[j] group's fill level on
// entry to the i loop, per step). stepdata, stepskip and rowskip keep one
// cached (at -O0 and -O1, which keep their shape).
func TestSnapshotIR(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		m := preADModuleC(t, particleC(t)+snapshotNests(t)+"int main(void) { return 0; }\n", o)
		for _, tc := range []struct {
			name   string
			cached bool
		}{{"particles", false}, {"deep", false}, {"stepdata", true}, {"stepskip", true}, {"rowskip", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "snap_"+tc.name)
				cached, recomputed := 0, 0
				for ld, s := range r.snapOf {
					if isCached(r, ld) {
						t.Logf("-O%s %s (split %v): cached the counter of the loop at %s on entry to the loop at %s", o, tc.name, split, s.src.Header.Ident(), s.at.Header.Ident())
						cached++
					} else if s.at.Parent != nil && r.planSnapshot(s) != nil {
						recomputed++
					}
				}
				switch {
				case !tc.cached && cached > 0:
					t.Errorf("-O%s %s (split %v): %d counter snapshots cached, want none", o, tc.name, split, cached)
				case !tc.cached && recomputed == 0:
					t.Errorf("-O%s %s (split %v): no counter snapshot recomputed", o, tc.name, split)
				case tc.cached && cached == 0 && (o == "0" || o == "1"):
					// (-O2 and -O3 reshape these nests: unswitched,
					// unrolled; TestSnapshotNests checks their gradients.)
					t.Errorf("-O%s %s (split %v): no counter snapshot cached", o, tc.name, split)
				}
				d.dropFunc(r.g)
			}
		}
	}
}

// reverseOf generates the reverse of function name of m, its pointer
// argument Dup and its integer Const (combined, or split), for tests that
// inspect the generator's analyses; the caller drops r.g from d.
func reverseOf(t *testing.T, m *ir.Module, name string, split bool, tag string) (*differ, *reverseGen) {
	t.Helper()
	var f *ir.Func
	for _, g := range m.Funcs {
		if g.Name() == name {
			f = g
		}
	}
	d := newDiffer(m, Options{})
	pf, err := d.prepared(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, pf, []activity.Activity{activity.Dup, activity.Const}, true, false, split, tag)
	})
	if err != nil {
		t.Fatal(err)
	}
	return d, r
}

// isCached reports whether the reverse r caches forward value v: in a slot
// of its own, or as a field of a loop's or a hoisted group's records.
func isCached(r *reverseGen, v value.Value) bool {
	if _, ok := r.slots[v]; ok {
		return true
	}
	for _, lc := range r.loops {
		if _, ok := lc.fields[v]; ok {
			return true
		}
	}
	for _, h := range r.hoists {
		if _, ok := h.lc.fields[v]; ok {
			return true
		}
	}
	return false
}
