package ad

import (
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
)

// exitNests are loop nests whose inner loops cache values per iteration
// (q and x are overwritten), so that their reverse needs each inner loop's
// entry counter. comps's inner loops run DIM iterations in every
// component, the first one vectorized at -O2 with a remainder loop that
// starts where the vector loop stopped (a merge phi decided by conditions
// outside the nest); tricomp's inner loop runs c + 1 times (its count
// changes between components): their entry counters come from their exits
// (exitentry.go). brkcomp's inner loop leaves on the data (its header
// count is not its trip count's): its entry counter stays cached.
const exitNests = loopRunPrelude + `
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
__attribute__((noinline)) double comps(double *x, int n) {
	int d = DIM, k = n / d;
	double q[64], e = 0;
	for (int c = 0; c < k; c++) {
		for (int j = 0; j < d; j++) q[j] = x[c * d + j] - 0.5 * x[j];
		double s = 0;
		for (int j = 0; j < d; j++) {
			s += sin(q[j]) * q[j];
			q[j] = q[j] * s;
		}
		for (int j = 0; j < d; j++) s += q[j] * x[j];
		e += s * s;
	}
	return e;
}

__attribute__((noinline)) double tricomp(double *x, int n) {
	double e = 0;
	for (int c = 0; c < n; c++) {
		double s = 0;
		for (int j = 0; j <= c; j++) {
			x[j] = sin(x[j]) * 0.9 + 0.1 * x[c];
			s += x[j];
		}
		e += s * x[c];
	}
	return e;
}

__attribute__((noinline)) double brkcomp(double *x, int n) {
	double e = 0;
	for (int c = 0; c < 3; c++)
		for (int j = 0; j < n; j++) {
			x[j] = x[j] * cos(x[c]) + 0.3;
			e += x[j];
			if (x[j] > 0.8) break;
		}
	return e;
}

/* The count of afterx's inner loop is read after it (its exit value):
 * in the reverse, outside the loop's reverse. */
__attribute__((noinline)) double afterx(double *x, int n) {
	double t[64], e = 0;
	for (int m = 0; m < 3; m++) {
		int j;
		for (j = 0; j < n - m; j++) t[j] = x[j] * x[m];
		e += sin(t[j - 1]) * x[(j + m) % n];
		for (int i = 0; i < j; i++) e += t[i] * t[i];
	}
	return e;
}

CALLEE(comps)
CALLEE(tricomp)
/* The finite differences need functions that leave x alone. */
COPY64(comps)
COPY64(tricomp)
COPY64(brkcomp)
COPY64(afterx)
COPY64(comps_callee)
COPY64(tricomp_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(comps, 12);
	FDRUN(comps, 30);
	FDRUN(tricomp, 10);
	FDRUN(brkcomp, 10);
	FDRUN(afterx, 10);
	FDRUN(comps_callee, 12);
	FDRUN(tricomp_callee, 10);
	return failures != 0;
}
`

// TestExitEntryRun: every gradient matches central differences at every
// level, combined and split, with components of 1 to 9 coordinates (no
// vector loop, no remainder, both), and leaks nothing.
func TestExitEntryRun(t *testing.T) {
	t.Parallel()
	runSizes(t, exitNests, "DIM", []string{"1", "3", "4", "9"},
		[]string{"ok comps[29]", "ok tricomp[9]", "ok brkcomp[9]", "ok afterx[9]", "ok comps_callee[11]", "ok tricomp_callee[9]"})
}

// TestExitEntryIR: comps and tricomp cache no entry counter (at -O2 and
// -O3 comps's remainder loops' neither) and read them from reverse slots;
// brkcomp keeps a cached one where its shape stays (-O0, -O1). merge_ir's
// inner loop, starting at a merge phi, reads its entry counter from a slot.
func TestExitEntryIR(t *testing.T) {
	for _, o := range optLevels {
		m := preADModuleC(t, exitNests, o)
		for _, tc := range []struct {
			name   string
			cached bool
		}{{"comps", false}, {"tricomp", false}, {"brkcomp", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "exit_"+tc.name)
				cached := 0
				for ld, s := range r.snapOf {
					if s.at == s.src && isCached(r, ld) {
						t.Logf("-O%s %s (split %v): cached the entry counter of the loop at %s", o, tc.name, split, s.at.Header.Ident())
						cached++
					}
				}
				switch {
				case !tc.cached && cached > 0:
					t.Errorf("-O%s %s (split %v): %d entry counters cached, want none", o, tc.name, split, cached)
				case !tc.cached && len(r.exitSlots) == 0:
					t.Errorf("-O%s %s (split %v): no entry counter from the exit", o, tc.name, split)
				case tc.cached && cached == 0 && (o == "0" || o == "1"):
					t.Errorf("-O%s %s (split %v): no entry counter cached", o, tc.name, split)
				}
				d.dropFunc(r.g)
			}
		}
	}
	eachReverse(t, mergeIR, []Activity{Dup, Const, Const}, func(r *reverseGen, split bool) {
		inner := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
		if _, ok := r.exitSlots[inner]; !ok {
			t.Errorf("split=%v: the inner loop's entry counter does not come from its exit", split)
		}
		if isCached(r, r.entryCount[inner.Header]) {
			t.Errorf("split=%v: the inner loop's entry counter is cached", split)
		}
	})
}

// restartedLoops lists the loops of r whose counter the reverse restarts
// on entry: every store to their entry counter's exit slot stores 0.
func restartedLoops(r *reverseGen) []*irutil.Loop {
	var out []*irutil.Loop
	for _, l := range r.cfg.Loops {
		s, ok := r.exitSlots[l]
		if !ok {
			continue
		}
		zero := true
		for _, b := range r.g.Blocks {
			for _, inst := range b.Insts {
				if st, ok := inst.(*ir.InstStore); ok && st.Dst == s {
					if c, isInt := st.Src.(*constant.Int); !isInt || c.X.Sign() != 0 {
						zero = false
					}
				}
			}
		}
		if zero {
			out = append(out, l)
		}
	}
	return out
}

// TestRestartedCountersIR: comps's centring loop (vectorized at -O2 and
// -O3, with its remainder) caches nothing per iteration, and its reverse
// restarts its counter on entry; the forward sweep then reads the counter
// only to step it. No loop with records is restarted, in comps, tricomp
// or afterx.
func TestRestartedCountersIR(t *testing.T) {
	for _, o := range optLevels {
		m := preADModuleC(t, exitNests, o)
		for _, name := range []string{"comps", "tricomp", "afterx"} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, name, split, "restart_"+name)
				restarted := restartedLoops(r)
				for _, l := range restarted {
					lc := r.loops[l]
					if lc.rec != nil {
						t.Errorf("-O%s %s (split %v): the loop at %s has records and its counter restarts", o, name, split, l.Header.Ident())
					}
					for _, blk := range []*ir.Block{r.fwdHead[l.Header], r.fwdTail[l.Header]} {
						for _, inst := range blk.Insts {
							if ld, ok := inst.(*ir.InstLoad); ok && ld.Src == lc.counter && ld != lc.fwdIdx {
								t.Errorf("-O%s %s (split %v): the forward header of the loop at %s reads its restarted counter: %s", o, name, split, l.Header.Ident(), ld.LLString())
							}
						}
					}
				}
				if name == "comps" && (o == "2" || o == "3") && len(restarted) == 0 {
					t.Errorf("-O%s comps (split %v): no loop counter restarted", o, split)
				}
				t.Logf("-O%s %s (split %v): %d of %d loops restart their counter", o, name, split, len(restarted), len(r.cfg.Loops))
				d.dropFunc(r.g)
			}
		}
	}
}

// TestExitEntryLastIterationRun: a loop whose bound is reloaded, in each
// iteration of the loop around it, after a call that may write it; the
// loop after them reads the last reload. Its reverse, entered from its
// exit, counts its iterations from that bound, cached per iteration of the
// loop it is read in: the count must read the loop's last iteration (the
// counter stepped back), not one past it.
func TestExitEntryLastIterationRun(t *testing.T) {
	src := memoryPrelude + `
enum { N = 13 };
int sink;
__attribute__((noinline)) static void step(int *np, double *u, double *un, double *ap) {
	int n = *np;
	for (int i = 0; i < n; i++)
		un[i] = u[i] + 0.1 * *ap * (u[(i + 1) % n] - u[i]) + 0.01 * sin(u[i]);
	if (sink) *np = 3;
}
static double f(double *x, int m) {
	int n = m;
	double a = 0.8, u[N], un[N];
	for (int i = 0; i < n; i++) u[i] = x[i];
	for (int s = 0; s < 6; s++) {
		step(&n, u, un, &a);
		for (int i = 0; i < n; i++) u[i] = un[i];
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += u[i] * u[i] * (i + 1);
	return e;
}
int main(void) {
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.5 * sin(1.3 * i);
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("x", f, x, N, dx);
	return failures != 0;
}`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "1")) })
}
