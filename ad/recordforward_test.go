package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// TestRecordForward: loads of what an earlier loop stored, where the
// stored value reads memory written later (an LSTM cell's gates read the
// state it overwrites), are rebuilt from the storing loop's records, in
// split pairs and combined gradients; the loop's stores into other parts
// of the same buffer (the other gates, m, 2m and 3m further) write none of
// the elements read; the same for a buffer filled and read back twice in
// a combined gradient, and storing loops inside one or two other loops
// whose trip counts vary (its records of the outer iteration start at its
// entry counter). A second store overwriting an element the loop stored
// before keeps the load recorded (testdata/record_forward.c). Gradients against central
// differences at every level, under valgrind; at -O2 split, gates reads
// every gate outside its first loop from that loop's records and records
// none of them again (combined, it reads the buffer again: freed at the
// exit); reused, combined and split, reads both fills from records;
// shifted forwards nothing; nested, varying and deep their one load.
func TestRecordForward(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "record_forward.c")
	runEveryLevelLeakChecked(t, src)
	m := preADModuleC(t, src, "2")
	for _, tc := range []struct {
		name      string
		acts      []activity.Activity
		retActive bool
		// loads of the buffer rebuilt from records, combined and split
		combined, split int
		// loads of the buffer recorded, split
		recorded int
	}{
		{"gates", []activity.Activity{activity.Const, activity.Dup, activity.Dup, activity.Dup}, false, 0, 4, 0},
		// The second fill's loop may be skipped where the first ran, as the
		// CFG tells (each loop has its own guard): its load is recorded.
		{"reused", []activity.Activity{activity.Dup}, true, 1, 1, 1},
		{"shifted", []activity.Activity{activity.Dup}, true, 0, 0, -1},
		{"nested", []activity.Activity{activity.Dup}, true, 1, 1, 0},
		{"varying", []activity.Activity{activity.Dup}, true, 1, 1, 0},
		{"deep", []activity.Activity{activity.Dup}, true, 1, 1, 0},
	} {
		for _, split := range []bool{false, true} {
			r := reverseWith(t, m, tc.name, tc.acts, tc.retActive, split)
			got, recorded := 0, 0
			for _, b := range r.f.Blocks {
				for _, inst := range b.Insts {
					ld, ok := inst.(*ir.InstLoad)
					if !ok || !readsAllocation(ld) {
						continue
					}
					if f := r.fwdStores[ld]; f != nil && f.records {
						got++
					}
					if isCached(r, r.vmap[ld]) {
						recorded++
					}
				}
			}
			want := tc.combined
			if split {
				want = tc.split
			}
			if got != want {
				t.Errorf("%s (split %v): %d loads rebuilt from records, want %d", tc.name, split, got, want)
			}
			// Combined, the buffer is freed at the exit: its loads read it
			// again where they are not rebuilt.
			if want := tc.recorded; (!split && recorded != 0 && want >= 0) || (split && want >= 0 && recorded != want) {
				t.Errorf("%s (split %v): %d loads recorded, want %d", tc.name, split, recorded, want)
			}
		}
	}
}

// readsAllocation reports a load from memory a call allocated.
func readsAllocation(ld *ir.InstLoad) bool {
	objs, _, known := objectsOf(ld.Src, false)
	if !known || len(objs) != 1 {
		return false
	}
	c, ok := objs[0].(*ir.InstCall)
	return ok && value.Value(c) != nil && c.Callee != nil
}
