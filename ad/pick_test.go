package ad

import (
	"fmt"
	"strings"
	"testing"

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
		eachReverse(t, src, []Activity{Dup, Const}, func(r *reverseGen, split bool) {
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
const pickRuns = loopRunPrelude + `
int K = 4; /* columns: a global, so that the loops stay loops */
__attribute__((noinline)) double lserows(double *x, int n) {
	double w[16], t = 0;
	int k = K;
	for (int r = 0; r + k <= n; r += k) {
		for (int j = 0; j < k; j++) w[j] = x[r + j] * x[(r + j + 1) % n] - 0.3 * x[r + j];
		double mx = w[0];
		for (int j = 1; j < k; j++) mx = fmax(mx, w[j]);
		double mn = w[0];
		for (int j = 1; j < k; j++) mn = fmin(w[j], mn);
		double s = 0;
		for (int j = 0; j < k; j++) s += exp(w[j] - mx);
		t += log(s) + mx + 0.25 * mn;
	}
	return t;
}

/* The running max and min of x, then x overwritten. */
__attribute__((noinline)) double ties(double *x, int n) {
	double mx = x[0], mn = x[0];
	for (int i = 1; i < n; i++) {
		mx = fmax(mx, x[i]);
		mn = fmin(x[i], mn);
	}
	for (int i = 0; i < n; i++) x[i] = 0;
	return 3 * mx + mn;
}

/* A running max whose previous value and element the loop also multiplies. */
__attribute__((noinline)) double maxprod(double *x, int n) {
	double mx = x[0], s = 0;
	for (int i = 1; i < n; i++) {
		s += mx * x[i];
		mx = fmax(mx, x[i]);
		x[i] = 0.5 * x[i];
	}
	return s + mx;
}

CALLEE(lserows)
CALLEE(maxprod)
COPY64(lserows)
COPY64(maxprod)
COPY64(lserows_callee)
COPY64(maxprod_callee)
/* ties: the gradient of ties at x, against want (3 into the element fmax
 * returned, 1 into fmin's). */
static void tiecheck(const char *name, const double *x0, const double *want, int n) {
	double x[8], dx[8] = {0};
	memcpy(x, x0, n * sizeof *x);
	__enzyme_autodiff((void *)ties, enzyme_dup, x, dx, enzyme_const, n);
	for (int i = 0; i < n; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, dx[i], want[i], 0);
	}
}
int main(void) {
	if (getenv("K")) K = atoi(getenv("K"));
	FDRUN(lserows, 12);
	FDRUN(lserows, 40);
	FDRUN(lserows_callee, 12);
	FDRUN(maxprod, 9);
	FDRUN(maxprod_callee, 9);
	/* fmax(3, 3) keeps mx (x[1]); fmin(0, 0) takes x[i] (x[4]). */
	tiecheck("tie", (double[]){1, 3, 3, 0, 0, 2}, (double[]){0, 3, 0, 0, 1, 0}, 6);
	/* no ties: the max is x[2], the min x[5] */
	tiecheck("distinct", (double[]){1, 2.5, 4, 0.5, 3, -1}, (double[]){0, 0, 3, 0, 0, 1}, 6);
	/* NaNs are skipped: fmax(NaN, 2) is x[1], fmin(NaN, ...) keeps the number */
	tiecheck("nan", (double[]){NAN, 2, NAN, 1, -0.5}, (double[]){0, 3, 0, 0, 1}, 5);
	return failures != 0;
}
`

// TestPickRun: the gradients of max/min loops whose reverse reads picks
// match central differences, and on ties and NaNs the analytic gradient
// of the rule, at every level, combined and split, with rows of 1 to 9
// columns; and leak nothing.
func TestPickRun(t *testing.T) {
	t.Parallel()
	runSizes(t, pickRuns, "K", []string{"1", "3", "4", "9"}, []string{"ok lserows[39]", "ok lserows_callee[11]",
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

// TestPickZeroRun: the argument fmax or fmin did not return gets -0, the
// exact additive identity: a shadow holding -0 keeps it (adding +0 made it
// +0), in reverse mode (two arguments, and a running max over an array
// with a tie) and in forward mode (a tangent of -0 stays -0); the other
// derivatives match central differences (the tie's exactly); at every
// level.
func TestPickZeroRun(t *testing.T) {
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double max2(double *x, int n) { return 3 * fmax(x[0], x[1]) + x[0] * x[1]; }
__attribute__((noinline)) double min2(double *x, int n) { return 3 * fmin(x[1], x[0]) + x[0] * x[1]; }
__attribute__((noinline)) double maxonly(double *x, int n) { return 3 * fmax(x[0], x[1]); }
__attribute__((noinline)) double minonly(double *x, int n) { return 3 * fmin(x[1], x[0]); }
__attribute__((noinline)) double runmax(double *x, int n) {
	double mx = x[0];
	for (int i = 1; i < n; i++) mx = fmax(mx, x[i]);
	return 2 * mx;
}
__attribute__((noinline)) double plainmax(double a, double b) { return fmax(a, b); }
static void negzero(const char *what, double got) {
	if (!(got == 0 && signbit(got))) { printf("FAIL %s: got %.17g want -0\n", what, got); failures++; }
	else printf("ok %s: -0\n", what);
}
/* dx, the gradient of f at x0 with shadows starting at -0, against central
   differences, or exactly -0 where keep is set */
static void compare(const char *name, double (*f)(double *, int), const double *x0, int n, const double *dx, const int *keep) {
	double x[8], h = 1e-6;
	for (int i = 0; i < n; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s dx[%d]", name, i);
		if (keep[i]) {
			negzero(what, dx[i]);
			continue;
		}
		for (int j = 0; j < n; j++) x[j] = x0[j];
		x[i] = x0[i] + h;
		double fp = f(x, n);
		x[i] = x0[i] - h;
		double fm = f(x, n);
		check(what, dx[i], (fp - fm) / (2 * h), 1e-6);
	}
}
#define GRAD(f, x0, n, keep) do { \
		double x[8], dx[8]; \
		for (int i = 0; i < n; i++) x[i] = x0[i], dx[i] = -0.0; \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); \
		compare(#f, f, x0, n, dx, keep); \
	} while (0)
int main(void) {
	static const double x2[2] = {1.5, -0.5};
	static const int none[2] = {0, 0}, keep1[2] = {0, 1}, keep0[2] = {1, 0};
	GRAD(max2, x2, 2, none);
	GRAD(min2, x2, 2, none);
	GRAD(maxonly, x2, 2, keep1);
	GRAD(minonly, x2, 2, keep0);
	/* the running max keeps x[1] on the tie with x[3] */
	double x[5] = {1, 3, -2, 3, 0.5}, dx[5] = {-0.0, -0.0, -0.0, -0.0, -0.0};
	__enzyme_autodiff((void *)runmax, enzyme_dup, x, dx, enzyme_const, 5);
	for (int i = 0; i < 5; i++) {
		char what[32];
		snprintf(what, sizeof what, "runmax dx[%d]", i);
		if (i == 1)
			check(what, dx[i], 2, 0);
		else
			negzero(what, dx[i]);
	}
	volatile double a = 1.5, b = -0.5;
	negzero("fwd max, picked tangent -0", __enzyme_fwddiff((void *)plainmax, a, -0.0, b, 1.0));
	negzero("fwd max, other tangent -0", __enzyme_fwddiff((void *)plainmax, b, 1.0, a, -0.0));
	return failures != 0;
}
`
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
