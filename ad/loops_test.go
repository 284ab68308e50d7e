package ad

import "testing"

func TestLoops(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "loops.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestLoopBookkeepingRun: testdata/loop_bookkeeping.c's kernels stress the
// conditions of the reverse sweep's bookkeeping optimizations (counters
// restarted on entry, induction phis rebuilt, path decisions after
// vectorized loops, growth on entry, loop hints): every kernel's gradient,
// as root and as a split callee, against central differences at -O0..-O3.
func TestLoopBookkeepingRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "loop_bookkeeping.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
