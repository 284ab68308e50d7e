package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// A loop whose body picks y by an if: x[i]² on one side, x[i] + 1 on the
// other (computed on the way in, neither dominating the merge), and z: a
// load on one side (it may not be loaded on the other path), 0 otherwise.
// x[i] is overwritten, so the loop caches it; y is rebuilt from it in the
// reverse sweep (a select over the recomputed arms), z stays cached.
const edgePhiIR = `
define double @edge_ir(double* %x, double* %w, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %latch ]
  %xp = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xp, align 8
  %c = fcmp ogt double %xi, 5.000000e-01
  br i1 %c, label %then, label %else
then:
  %sq = fmul double %xi, %xi
  %wp = getelementptr inbounds double, double* %w, i64 %i
  %wi = load double, double* %wp, align 8
  br label %latch
else:
  %inc = fadd double %xi, 1.000000e+00
  %inc2 = fmul double %inc, %xi
  br label %latch
latch:
  %y = phi double [ %sq, %then ], [ %inc2, %else ]
  %z = phi double [ %wi, %then ], [ 0.0, %else ]
  %yy = fmul double %y, %y
  %zy = fmul double %z, %xi
  %t = fadd double %yy, %zy
  %acc.next = fadd double %acc, %t
  %half = fmul double %xi, 5.000000e-01
  store double %half, double* %xp, align 8
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %loop, label %exit
exit:
  ret double %acc.next
}
`

// TestEdgePhiRecomputed: the merge phi %y, whose incoming values are
// computed in the branches, is not cached (nor are its arms) but rebuilt
// from the cached x[i]; %z, whose incoming value is a load on one path
// only, stays cached. Combined and split.
func TestEdgePhiRecomputed(t *testing.T) {
	t.Parallel()
	eachReverse(t, edgePhiIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
		cachedIn := func(name string) bool {
			v := findValue(r.f, name)
			if r.plan.cache[v] {
				return true
			}
			for _, l := range r.cfg.Loops {
				for fv := range r.loops[l].fields {
					if r.primalOf[fv] == v {
						return true
					}
				}
			}
			return false
		}
		for _, name := range []string{"y", "sq", "inc", "inc2"} {
			if cachedIn(name) {
				t.Errorf("split=%v: %%%s cached", split, name)
			}
		}
		if !r.plan.recompute[findValue(r.f, "y")] {
			t.Errorf("split=%v: %%y not planned for recomputation", split)
		}
		if !cachedIn("z") {
			t.Errorf("split=%v: %%z (a load on one path) not cached", split)
		}
	})
}

// The gradient of edge_ir against central differences, both ways through
// the branch, with w's loads (only on one path) active too.
func TestEdgePhiRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "edge_phi.c")
	runIRWants(t, src, edgePhiIR, optLevels, true, "ok edge[6]")
}
