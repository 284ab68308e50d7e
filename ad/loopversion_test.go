package ad

import "testing"

// TestLoopVersionRun: gradients whose inner loops' forward copies get a
// short (scalar) and a long (vectorized) version match central differences
// at every level, combined and split, with rows of 3 coordinates (every
// copy short), 20 and 40 (long rows, short ones at the triangle's end), and
// leak nothing.
func TestLoopVersionRun(t *testing.T) {
	t.Parallel()
	runSizes(t, loopRunPrelude+testdataC(t, "version_loops.c"), "DIM", []string{"3", "20", "40"},
		[]string{"ok vtri[39]", "ok vtri[62]", "ok vsums[16]", "ok vsums[49]", "ok vtri_callee[39]"})
}
