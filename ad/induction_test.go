package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// TestInductionRun: the nests' gradients match central differences at
// every level, combined and split, with 1 to 12 coordinates (inner loops
// of up to 11 iterations: no vector loop, no remainder, both, and at -O2
// the unrolled vector loop skipped, run, and followed by its epilogue),
// and leak nothing.
func TestInductionRun(t *testing.T) {
	t.Parallel()
	runSizes(t, triNests(t), "DIM", []string{"1", "2", "3", "5", "9", "12"},
		[]string{"ok tri[159]", "ok trili[29]", "ok trili[79]", "ok cntli[11]", "ok tri_callee[159]", "ok trili_callee[29]"})
}

// triIR is the shape -O2 gives a triangular nest over a row of l,
// for (i = 0; i < d-1; i++) for (j = i+1; j < d; j++) q[j] += l[i·d+j]·x[i]:
// the rotated outer loop keeps i beside i+1 (%i lags %i1 by one
// iteration); the inner loop runs as a "vector" loop over a multiple of 4
// (here one element per iteration, the shape is what matters) and a scalar
// remainder starting at a merge phi, i+1 when the vector loop was skipped,
// where it stopped otherwise. x[i] is overwritten, so the outer loop caches
// it; every integer is an affine function of the loops' counters (i, i+1,
// the remainder's start and its induction variables) and is recomputed.
const triIR = `
define double @tri_ir(double* noalias %l, double* noalias %x, double* noalias %q, i64 %d) {
entry:
  %go = icmp sgt i64 %d, 1
  br i1 %go, label %outer, label %exit
outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %i1 = phi i64 [ 1, %entry ], [ %i1.next, %latch ]
  %xp = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xp, align 8
  %xs = fmul double %xi, %xi
  store double %xs, double* %xp, align 8
  %row = mul nsw i64 %i, %d
  %n = sub nsw i64 %d, %i1
  %small = icmp ult i64 %n, 4
  br i1 %small, label %scalar.ph, label %vector.ph
vector.ph:
  %nvec = and i64 %n, -4
  %ind.end = add i64 %i1, %nvec
  br label %vector
vector:
  %k = phi i64 [ 0, %vector.ph ], [ %k.next, %vector ]
  %vj = add i64 %i1, %k
  %vlo = add i64 %row, %vj
  %vlp = getelementptr inbounds double, double* %l, i64 %vlo
  %vl = load double, double* %vlp, align 8
  %vqp = getelementptr inbounds double, double* %q, i64 %vj
  %vq = load double, double* %vqp, align 8
  %vm = fmul double %vl, %xi
  %vs = fadd double %vq, %vm
  store double %vs, double* %vqp, align 8
  %k.next = add nuw i64 %k, 1
  %vdone = icmp eq i64 %k.next, %nvec
  br i1 %vdone, label %middle, label %vector
middle:
  %all = icmp eq i64 %n, %nvec
  br i1 %all, label %latch, label %scalar.ph
scalar.ph:
  %j.ph = phi i64 [ %i1, %outer ], [ %ind.end, %middle ]
  br label %scalar
scalar:
  %j = phi i64 [ %j.ph, %scalar.ph ], [ %j.next, %scalar ]
  %lo = add i64 %row, %j
  %lp = getelementptr inbounds double, double* %l, i64 %lo
  %lv = load double, double* %lp, align 8
  %qp = getelementptr inbounds double, double* %q, i64 %j
  %qv = load double, double* %qp, align 8
  %m = fmul double %lv, %xi
  %s = fadd double %qv, %m
  store double %s, double* %qp, align 8
  %j.next = add nuw nsw i64 %j, 1
  %sdone = icmp eq i64 %j.next, %d
  br i1 %sdone, label %latch, label %scalar
latch:
  %i1.next = add nuw nsw i64 %i1, 1
  %odone = icmp eq i64 %i1.next, %d
  br i1 %odone, label %exit, label %outer
exit:
  %q0 = load double, double* %q, align 8
  ret double %q0
}
`

// TestInductionRecordIR: no loop of the triangular nest caches an integer
// but the byte of a way taken (the join after the vector loop and its
// remainder); the outer loop caches x[i], the inner loops nothing (split,
// the reverse reads l from its cache rather than from memory).
func TestInductionRecordIR(t *testing.T) {
	t.Parallel()
	eachReverse(t, triIR, []activity.Activity{activity.Dup, activity.Dup, activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
		outer := r.cfg.LoopOf[r.blockOf[findValue(r.f, "i")]]
		for _, l := range r.cfg.Loops {
			lc := r.loops[l]
			floats := 0
			for v := range lc.fields {
				switch x := v.Type().(type) {
				case *types.FloatType:
					floats++
				case *types.IntType:
					if x.BitSize > 8 {
						t.Errorf("split=%v: the loop at %s caches integer %s", split, l.Header.Ident(), v.Ident())
					}
				}
			}
			switch {
			case l == outer && floats != 1:
				t.Errorf("split=%v: the outer loop's record %v, want x[i]", split, lc.rec)
			case l != outer && floats > 0 && !split:
				t.Errorf("split=%v: the loop at %s caches %s", split, l.Header.Ident(), lc.rec)
			}
		}
	})
}

// TestInductionNestsIR: at every level, no loop of tri caches an integer
// but the byte of a way taken: i, i+1, the remainder loops' starts (merge
// phis) and, at -O2 and -O3, the exit value of the unrolled vector loop's
// index (0 when it was skipped) are all rebuilt from loop counters and
// trip counts. trili keeps at most its running index li (not affine: it
// grows by the inner trip count), as a header phi of the loop around it.
func TestInductionNestsIR(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		m := preADModuleC(t, triNests(t), o)
		for _, name := range []string{"tri", "trili"} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, name, split, "ind_"+name)
				for _, l := range r.cfg.Loops {
					wide := 0
					for v := range r.loops[l].fields {
						it, ok := v.Type().(*types.IntType)
						if !ok || it.BitSize <= 8 {
							continue
						}
						p, isPhi := r.primalOf[v].(*ir.InstPhi)
						if name == "tri" || !isPhi || r.blockOf[p] != l.Header || wide > 0 {
							t.Errorf("-O%s %s (split %v): the loop at %s caches %s", o, name, split, l.Header.Ident(), v.Ident())
						}
						wide++
					}
				}
				d.dropFunc(r.g)
			}
		}
	}
}

// triNests are GMM-like loop nests over components c: xc and q are
// rewritten per component (so the reverse needs xc[i] of each one, cached)
// and q[j] accumulates a strictly lower triangle. tri indexes the triangle
// by i and j; trili by a running index li carried from one i-iteration to
// the next through the inner loop's exit value, starting at an affine
// function of c (GMM's l[li++]). At -O2 the inner loop is vectorized with
// a scalar remainder whose start is a merge phi, and the rotated i-loop
// keeps i beside i+1. cntli carries its index through an inner loop whose
// count is data (read from cnt): no trip count, no affine form.
func triNests(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "tri_nests.c")
}

// lagIR: a rotated loop's %i lags %i1 by one iteration with the start
// that makes it i (affine: rebuilt from the counter); %w lags %i1 too but
// starts at 3 (3, 1, 2, ...: not affine, it must stay cached). x[i] is
// overwritten after x[i] and x[w] are read.
const lagIR = `
define double @lag_ir(double* noalias %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %i1 = phi i64 [ 1, %entry ], [ %i1.next, %loop ]
  %w = phi i64 [ 3, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %xp = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %xp, align 8
  %wp = getelementptr inbounds double, double* %x, i64 %w
  %u = load double, double* %wp, align 8
  %p = fmul double %v, %u
  %q = fadd double %p, 0.5
  store double %q, double* %xp, align 8
  %s.next = fadd double %s, %p
  %i1.next = add nuw i64 %i1, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}
`

// TestLaggingInductionIR: %i is not cached, %w is.
func TestLaggingInductionIR(t *testing.T) {
	t.Parallel()
	eachReverse(t, lagIR, []activity.Activity{activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
		i, w := r.vmap[findValue(r.f, "i")], r.vmap[findValue(r.f, "w")]
		if isCached(r, i) {
			t.Errorf("split=%v: %%i is cached", split)
		}
		if !isCached(r, w) {
			t.Errorf("split=%v: %%w is not cached", split)
		}
	})
}

// TestLaggingInductionRun: lag_ir's gradient against central differences.
func TestLaggingInductionRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "lagging_induction.c")
	runIRWants(t, src, lagIR, optLevels, false, "ok lag[8]")
}
