package ad

import "testing"

// TestKnRCalls: a call through a cast of a function whose type differs in
// pointer parameters only (C without prototypes) is differentiated as a
// direct call at every level (testdata/knr_calls.c).
func TestKnRCalls(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "knr_calls.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o, "-w")) })
	}
}
