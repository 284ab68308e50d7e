package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// remIR is a vectorized loop's shape inside an outer loop: a loop of two
// elements per iteration up to nvec = d & -2, skipped when d < 2, and a
// scalar remainder starting at a merge phi (0 when skipped, nvec after the
// vector loop), skipped when nvec = d. The guards and both start values
// are defined outside the outer loop, so the remainder's exact count is
// known on entry to the outer loop (entryInvariant, entryValue). Growth on
// entry also needs the branches deciding whether the loop runs known there
// (entryGuards: a count is computed only where the loop is entered, a
// vector loop's being meaningless where its guard skips it): the vector
// loop is behind one dominating invariant guard; the remainder is entered
// past mid's branch, which does not dominate it, where the paths from the
// outer loop's header lead to it (entryPaths: %small, or not %full). Both
// grow on entry to the outer loop.
const remIR = `
define double @rem_ir(double* %x, i64 %n, i64 %d) {
entry:
  %small = icmp ult i64 %d, 2
  %nvec = and i64 %d, -2
  %full = icmp eq i64 %nvec, %d
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %latch ]
  %xip = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xip, align 8
  br i1 %small, label %rem.pre, label %vec
vec:
  %k = phi i64 [ 0, %outer ], [ %k.next, %vec ]
  %va = phi double [ 0.0, %outer ], [ %va.next, %vec ]
  %xkp = getelementptr inbounds double, double* %x, i64 %k
  %xk = load double, double* %xkp, align 8
  %k1 = add nuw i64 %k, 1
  %xk1p = getelementptr inbounds double, double* %x, i64 %k1
  %xk1 = load double, double* %xk1p, align 8
  %p0 = fmul double %xk, %xi
  %e0 = call double @llvm.sin.f64(double %p0)
  %p1 = fmul double %xk1, %xi
  %e1 = call double @llvm.sin.f64(double %p1)
  %va1 = fadd double %va, %e0
  %va.next = fadd double %va1, %e1
  %k.next = add nuw i64 %k, 2
  %cv = icmp eq i64 %k.next, %nvec
  br i1 %cv, label %mid, label %vec
mid:
  br i1 %full, label %latch, label %rem.pre
rem.pre:
  %j0 = phi i64 [ 0, %outer ], [ %nvec, %mid ]
  %a0 = phi double [ 0.0, %outer ], [ %va.next, %mid ]
  br label %rem
rem:
  %j = phi i64 [ %j0, %rem.pre ], [ %j.next, %rem ]
  %a = phi double [ %a0, %rem.pre ], [ %a.next, %rem ]
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %p = fmul double %xj, %xi
  %e = call double @llvm.sin.f64(double %p)
  %a.next = fadd double %a, %e
  %j.next = add nuw nsw i64 %j, 1
  %cr = icmp eq i64 %j.next, %d
  br i1 %cr, label %latch, label %rem
latch:
  %acc = phi double [ %va.next, %mid ], [ %a.next, %rem ]
  %sq = fmul double %acc, %acc
  %s.next = fadd double %s, %sq
  %xin = fmul double %xi, 0.9
  store double %xin, double* %xip, align 8
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret double %s.next
}
declare double @llvm.sin.f64(double)
`

// TestGrowOnEntryMerge: where each loop of remIR grows its records. The
// vector loop grows on entry to the outer loop where its guard is
// invariant, on its own entry where the guard is decided inside the outer
// loop (the variant); so does the remainder, entered past a branch that
// does not dominate it (entryPaths).
func TestGrowOnEntryMerge(t *testing.T) {
	t.Parallel()
	variant := strings.Replace(remIR, "br i1 %small, label %rem.pre", "%smalli = icmp ult i64 %i, 2\n  br i1 %smalli, label %rem.pre", 1)
	for _, tc := range []struct {
		name, src string
		top       map[string]string // loop header -> header of the loop it grows on entry to
	}{
		{"invariant guard", remIR, map[string]string{"rem": "outer", "vec": "outer"}},
		{"guard in the loop", variant, map[string]string{"rem": "rem", "vec": "vec"}},
	} {
		eachReverse(t, tc.src, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
			for _, l := range r.cfg.Loops {
				want, ok := tc.top[l.Header.Name()]
				if !ok {
					continue
				}
				if r.loops[l].rec == nil {
					t.Errorf("%s split=%v: loop %s caches nothing", tc.name, split, l.Header.Name())
					continue
				}
				top, _, onEntry := r.entryGrowth(l)
				if !onEntry || top.Header.Name() != want {
					got := "none"
					if onEntry {
						got = top.Header.Name()
					}
					t.Errorf("%s split=%v: loop %s grows on entry to %s, want %s", tc.name, split, l.Header.Name(), got, want)
				}
			}
		})
	}
}

// TestGrowOnEntryMergeRun: rem_ir's gradient against central differences
// through each of its paths (d = 1: the remainder only; 5: vector loop and
// remainder; 6: the vector loop only; 7 after 6: the buffer grows again),
// called directly and from a caller (split; not at d = 1, where this
// harness's pipeline, which unrolls loops of unknown count before AD as
// gozyme's does not, leaves the skipped vector loop of the inlined copy an
// exact count of 2^62 that growth on entry traps on: a limitation from
// before this rule), and the same shape from C at -O2, where the
// vectorizer writes it.
func TestGrowOnEntryMergeRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "grow_on_entry_merge.c")
	runIRWants(t, src, remIR, []string{"0", "2"}, true,
		"ok rem_d1[6]", "ok rem_d5[6]", "ok rem_d6[6]", "ok rem_d7[6]", "ok rem_d2[6]", "ok callrem_d5[6]", "ok callrem_d2[6]", "ok centred[6]")
}
