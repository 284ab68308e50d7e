package ad

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// pickLoopIR is a running maximum (or minimum) of x[i], each overwritten
// after it is read, so that x[i] and the running value %mx (a header phi)
// are both values the forward sweep must cache if the reverse needs them.
// $CALL is the max/min call, $USE what else the loop does with %mx and
// %xi.
const pickLoopIR = `
define double @pick_ir(double* %x, i64 %n) {
entry:
  %x0 = load double, double* %x, align 8
  br label %loop
loop:
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %mx = phi double [ %x0, %entry ], [ %mx.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %p, align 8
  $CALL
  $USE
  %half = fmul double %xi, 5.000000e-01
  store double %half, double* %p, align 8
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = fadd double %mx.next, %s.next
  ret double %r
}
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.minnum.f64(double, double)
declare double @fmin(double, double)
`

// TestPickCachedNotOperands: the reverse of a max/min loop caches one bit
// per iteration (the call's pick) and neither operand when nothing else
// needs them; where one operand is needed anyway it caches that and the
// bit; where both are, it caches both and recomputes the bit from them.
// A select(fcmp) maximum caches its condition alike. Combined and split.
func TestPickCachedNotOperands(t *testing.T) {
	t.Parallel()
	const maxnum = `%mx.next = call double @llvm.maxnum.f64(double %mx, double %xi)`
	const noUse = `%s.next = fadd double %s, 1.000000e+00`
	for _, tc := range []struct {
		name, call, use string
		pickCached      bool     // the pick is cached (else recomputed)
		cached          []string // primal values cached
		bits, doubles   int      // the loop record's i1 and double fields
	}{
		{"maxnum", maxnum, noUse, true, nil, 1, 0},
		{"minnum swapped", `%mx.next = call double @llvm.minnum.f64(double %xi, double %mx)`, noUse, true, nil, 1, 0},
		{"libm fmin", `%mx.next = call double @fmin(double %mx, double %xi)`, noUse, true, nil, 1, 0},
		{"one needed", maxnum, `%sq = fmul double %xi, %xi
  %s.next = fadd double %s, %sq`, true, []string{"xi"}, 1, 1},
		{"both needed", maxnum, `%pr = fmul double %xi, %mx
  %s.next = fadd double %s, %pr`, false, []string{"xi", "mx"}, 0, 2},
		{"select", `%gt = fcmp ogt double %xi, %mx
  %mx.next = select i1 %gt, double %xi, double %mx`, noUse, false, []string{"gt"}, 1, 0},
	} {
		src := strings.NewReplacer("$CALL", tc.call, "$USE", tc.use).Replace(pickLoopIR)
		eachReverse(t, src, []activity.Activity{activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
			what := fmt.Sprintf("%s (split %v)", tc.name, split)
			if call, ok := findValue(r.f, "mx.next").(*ir.InstCall); ok {
				p := r.d.pickOf(call)
				if len(p) == 0 {
					t.Fatalf("%s: no pick", what)
				}
				// Cached: the bit, or (where one operand is cached anyway)
				// the comparison that needs the other.
				got := false
				for _, inst := range p {
					got = got || r.plan.cache[inst.(value.Value)]
				}
				if got != tc.pickCached {
					t.Errorf("%s: pick cached %v, want %v", what, got, tc.pickCached)
				}
				if bit := p[len(p)-1].(value.Value); !tc.pickCached && !r.plan.recompute[bit] {
					t.Errorf("%s: pick neither cached nor recomputed", what)
				}
			}
			want := map[string]bool{}
			for _, name := range tc.cached {
				want[name] = true
			}
			for _, name := range []string{"xi", "mx", "gt"} {
				if !strings.Contains(src, "%"+name+" =") {
					continue
				}
				v := findValue(r.f, name)
				if got := isCached(r, r.mapValue(v)); got != want[name] {
					t.Errorf("%s: %%%s cached %v, want %v", what, name, got, want[name])
				}
			}
			bits, doubles := 0, 0
			for _, l := range r.cfg.Loops {
				if rec := r.loops[l].rec; rec != nil {
					for _, f := range rec.Fields {
						switch {
						case f.Equal(types.I1):
							bits++
						case f.Equal(types.Double):
							doubles++
						}
					}
				}
			}
			if bits != tc.bits || doubles != tc.doubles {
				t.Errorf("%s: the loop records %d bits and %d doubles, want %d and %d", what, bits, doubles, tc.bits, tc.doubles)
			}
			r.d.dropFunc(r.g)
		})
	}
}

// pickRuns are max/min loops whose reverse reads picks: a GMM-like
// log-sum-exp per row of an overwritten buffer (K columns, the max loop
// not unrolled), a running max and min with ties and NaNs (the adjoint
// goes to fmax's or fmin's first argument on a tie, to the other on a NaN,
// as the rule always did: checked against the analytic gradient), and a
// max loop that needs its operands anyway.
func pickRuns(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "pick_runs.c")
}

// TestPickRun: the gradients of max/min loops whose reverse reads picks
// match central differences, and on ties and NaNs the analytic gradient
// of the rule, at every level, combined and split, with rows of 1 to 9
// columns; and leak nothing.
func TestPickRun(t *testing.T) {
	t.Parallel()
	runSizes(t, pickRuns(t), "K", []string{"1", "3", "4", "9"}, []string{"ok lserows[39]", "ok lserows_callee[11]",
		"ok maxprod[8]", "ok maxprod_callee[8]", "ok tie[5]", "ok distinct[5]", "ok nan[4]"})
}

// pickScalarIR is fmax of two arguments, no loop: the pick is recomputed
// from the operands in the reverse.
const pickScalarIR = `
define double @pick_scalar(double %a, double %b) {
entry:
  %m = call double @llvm.maxnum.f64(double %a, double %b)
  %r = fmul double %m, 3.000000e+00
  ret double %r
}
declare double @llvm.maxnum.f64(double, double)
`

// TestPickRouteIR: the reverse of fmax/fmin sends the adjoint to the
// argument returned through a select on the pick (d or +0), one per
// active argument, with no 0/1 partial multiplied by the adjoint: where
// the pick is cached per iteration (a running max) and where it is
// recomputed from the operands (no loop), combined and split.
func TestPickRouteIR(t *testing.T) {
	t.Parallel()
	loop := strings.NewReplacer("$CALL", `%mx.next = call double @llvm.maxnum.f64(double %mx, double %xi)`,
		"$USE", `%s.next = fadd double %s, 1.000000e+00`).Replace(pickLoopIR)
	for _, tc := range []struct {
		name, src string
		acts      []activity.Activity
	}{
		{"loop", loop, []activity.Activity{activity.Dup, activity.Const}},
		{"scalar", pickScalarIR, []activity.Activity{activity.Out, activity.Out}},
	} {
		eachReverse(t, tc.src, tc.acts, func(r *reverseGen, split bool) {
			routes := 0
			conds := map[value.Value]int{}
			for _, f := range []*ir.Func{r.g} {
				for _, b := range f.Blocks {
					for _, inst := range b.Insts {
						switch x := inst.(type) {
						case *ir.InstSelect:
							if !x.Typ.Equal(types.Double) {
								continue
							}
							zx, zy := isFloatZero(x.ValueTrue), isFloatZero(x.ValueFalse)
							_, cx := x.ValueTrue.(constant.Constant)
							_, cy := x.ValueFalse.(constant.Constant)
							switch {
							case cx && cy:
								t.Errorf("%s (split %v): a 0/1 partial in %s: %s", tc.name, split, f.Name(), x.LLString())
							case zx != zy:
								routes++
								conds[x.Cond]++
							}
						}
					}
				}
			}
			if routes < 2 {
				t.Errorf("%s (split %v): %d selects route the adjoint, want one per argument", tc.name, split, routes)
			}
			for c, n := range conds {
				if n%2 != 0 {
					t.Errorf("%s (split %v): pick %s routes %d adjoints, want both arguments'", tc.name, split, c.Ident(), n)
				}
			}
			r.d.dropFunc(r.g)
		})
	}
}

// isFloatZero reports whether v is a floating-point constant zero (the
// pick's -0 or +0).
func isFloatZero(v value.Value) bool {
	c, ok := v.(*constant.Float)
	return ok && c.X.Sign() == 0
}

// TestPickRouteRun: with an infinite adjoint or tangent the argument fmax
// or fmin did not return gets exactly 0 (a 0/1 partial times infinity was
// NaN), in reverse mode (two arguments, and a running max over an array
// with a tie) and forward mode; with finite ones the forward-mode
// derivative matches central differences; at every level.
func TestPickRouteRun(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "pick_route.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if n := strings.Count(out, "ok "); n != 14 {
				t.Errorf("-O%s: %d checks passed, want 14:\n%s", o, n, out)
			}
		})
	}
}

// TestPickZeroRun: the argument fmax or fmin did not return gets -0, the
// exact additive identity: a shadow holding -0 keeps it (adding +0 made it
// +0), in reverse mode (two arguments, and a running max over an array
// with a tie) and in forward mode (a tangent of -0 stays -0); the other
// derivatives match central differences (the tie's exactly); at every
// level.
func TestPickZeroRun(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "pick_zero.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if n := strings.Count(out, "ok "); n != 15 {
				t.Errorf("-O%s: %d checks passed, want 15:\n%s", o, n, out)
			}
		})
	}
}

// TestPickVectorRun: fmax/fmin routing where LLVM vectorizes the calls
// (llvm.maxnum/minnum on vectors of double and float) with an infinite
// adjoint in one lane, ties, NaNs and signed zeros; fmaxl; a NaN adjoint
// (testdata/pick_vector.c); at every level, values exact, all 58 checks.
func TestPickVectorRun(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "pick_vector.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if n := strings.Count(out, "ok "); n != 58 {
				t.Errorf("-O%s: %d checks passed, want 58:\n%s", o, n, out)
			}
		})
	}
}
