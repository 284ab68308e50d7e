package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUntypedCopyZeroShadows: a copy of variable length whose bytes the
// type analysis cannot type but whose first byte it says is an integer
// (characters copied into an entry that also holds an active double) is
// differentiated with run-time checks that its shadows are zero: the
// gradient is exact where they are, and the program stops with a message
// naming the derivative where the copy also covers a double whose adjoint
// would have to move. Where nothing types the first byte, the link stops.
func TestUntypedCopyZeroShadows(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "untyped_copy.c")
	for _, level := range optLevels {
		exe := buildC(t, src, level)
		if out := run(t, exe); !strings.HasPrefix(out, "ok") {
			t.Errorf("-O%s: %s", level, out)
		}
		out, err := exec.Command(exe, "covers-the-double").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the derivative of lookup_square cannot tell what the bytes of a memory copy") {
			t.Errorf("-O%s: the copy covering an active double ran (%v): %s", level, err, out)
		}
		if _, err := tryBuildC(t, src, level, "-DUNTYPED_START"); err == nil || !strings.Contains(err.Error(), "cannot tell which bytes of") {
			t.Errorf("-O%s: no error for a copy nothing types: %v", level, err)
		}
	}
}
