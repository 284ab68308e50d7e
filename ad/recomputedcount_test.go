package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// TestRecomputedCountIR: at -O2, where clang leaves the particle nests'
// loops with != exit tests (steps 1 and 2, unrolled), the counter
// snapshots the reverse recomputes from those loops' header counts
// (recomputedEntryCount) clamp no negative distance: the loops ran to
// their bounds (cacheplan.ExitCount).
func TestRecomputedCountIR(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, particleC(t)+snapshotNests(t)+"int main(void) { return 0; }\n", "2")
	for _, name := range []string{"particles", "deep"} {
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, name, split, "count_"+name)
			seen := 0
			for ld, s := range r.snapOf {
				plan := r.planSnapshot(s)
				if s.at.Parent == nil || plan == nil || isCached(r, ld) {
					continue
				}
				ne := true
				for _, f := range plan.factors {
					ne = ne && f.tc.Pred == enum.IPredNE
				}
				if !ne {
					continue
				}
				blk := ir.NewBlock("") // a scratch block: the count as lookups emit it
				v, ok := r.recomputedEntryCount(blk, s.at.Header, ld, 0)
				if !ok {
					t.Errorf("%s (split %v): the counter of the loop at %s on entry to the loop at %s is not recomputed", name, split, s.src.Header.Ident(), s.at.Header.Ident())
					continue
				}
				seen++
				if negClamp(v, 12) {
					var insts []string
					for _, inst := range blk.Insts {
						insts = append(insts, inst.LLString())
					}
					t.Errorf("%s (split %v): the counter of the loop at %s on entry to the loop at %s clamps a negative distance:\n%s", name, split, s.src.Header.Ident(), s.at.Header.Ident(), strings.Join(insts, "\n"))
				}
			}
			if seen == 0 {
				t.Errorf("%s (split %v): no snapshot recomputed from != loops", name, split)
			}
			d.dropFunc(r.g)
		}
	}
}

// TestRecomputedCountRun: the gradients of the particle nests whose
// snapshots TestRecomputedCountIR inspects against central differences,
// with 1, 2, 3 and 8 particles (the loops unrolled by two run their
// remainder only, both, or their body only), at -O2 and -O3.
func TestRecomputedCountRun(t *testing.T) {
	t.Parallel()
	src := particleC(t) + snapshotNests(t) + testdataC(t, "recomputed_count.c")
	for _, o := range []string{"2", "3"} {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			for _, f := range []string{"particles", "deep", "deep_callee"} {
				if n := strings.Count(out, "tape "+f+" "); n != 4 {
					t.Errorf("-O%s: %s ran %d times, want 4:\n%s", o, f, n, out)
				}
			}
		})
	}
}
