package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// wrapNest: a triangle whose outer counter is a 32-bit unsigned that
// wraps through 0 (it starts at BASE = 2^32 - 2), the inner count i + 4
// wrapping with it (2, 3, 4, ...): at -O2 and -O3 the inner loop is
// vectorized, and the join after it is decided per outer iteration from
// conditions on the wrapped counter (iterationCond), rebuilt in the
// reverse from the outer loop's linear counter in 32-bit arithmetic.
func wrapNest(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "wrap_nest.c")
}

// TestWrapPathIR: at -O2 and -O3, a join in wrap's loop over the 32-bit
// counter (after the vector loop and its overflow checks) is decided by
// its paths, from conditions on the counter (iterationCond). (The
// remainder's start, a phi of three ways in, is still rebuilt from the
// way taken: mergeValue reads the predecessor index.)
func TestWrapPathIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, wrapNest(t), o)
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, "wrap", split, "wrap_ir")
			paths := 0
			for b := range r.predIdx {
				l := r.cfg.LoopOf[b]
				if l == nil || !counter32(l.Header) {
					continue
				}
				if _, ok := r.pathDecision(b); ok && !r.decidedByDominators(b) {
					paths++
				}
			}
			if paths == 0 {
				t.Errorf("-O%s (split %v): no join in the loop over the 32-bit counter is decided by its paths", o, split)
			}
			d.dropFunc(r.g)
		}
	}
}

// counter32 reports whether loop header h has an i32 phi.
func counter32(h *ir.Block) bool {
	for _, inst := range h.Insts {
		if p, ok := inst.(*ir.InstPhi); ok && p.Typ.Equal(types.I32) {
			return true
		}
	}
	return false
}

// TestWrapPathRun: wrap's gradient against central differences at every
// level, combined and split, with d = 1, 2, 3 and 6 (the inner loop runs
// 2 to 9 times: below, at and above the vector width), leak-checked.
func TestWrapPathRun(t *testing.T) {
	t.Parallel()
	runSizes(t, wrapNest(t), "DIM", []string{"1", "2", "3", "6"}, []string{"ok wrap[127]", "ok wrap_callee[127]"})
}
