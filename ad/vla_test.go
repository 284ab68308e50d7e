package ad

import "testing"

// TestVariableLengthArrayRun: variable-length arrays (a Fortran automatic
// array is one too) holding derivatives, once per call and once per
// iteration of a loop: their shadows are allocated where they are (the
// size is known only there) and freed by their reverse.
func TestVariableLengthArrayRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "variable_length_array.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
