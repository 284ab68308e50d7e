package ad

import "testing"

// TestZeroAdjointSkips: the gradients of testdata/zero_adjoint_skips.c
// against central differences at every level, and the Hessian-vector
// product of nearest by forward over reverse against central differences
// of its gradient; leak-checked.
func TestZeroAdjointSkips(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "zero_adjoint_skips.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
		t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestZeroAdjointSkipsPlanned: at -O2 and -O3 (the loops as gozyme's
// link-time pipeline shapes them: not unrolled at run time), the reverse of the inner
// loop of nearest, farthest, relu, expdist and scratch is skipped where
// its adjoint is zero, combined and split; shared's (its distances summed
// too) never is.
func TestZeroAdjointSkipsPlanned(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "zero_adjoint_skips.c")
	for _, o := range []string{"2", "3"} {
		dir := t.TempDir()
		m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, o, "-Xclang", "-disable-llvm-passes"), o, linkedLoops...)
		for _, tc := range []struct {
			name string
			skip bool
		}{{"nearest", true}, {"farthest", true}, {"relu", true}, {"expdist", true}, {"scratch", true}, {"early", true}, {"shared", false}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "skip_"+tc.name)
				if got := len(r.zeroSkips) > 0; got != tc.skip {
					t.Errorf("-O%s %s (split %v): %d loops skipped where zero, want skips %v", o, tc.name, split, len(r.zeroSkips), tc.skip)
				}
				d.dropFunc(r.g)
			}
		}
	}
}
