package ad

import (
	"math"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// TestShadowClearedToPositiveZero: the reverse of a store clears the
// shadow of the overwritten location (an output buffer's seeds are consumed)
// to +0.0, not to the -0.0 adjoints start from inside the gradient, so what
// the caller reads back prints as 0 (signbit clear), as with Enzyme; the
// gradient itself is checked against central differences.
func TestShadowClearedToPositiveZero(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "shadow_cleared_to_positive_zero.c")
	for _, o := range optLevels {
		if out := run(t, buildC(t, src, o)); !strings.Contains(out, "ok") {
			t.Errorf("-O%s: %s", o, out)
		}
	}
}

// A read-modify-write of a buffer the function allocates (%buf), one of
// memory the caller passed in (%x), a store through a pointer that may
// be either (%either), and one through a pointer into %buf or null (%maybe,
// as an empty std::vector's data pointer: null is no store's address).
const rmwIR = `
define double @rmw_ir(double* %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %raw = call i8* @malloc(i64 %bytes)
  %buf = bitcast i8* %raw to double*
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %xip = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xip, align 8
  %bip = getelementptr inbounds double, double* %buf, i64 %i
  store double %xi, double* %bip, align 8
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %fill, label %upd
upd:
  %j = phi i64 [ 0, %fill ], [ %j.next, %upd ]
  %bjp = getelementptr inbounds double, double* %buf, i64 %j
  %bj = load double, double* %bjp, align 8
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %sq = fmul double %xj, %xj
  %bnew = fadd double %bj, %sq
  store double %bnew, double* %bjp, align 8
  %xneg = fmul double %xj, -2.0
  store double %xneg, double* %xjp, align 8
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %n
  br i1 %cj, label %upd, label %mix
mix:
  %b0 = load double, double* %buf, align 8
  %odd = icmp sgt i64 %n, 3
  %either = select i1 %odd, double* %buf, double* %x
  %e = load double, double* %either, align 8
  %e2 = fmul double %e, %b0
  store double %e2, double* %either, align 8
  %b1p = getelementptr inbounds double, double* %buf, i64 1
  %b1 = load double, double* %b1p, align 8
  %nz = icmp sgt i64 %n, 0
  %maybe = select i1 %nz, double* %b1p, double* null
  %m = load double, double* %maybe, align 8
  %m2 = fmul double %m, %m
  store double %m2, double* %maybe, align 8
  %s0 = fadd double %b0, %b1
  %s = fadd double %s0, %m2
  call void @free(i8* %raw)
  ret double %s
}
declare i8* @malloc(i64)
declare void @free(i8*)
`

// TestPrivateShadowClearedToNegativeZero: the reverse of a store into the
// function's own allocation clears the shadow to -0.0 (so the read-modify-
// write's clear-then-accumulate folds to the adjoint), while stores into the
// caller's memory, or into memory that may be the caller's, clear to +0.0.
func TestPrivateShadowClearedToNegativeZero(t *testing.T) {
	t.Parallel()
	eachReverse(t, rmwIR, []activity.Activity{activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
		want := map[string]float64{"bip": math.Copysign(0, -1), "bjp": math.Copysign(0, -1), "maybe": math.Copysign(0, -1), "xjp": 0, "either": 0}
		for _, b := range r.f.Blocks {
			for _, inst := range b.Insts {
				s, ok := inst.(*ir.InstStore)
				if !ok {
					continue
				}
				name := strings.TrimPrefix(s.Dst.Ident(), "%")
				w, ok := want[name]
				if !ok {
					t.Fatalf("unexpected store to %s", name)
				}
				c, ok := r.clearedShadow(s.Dst, s.Src.Type()).(*constant.Float)
				if !ok || c.X.Sign() != 0 || c.X.Signbit() != math.Signbit(w) {
					t.Errorf("split=%v: store to %%%s clears its shadow to %v, want %v", split, name, c, w)
				}
			}
		}
		// The reverse sweep emits those zeros: +0.0 is stored only where
		// the stores into the caller's memory are reversed (adjoints are
		// reset to -0.0 everywhere).
		pos := 0
		for _, b := range r.g.Blocks {
			for _, inst := range b.Insts {
				if s, ok := inst.(*ir.InstStore); ok {
					if c, ok := s.Src.(*constant.Float); ok && types.Equal(c.Typ, types.Double) && c.X.Sign() == 0 && !c.X.Signbit() {
						pos++
					}
				}
			}
		}
		if pos != 2 {
			t.Errorf("split=%v: %d stores of +0.0 in the reverse, want 2 (%%xjp, %%either)", split, pos)
		}
	})
}

// rmwSrc differentiates read-modify-writes: GMM's triangular update on a
// heap buffer and a stack array the function owns (their shadows are
// cleared to -0.0), rmw_ir both ways through its select, and an in-place
// update of the caller's memory whose unseeded adjoints must read back as
// +0.0 (0 * -2 added to a cleared +0.0; the private rule must not apply).
func rmwSrc(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "rmw.c")
}

// TestPrivateShadowRMWRun: the gradients of rmwSrc against central
// differences at every level, the caller's zeros positive, no leaks.
func TestPrivateShadowRMWRun(t *testing.T) {
	t.Parallel()
	runIRWants(t, rmwSrc(t), rmwIR, optLevels, true, "ok tri[4]", "ok rmw_ir3[2]", "ok rmw_ir5[4]", "ok scale[4]")
}
