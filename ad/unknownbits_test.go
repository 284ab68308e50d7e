package ad

import (
	"strings"
	"testing"
)

// TestUnknownBitsMove: integers whose bits nothing types where they are
// read, copied from memory with a shadow into memory with one. A size
// (the callee's loop bound) and a pointer kept in a long (turned back
// into a double* and dereferenced by the callee) differentiate at every
// level, against central finite differences: the type analysis tells
// them from their uses, and the pointer's shadow moves with it, also
// where the optimizer copies both fields as one <2 x i64>. A double's
// bits kept in a long and only copied stop the link, naming the copy.
func TestUnknownBitsMove(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "unknown_bits_move.c")
	for _, level := range optLevels {
		t.Run("O"+level, func(t *testing.T) {
			t.Parallel()
			if out := run(t, buildC(t, src, level)); !strings.Contains(out, "failures 0") {
				t.Errorf("size and pointer: %s", out)
			}
			_, err := tryBuildC(t, src, level, "-DFLOAT_BITS")
			if err == nil || !strings.Contains(err.Error(), "cannot tell whether it holds a float") || !strings.Contains(err.Error(), "'move'") {
				t.Errorf("a double's bits copied as a long: %v", err)
			}
		})
	}
}
