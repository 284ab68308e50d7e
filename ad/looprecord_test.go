package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/llir/llvm/ir"
)

// Loop reversal where a trip count or a counter on entry is not provably
// recomputable: the reverse must record it instead (counters.go's
// cacheplan.ExactCount states what a recomputed count assumes). loopRecordKernels are
// programs built to break the recomputation rules: counts an earlier loop
// computes from the data, counts reset on a new maximum, counts the outer
// loop changes, bounds in memory the loops overwrite, several exits, an
// exit test some iterations skip, a narrow counter whose step wraps past
// the bound, unsigned, != and down-counting loops (zero-trip included),
// counts from a call, do-while loops entered past their bound.
func loopRecordKernels(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "loop_record_kernels.c")
}

// TestLoopRecordRun: the gradients of loopRecordKernels, combined and
// split (as callees), against central differences at every level, with
// the loops as LLVM's default pipelines and as gozyme's link-time pipeline
// shape them (buildCLinked).
func TestLoopRecordRun(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, loopRecordKernels(t), o)) })
		if o != "0" {
			t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, loopRecordKernels(t), o)) })
		}
	}
}

// TestLoopRecordLeaks: loopRecordKernels under valgrind at -O0 (where the
// skipped exit test made the records' buffer too small) and, shaped as
// linked, at -O1 and -O2 (where the 16-bit counter's count was too small,
// and a count's record was read one past the loop's last iteration).
func TestLoopRecordLeaks(t *testing.T) {
	t.Parallel()
	t.Run("O0", func(t *testing.T) { runLeakChecked(t, buildC(t, loopRecordKernels(t), "0")) })
	for _, o := range []string{"1", "2"} {
		t.Run("linked-O"+o, func(t *testing.T) { runLeakChecked(t, buildCLinked(t, loopRecordKernels(t), o)) })
	}
}

// loopRecordMaxima are the shapes of a mean of a vector's maxima, with an
// analytic gradient: the number of maxima counted in one loop, reset on
// each new maximum, and the kept values summed in a second loop bounded
// by it; a sum of the first c values, c the number of positive ones.
func loopRecordMaxima(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "loop_record_maxima.c")
}

// TestLoopRecordMaxima: loopRecordMaxima's gradients at every level, both
// loop shapes, and under valgrind at -O2 and -O3 shaped as linked (where
// the second loop's reverse read the count's record one past the loop's
// last iteration, and ran its index negative).
func TestLoopRecordMaxima(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, loopRecordMaxima(t), o)) })
		if o != "0" {
			t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, loopRecordMaxima(t), o)) })
		}
	}
	for _, o := range []string{"2", "3"} {
		t.Run("leaks-linked-O"+o, func(t *testing.T) { runLeakChecked(t, buildCLinked(t, loopRecordMaxima(t), o)) })
	}
}

// TestExactCountProofIR: cacheplan.ExactCount admits no count whose assumptions the
// IR does not prove: not the loop whose exit test iterations skip
// (condexit at -O0), not the 16-bit counter stepped without nsw under a
// signed test (shortwrap at -O2). Their reverses record the entry counter
// and keep the buffers' growth checks. The second loop of countpos at -O2
// (an nsw counter to a bound the first loop computed) keeps its count.
// The loops are shaped as linked (at -O2 LLVM's default pipeline would
// vectorize countpos's loops).
func TestExactCountProofIR(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, level string
		exact       bool
	}{
		{"condexit", "0", false},
		{"shortwrap", "2", false},
		{"countpos", "2", true},
	}
	for _, c := range cases {
		m := preADModuleC(t, loopRecordKernels(t), c.level, linkedLoops...)
		d, r := reverseOf(t, m, c.name, false, "exact_"+c.name)
		var last *ir.Block
		for _, b := range r.f.Blocks {
			if r.primal().IsHeader(b) {
				last = b
			}
		}
		if last == nil {
			t.Fatalf("%s -O%s: no loop", c.name, c.level)
		}
		l := r.cfg.LoopOf[last]
		tc, ok := r.analyzeTripCount(l)
		if !ok {
			t.Fatalf("%s -O%s: no trip count for the loop at %s", c.name, c.level, last.Ident())
		}
		if got := cacheplan.ExactCount(tc); got != c.exact {
			t.Errorf("%s -O%s: ExactCount = %v, want %v (every %v, nsw %v, step %d, pred %v)", c.name, c.level, got, c.exact, tc.Every, tc.NSW, tc.Step, tc.Pred)
		}
		if _, ok := r.exitEntry(l); ok != c.exact {
			t.Errorf("%s -O%s: exitEntry = %v, want %v", c.name, c.level, ok, c.exact)
		}
		if _, _, ok := r.entryGrowth(l); ok && !c.exact {
			t.Errorf("%s -O%s: the buffer grows on entry from a count that is not exact", c.name, c.level)
		}
		d.dropFunc(r.g)
	}
}
