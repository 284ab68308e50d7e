package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// A nest with exact trip counts (signed compares, bounds from arguments):
// the inner loop's records are reserved on entry to the outer loop, and
// neither forward header tests the capacity. The outer loop's own records
// (the accumulator, read after the inner loop) are reserved on its entry
// too.
const nestIR = `
define double @nest(double* %x, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %latch ]
  %xip = getelementptr inbounds double, double* %x, i64 %i
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %acc = phi double [ 0.0, %outer ], [ %acc.next, %inner ]
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %xi = load double, double* %xip, align 8
  %p = fmul double %xj, %xi
  %e = call double @llvm.exp.f64(double %p)
  %acc.next = fadd double %acc, %e
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %latch
latch:
  %old = load double, double* %xip, align 8
  %new = fmul double %old, %acc.next
  store double %new, double* %xip, align 8
  %s.next = fadd double %s, %new
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret double %s.next
}
declare double @llvm.exp.f64(double)
`

// twoEdgeIR is nestIR entered by a branch whose two edges both lead into
// the outer loop's header: there is no single edge to route through a
// growth check, so the records keep their per-iteration test.
var twoEdgeIR = strings.NewReplacer("@nest(", "@nest2(",
	"entry:\n  br label %outer\n", "entry:\n  %c0 = icmp sgt i64 %n, 0\n  br i1 %c0, label %outer, label %outer\n",
	"%i = phi i64 [ 0, %entry ],", "%i = phi i64 [ 0, %entry ], [ 0, %entry ],",
	"%s = phi double [ 0.0, %entry ],", "%s = phi double [ 0.0, %entry ], [ 0.0, %entry ],").Replace(nestIR)

// TestGrowOnEntry: with exact trip counts the forward headers branch
// straight into their loop bodies (no capacity test, no call in the loop);
// the unsigned compare of recordIR keeps its per-iteration test, and so
// does twoEdgeIR, entered by two edges.
func TestGrowOnEntry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		acts      []activity.Activity
		onEntry   bool
	}{
		{"nest", nestIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, true},
		{"rec_ir", recordIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, false},
		{"two_edges", twoEdgeIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, false},
	} {
		eachReverse(t, tc.src, tc.acts, func(r *reverseGen, split bool) {
			records := 0
			for _, l := range r.cfg.Loops {
				if r.loops[l].rec == nil {
					continue
				}
				records++
				_, straight := r.fwdHead[l.Header].Term.(*ir.TermBr)
				if straight != tc.onEntry {
					t.Errorf("%s split=%v: loop %s: forward header ends in %s, want growth on entry %v",
						tc.name, split, l.Header.Ident(), r.fwdHead[l.Header].Term.LLString(), tc.onEntry)
				}
			}
			if records == 0 {
				t.Errorf("%s split=%v: no loop caches anything", tc.name, split)
			}
		})
	}
}

// TestGrowOnEntryRun: gradients against central differences where records
// are reserved on entry: a rectangular nest (once per entry of the outer
// loop, which a while loop enters again and again, so the buffer grows
// between entries), a triangular one (the inner loop's start depends on
// the outer index: reserved on each entry of the inner loop), a loop with
// a negative step, and calls to all three (split mode at -O0).
func TestGrowOnEntryRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "grow_on_entry.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestGrowOnEntryGuardSkipsRun: testdata/entry_growth_guarded.c, a nest
// whose innermost loop is skipped by its guard on some entries. Without
// the entry guards (entrygrow.go) it traps at -O1 for n = 1..3: growth on
// entry to the s loop multiplied the inner loop's header count from
// zext(m), m = n/2 - r < 0 where the guard m > 0 skips the loop, and asked
// for 2^62 records. Gradients against central differences at every level.
func TestGrowOnEntryGuardSkipsRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "entry_growth_guarded.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
