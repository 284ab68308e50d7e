package ad

import (
	"strings"
	"testing"
)

// TestPointerKeptInGlobal: a function keeps a pointer to memory holding
// derivatives (a malloc'd buffer, or its parameter) in a global without a
// shadow and writes or reads the buffer through the pointer read back
// from the global (in the function, in a callee, in forward mode; also
// overwriting it without a derivative, or handing it to a function given
// no derivatives, so not differentiated). The
// global cannot carry the buffer's shadow pointer, so each build either
// gives the right gradient (where the optimizer forwards the stored
// pointer to the load, -O2) or stops naming the store; at -O0 the
// writes through the global were once dropped silently (a gradient of (3,
// 0) instead of (15, 9)). A global only recording the buffer, and one
// holding a pointer to data without derivatives, build and give the right
// gradient. The gradients are checked against analytic values and a
// central finite difference (testdata/global_escape.c).
func TestPointerKeptInGlobal(t *testing.T) {
	t.Parallel()
	const want = "puts the address of memory holding derivatives"
	for _, c := range []struct {
		shape   string
		mayStop bool
	}{
		{"WRITE_THROUGH_GLOBAL", true},
		{"WRITE_IN_CALLEE", true},
		{"STORE_IN_CALLEE", true},
		{"READ_THROUGH_GLOBAL", true},
		{"FORWARD", true},
		{"OVERWRITE_THROUGH_GLOBAL", true},
		{"CALLEE_GIVEN_LOADED", true},
		{"CACHE", false},
		{"INACTIVE_DATA", false},
	} {
		src := checkPrelude + "#define SHAPE_" + c.shape + " 1\n" + testdataC(t, "global_escape.c")
		for _, o := range []string{"0", "2"} {
			t.Run(c.shape+"/O"+o, func(t *testing.T) {
				t.Parallel()
				exe, err := tryBuildC(t, src, o)
				if err != nil {
					if !c.mayStop || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "into global 'kept', which has no shadow") {
						t.Fatalf("-O%s: %v", o, err)
					}
					return
				}
				run(t, exe)
			})
		}
	}
	// Without the optimizer forwarding the pointer, the writes through the
	// global must stop the build.
	for _, shape := range []string{"WRITE_THROUGH_GLOBAL", "OVERWRITE_THROUGH_GLOBAL"} {
		_, err := tryBuildC(t, checkPrelude+"#define SHAPE_"+shape+" 1\n"+testdataC(t, "global_escape.c"), "0")
		if err == nil || !strings.Contains(err.Error(), "cannot differentiate 'f': ") || !strings.Contains(err.Error(), want+" (the call to 'malloc') into global 'kept'") {
			t.Errorf("%s -O0: want the error naming the store into 'kept', got %v", shape, err)
		}
	}
}
