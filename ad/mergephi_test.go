package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// A loop nest whose inner loop starts where a merge phi says (k or 0, by
// a condition computed before the loops, as a vectorized loop's remainder
// starts where the vector loop stopped). The reverse rebuilds the inner
// induction variable from that start: a select, not a cached start per
// outer iteration.
const mergeIR = `
define double @merge_ir(double* %x, i64 %n, i64 %k) {
entry:
  %flag = icmp sgt i64 %k, 2
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %acc.next, %latch ]
  br i1 %flag, label %skip, label %merge
skip:
  br label %merge
merge:
  %start = phi i64 [ %k, %skip ], [ 0, %outer ]
  br label %inner
inner:
  %j = phi i64 [ %start, %merge ], [ %j.next, %inner ]
  %acc = phi double [ %s, %merge ], [ %acc.next, %inner ]
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %sq = fmul double %xj, %xj
  %t = fmul double %sq, 0.5
  store double %t, double* %xjp, align 8
  %acc.next = fadd double %acc, %sq
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %n
  br i1 %cj, label %inner, label %latch
latch:
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, 3
  br i1 %ci, label %outer, label %exit
exit:
  ret double %acc.next
}
`

// TestMergePhiRecomputed: no loop caches %start (it is rebuilt as a select
// on %flag), combined and split.
func TestMergePhiRecomputed(t *testing.T) {
	t.Parallel()
	eachReverse(t, mergeIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
		start := findValue(r.f, "start")
		for _, l := range r.cfg.Loops {
			for fv := range r.loops[l].fields {
				if r.primalOf[fv] == start {
					t.Errorf("split=%v: loop %s caches %%start", split, l.Header.Ident())
				}
			}
		}
		if s, ok := r.slots[r.vmap[start]]; ok {
			t.Errorf("split=%v: %%start cached in %s", split, s.Ident())
		}
	})
}

// The gradient of merge_ir, both ways through the merge, against central
// differences.
func TestMergePhiRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "merge_phi.c")
	runIRWants(t, src, mergeIR, optLevels, false, "ok merge1[5]", "ok merge3[5]")
}
