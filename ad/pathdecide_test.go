package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
)

// pathKernels: steps around loops the vectorizer splits into a vector body
// and a scalar remainder (pathdecide.go). In vsteps and vlast the trip
// count m is the same in every step: the joins after the vector loops are
// decided by min.iters.check, the alias check and cmp.n, computed before
// the step loop, and by the remainder's start (a phi the path fixes); they
// keep no record per step. vlast's loop has a live-out value, which the
// join merges from the vector and the scalar loop. vsum's reduction is not
// vectorized (no fast-math) but unrolled with a remainder, whose joins the
// dominating branches decide (decide.go). In vdata the trip count depends
// on data each step changes: its joins keep their record.
func pathKernels(t *testing.T) string {
	t.Helper()
	return testdataC(t, "path_kernels.c")
}

// pathRuns differentiates pathKernels with m = n/2 below, at and above the
// vector width (4 doubles at -O2: VF 2, interleaved twice), combined and
// as callees.
func pathRuns(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + pathKernels(t) + testdataC(t, "path_runs.c")
}

// The gradients through every way past the vector loops match central
// differences at -O2 and -O3 (where the vectorizer splits the loops), and
// at -O0 and -O1 (where the joins are the plain zero-trip guards).
func TestPathDecisionRun(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, pathRuns(t), o)) })
	}
}

// At -O2, the joins after vsteps' and vsum's vector loops are decided by
// paths (no record of the way taken in the step loop); vdata keeps one.
func TestPathDecisionIR(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, "#include <math.h>\n"+pathKernels(t)+"int main(void) { return 0; }\n", "2")
	for _, tc := range []struct {
		name         string
		record, path bool
	}{{"vsteps", false, true}, {"vlast", false, true}, {"vsum", false, false}, {"vnest", false, true}, {"vdata", true, false}} {
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, tc.name, split, "paths_"+tc.name)
			records, paths := 0, 0
			for b, phi := range r.predIdx {
				if r.cfg.LoopOf[b] == nil {
					continue
				}
				if isCached(r, phi) {
					records++
				}
				if _, ok := r.pathDecision(b); ok && !r.decidedByDominators(b) {
					paths++
				}
			}
			if (records > 0) != tc.record {
				t.Errorf("%s (split %v): %d records of the way taken cached in loops, want some: %v", tc.name, split, records, tc.record)
			}
			if tc.path && paths == 0 {
				t.Errorf("%s (split %v): no join in a loop decided by its paths", tc.name, split)
			}
			d.dropFunc(r.g)
		}
	}
}

// decidedByDominators reports whether the rules before pathDecision decide
// b (reverseBlock's order).
func (r *reverseGen) decidedByDominators(b *ir.Block) bool {
	if _, ok := r.entryCount[b]; ok {
		return true
	}
	if _, _, _, _, ok := r.triangle(b); ok {
		return true
	}
	if _, _, _, ok := r.diamond(b); ok {
		return true
	}
	if _, _, _, ok := r.decidingBranch(b); ok {
		return true
	}
	_, ok := r.decisionTree(b)
	return ok && len(r.cfg.Preds[b]) > 2
}

// pdxIR: an outer loop whose step runs an inner loop (no affine exit
// value: i += st, st = 3 - st) under a guard invariant in the outer loop,
// then branches on the inner loop's exit value to P or straight to R.
const pdxIR = `
define double @pdx_ir(double* %x, i64 %n) {
entry:
  br label %outer
outer:
  %s = phi i64 [ 0, %entry ], [ %s.next, %R ]
  %e = phi double [ 0.0, %entry ], [ %e.next, %R ]
  %k = sub i64 %n, %s
  %c = icmp sgt i64 %n, 2
  br i1 %c, label %loop, label %R
loop:
  %i = phi i64 [ 0, %outer ], [ %i.next, %loop ]
  %st = phi i64 [ 1, %outer ], [ %st.next, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p
  %v2 = fmul double %v, %v
  store double %v2, double* %p
  %i.next = add i64 %i, %st
  %st.next = sub i64 3, %st
  %km1 = sub i64 %n, 1
  %lc = icmp slt i64 %i.next, %km1
  br i1 %lc, label %loop, label %after
after:
  %eq = icmp eq i64 %i.next, %km1
  br i1 %eq, label %R, label %P
P:
  %x0 = load double, double* %x
  %xsp0 = getelementptr inbounds double, double* %x, i64 %s
  %xs0 = load double, double* %xsp0
  %sx0 = call double @llvm.sin.f64(double %x0)
  %m0 = fmul double %sx0, %xs0
  store double %m0, double* %x
  br label %R
R:
  %xsp = getelementptr inbounds double, double* %x, i64 %s
  %xs = load double, double* %xsp
  %sxs = call double @llvm.sin.f64(double %xs)
  %lastp = getelementptr inbounds double, double* %x, i64 %k
  %lastp1 = getelementptr inbounds double, double* %lastp, i64 -1
  %last = load double, double* %lastp1
  %t = fmul double %sxs, %last
  %e.next = fadd double %e, %t
  %xs2 = fmul double %xs, 0.5
  store double %xs2, double* %xsp
  %s.next = add i64 %s, 1
  %oc = icmp slt i64 %s.next, %n
  br i1 %oc, label %outer, label %exit
exit:
  ret double %e.next
}
declare double @llvm.sin.f64(double)
`

// TestPathDecisionExitValueRun: the join R after an inner loop is decided
// by paths (pathdecide.go) from the invariant guard n > 2 and the branch on
// the loop's exit value (i.next == n-1, i stepping 1, 2, 1, ...). Passing
// the loop whole, the walk must not keep its header phis fixed to their
// first iteration's values and evaluate the branch with i = 0 (the gradient
// at n = 4, 5 then misses the way through P). testdata/path_exit_value.c
// drives pdxIR at -O0 and -O2.
func TestPathDecisionExitValueRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "path_exit_value.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, src, pdxIR, o)) })
	}
}
