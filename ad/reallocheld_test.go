package ad

import (
	"strings"
	"testing"
)

// TestReallocHeldInStruct: a buffer grown by realloc and kept in a struct
// field (`b->data = realloc(b->data, ...)`, read back as double *), pushed
// to once or twice per iteration depending on the data and summed by a
// noinline helper. The realloc'd block's element type is only seen through
// the struct field: the adjoints of the values stored before each move
// must go back to the old shadow (they were dropped, as if the block held
// no floats). Combined and split mode against central differences, at
// every level, and leak-checked.
func TestReallocHeldInStruct(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "realloc_held_in_struct.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"ok dx[8]", "ok split dx[8]"})
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "1")) })
}

// TestReallocBytesUnknown: doubles copied into a realloc'd char buffer at
// byte offsets: nothing proves where the floats sit in the block, so the
// link stops with an error naming the realloc instead of treating the
// block as holding no floats (a zero gradient for everything stored before
// the last move).
func TestReallocBytesUnknown(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "realloc_bytes_unknown.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "cannot tell which bytes of") || !strings.Contains(err.Error(), "realloc") {
				t.Fatalf("-O%s: want an error naming the realloc, got %v", o, err)
			}
		})
	}
}
