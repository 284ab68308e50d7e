package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// TestDecisionCondFixedPhi: at -O3, the remainder after vnest's vector
// loop (whose count m changes with the round) is unrolled by two after a
// prologue, and whether the unrolled part runs compares the trip count
// less one with the remainder's start: a merge phi (0 where the vector loop was skipped,
// n.vec where it stopped short) that the path to that test fixes.
// decisionCond rebuilds such a condition with the phi's fixed value: no
// select over the way the forward took into the merge, and no record of
// it read. The gradients run in TestPathDecisionRun.
func TestDecisionCondFixedPhi(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, "#include <math.h>\n"+pathKernels(t)+"int main(void) { return 0; }\n", "3")
	for _, split := range []bool{false, true} {
		d, r := reverseOf(t, m, "vnest", split, "fixed_vnest")
		seen := 0
		for b := range r.predIdx {
			tree, ok := r.pathDecision(b)
			if !ok || r.decidedByDominators(b) {
				continue
			}
			var walk func(x *decision)
			walk = func(x *decision) {
				if x == nil || x.pred != nil {
					return
				}
				walk(x.onTrue)
				walk(x.onFalse)
				if !readsFixedPhi(x.cond, x.phis, rematDepth) {
					return
				}
				seen++
				blk := ir.NewBlock("") // a scratch block
				r.decisionCond(blk, b, x.cond, x.phis)
				for _, inst := range blk.Insts {
					_, sel := inst.(*ir.InstSelect)
					ld, isLoad := inst.(*ir.InstLoad)
					if sel || (isLoad && ld.ElemType.String() == "i8") {
						t.Errorf("split=%v: %s's condition %s, with its phis fixed, is rebuilt through the way taken: %s", split, b.Ident(), x.cond.Ident(), inst.LLString())
					}
				}
			}
			walk(tree)
		}
		if seen == 0 {
			t.Errorf("split=%v: no path decision's condition reads a phi its path fixed", split)
		}
		d.dropFunc(r.g)
	}
}

// readsFixedPhi reports whether v, within depth operands, reads a phi
// that phis fixes.
func readsFixedPhi(v value.Value, phis map[*ir.InstPhi]value.Value, depth int) bool {
	if p, ok := v.(*ir.InstPhi); ok {
		return phis[p] != nil
	}
	inst, ok := v.(ir.Instruction)
	if !ok || depth < 0 {
		return false
	}
	for _, op := range inst.Operands() {
		if readsFixedPhi(*op, phis, depth-1) {
			return true
		}
	}
	return false
}
