package ad

import "testing"

func TestSplitMode(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "split_mode.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
