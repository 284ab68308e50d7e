package ad

import (
	"strings"
	"testing"
)

// TestLoopStoreForward: loads of a scratch array a loop filled from
// memory nothing writes (GMM's centered point) are rebuilt in the reverse
// sweep at the load's index; where a store or a call writes the array
// between the loops, or the filling loop writes an element again, the
// value is recorded; a memset of an element between them (an integer
// store of zero at -O1 and above) clears its derivative. Gradients against central finite differences at
// every level (testdata/loop_store_forward.c).
func TestLoopStoreForward(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "loop_store_forward.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || strings.Count(out, "done") != 5 {
				t.Fatal(out)
			}
		})
	}
}

// TestStoreForwardHazards: where the stored value's inputs change between
// the storing and the reading loop (a call, a later write in the reading
// loop, a loop around both, a pointer that may alias), or the element read
// is not the loop's, or another storing loop exits into the same block
// (two loops on the arms of an if: which one ran, the exit does not tell),
// the load is recorded, not rebuilt (testdata/store_forward_hazards.c);
// gradients against central differences at every level. Rebuilt from the
// loop on the arm not taken, merged crashed (its records never written)
// and merged_nested took the other arm's values.
func TestStoreForwardHazards(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "store_forward_hazards.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
