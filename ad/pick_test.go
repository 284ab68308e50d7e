package ad

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
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
	runSizes(t, pickRuns, "K", []string{"1", "3", "4", "9"}, []string{"ok lserows[39]", "ok lserows_callee[11]",
		"ok maxprod[8]", "ok maxprod_callee[8]", "ok tie[5]", "ok distinct[5]", "ok nan[4]"})
}
