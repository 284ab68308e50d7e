package ad

import "testing"

func TestCalls(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "calls.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
