package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
)

// sumsIR: the inner loop sums x[j] (no records: its reverse needs no
// forward value but its induction variable, rebuilt relative to its entry
// counter), and the outer loop multiplies the sum with x[i] and overwrites
// x[i] (records). The inner loop's exact count is known on its exits, so
// its reverse counts its own iterations (its counter restarts on entry
// to its reverse, restartCounters); sumsLastIR also
// reads x[j] after the inner loop with j's last value, which the reverse
// rebuilds from the counter before it enters the inner loop's reverse:
// the counter keeps its forward value.
const sumsIR = `
define double @sums_ir(double* %x, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %acc = phi double [ 0.0, %outer ], [ %acc.next, %inner ]
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %acc.next = fadd double %acc, %xj
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %latch
latch:
  %xip = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xip, align 8
  %p = fmul double %acc.next, %xi
  %e = call double @llvm.sin.f64(double %p)
  %s.next = fadd double %s, %e
  %xin = fmul double %xi, 0.5
  store double %xin, double* %xip, align 8
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret double %s.next
}
declare double @llvm.sin.f64(double)
`

// sumsLastIR is sumsIR with x[j] at j's last value added to the sum.
var sumsLastIR = strings.NewReplacer("@sums_ir", "@sums_last_ir",
	"  %p = fmul double %acc.next, %xi\n",
	"  %xlp = getelementptr inbounds double, double* %x, i64 %j\n  %xl = load double, double* %xlp, align 8\n  %accl = fadd double %acc.next, %xl\n  %p = fmul double %accl, %xi\n").Replace(sumsIR)

// TestLocalCounter: which loops' counters restart on entry to their
// reverse, and why not the others': records (the outer loops, which may
// restart all the same, being in no other loop) or the induction variable
// read after the loop (sums_last's inner loop).
func TestLocalCounter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		why       map[string]string // loop header -> "local", "records" or "after"
	}{
		{"sums", sumsIR, map[string]string{"inner": "local", "outer": "records"}},
		{"sums_last", sumsLastIR, map[string]string{"inner": "after", "outer": "records"}},
	} {
		eachReverse(t, tc.src, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
			restarted := map[*irutil.Loop]bool{}
			for _, l := range restartedLoops(r) {
				restarted[l] = true
			}
			seen := 0
			for _, l := range r.cfg.Loops {
				want, ok := tc.why[l.Header.Name()]
				if !ok {
					continue
				}
				seen++
				got := "local"
				switch {
				case r.loops[l].rec != nil:
					got = "records"
				case !restarted[l]:
					got = "after"
				}
				if _, exits := r.exitSlots[l]; want == "local" && !exits {
					t.Errorf("%s split=%v: loop %s: entry counter not from its exits", tc.name, split, l.Header.Name())
				}
				// A loop with records in no other loop may restart too: its
				// counter starts from 0 (countsFromZero).
				fromZero := want == "records" && r.countsFromZero(l)
				if got != want || (restarted[l] != (want == "local") && !fromZero) {
					t.Errorf("%s split=%v: loop %s: %s (restarted %v), want %s", tc.name, split, l.Header.Name(), got, restarted[l], want)
				}
			}
			if seen != len(tc.why) {
				t.Errorf("%s split=%v: %d of the loops %v found", tc.name, split, seen, tc.why)
			}
		})
	}
}

// TestLocalCounterRun: the gradients of sums_ir and sums_last_ir against
// central differences (called twice: the second call's counters start
// where the first left them), and C loops of the same kinds from -O2
// (vectorized with scalar remainders, a triangular nest whose inner loop
// has no records) and -O0, called directly and from another function
// (split).
func TestLocalCounterRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "local_counter.c")
	ll := sumsIR + strings.Replace(sumsLastIR, "declare double @llvm.sin.f64(double)\n", "", 1)
	runIRWants(t, src, ll, []string{"0", "2"}, true, "ok sums[6]", "ok sums_last[6]", "ok sweep[6]", "ok twice[6]")
}
