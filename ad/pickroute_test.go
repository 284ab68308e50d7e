package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

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
	loop := strings.NewReplacer("$CALL", `%mx.next = call double @llvm.maxnum.f64(double %mx, double %xi)`,
		"$USE", `%s.next = fadd double %s, 1.000000e+00`).Replace(pickLoopIR)
	for _, tc := range []struct {
		name, src string
		acts      []Activity
	}{
		{"loop", loop, []Activity{Dup, Const}},
		{"scalar", pickScalarIR, []Activity{Out, Out}},
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
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct { double a, b; } Pair;
Pair __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_v(void *, ...) __asm__("__enzyme_autodiff");
__attribute__((noinline)) double hugemax(double a, double b) { return HUGE_VAL * fmax(a, b); }
__attribute__((noinline)) double hugemin(double a, double b) { return HUGE_VAL * fmin(b, a); }
__attribute__((noinline)) double runmax(double *x, int n) {
	double mx = x[0];
	for (int i = 1; i < n; i++) mx = fmax(mx, x[i]);
	return HUGE_VAL * mx;
}
__attribute__((noinline)) double plainmax(double a, double b) { return fmax(a, b); }
__attribute__((noinline)) double mix(double a, double b) { return fmax(a * a, b) + fmin(a, 2 * b); }
static void exact(const char *what, double got, double want) {
	if (!(got == want)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s\n", what);
}
int main(void) {
	volatile double a = 1.5, b = -0.5;
	Pair g = __enzyme_autodiff((void *)hugemax, enzyme_out, a, enzyme_out, b);
	exact("max da", g.a, HUGE_VAL);
	exact("max db", g.b, 0);
	g = __enzyme_autodiff((void *)hugemin, enzyme_out, a, enzyme_out, b);
	exact("min da", g.a, 0);
	exact("min db", g.b, HUGE_VAL);
	/* the running max keeps x[1] on the tie with x[3] */
	double x[5] = {1, 3, -2, 3, 0.5}, dx[5] = {0};
	__enzyme_autodiff_v((void *)runmax, enzyme_dup, x, dx, enzyme_const, 5);
	for (int i = 0; i < 5; i++) {
		char what[32];
		snprintf(what, sizeof what, "runmax dx[%d]", i);
		exact(what, dx[i], i == 1 ? HUGE_VAL : 0);
	}
	exact("fwd max", __enzyme_fwddiff((void *)hugemax, a, 1.0, b, 0.0), HUGE_VAL);
	exact("fwd max, the other infinite", __enzyme_fwddiff((void *)plainmax, a, 1.0, b, HUGE_VAL), 1.0);
	double h = 1e-6, pts[3][2] = {{1.5, -0.5}, {0.3, 0.8}, {-1.2, 0.4}};
	for (int k = 0; k < 3; k++) {
		double p = pts[k][0], q = pts[k][1];
		double fd = (mix(p + 0.3 * h, q - 0.7 * h) - mix(p - 0.3 * h, q + 0.7 * h)) / (2 * h);
		check("fwd mix", __enzyme_fwddiff((void *)mix, p, 0.3, q, -0.7), fd, 1e-6);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if n := strings.Count(out, "ok "); n != 14 {
				t.Errorf("-O%s: %d checks passed, want 14:\n%s", o, n, out)
			}
		})
	}
}
