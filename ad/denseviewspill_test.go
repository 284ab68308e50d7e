package ad

import (
	"strings"
	"testing"
)

// TestDenseViewThroughLoopRecord: a gradient whose loop record caches an
// address derived from its pointer argument, inlined where that argument
// is a dense view: the address is stored into the record and loaded back
// in the reverse sweep, and the loads through it are the view's loads
// (analytic gradient, at every level; built from the frontend's IR with
// the link's loop shaping, as gozyme-cc builds it, where the record
// appears from -O2, with and without load PRE).
func TestDenseViewThroughLoopRecord(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "dense_view_spill.c")
	for _, level := range optLevels {
		for _, opt := range [][]string{linkedLoops, append([]string{"-enable-load-pre=0"}, linkedLoops...)} {
			exe, err := tryBuildOpt(t, "prog.c", src, level, opt, "-ffast-math", "-Xclang", "-disable-llvm-passes")
			if err != nil {
				t.Errorf("-O%s %v: %v", level, opt, err)
				continue
			}
			if out := run(t, exe); !strings.HasPrefix(out, "ok") {
				t.Errorf("-O%s %v: %s", level, opt, out)
			}
		}
	}
}
