package ad

import (
	"strings"
	"testing"
)

// TestInvokedFunctionObject: a std::function called where an exception may
// unwind past the call is an invoke through a function pointer. The
// dispatch over the pointer's candidates looked for calls in the function
// before its copy without exception edges turned the invoke into one, and
// -O1 and above stopped the link ("a call through a function pointer
// carries derivatives"); the gradient, in reverse and forward mode, now
// matches a central difference at every level.
func TestInvokedFunctionObject(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "invoked_function_object.cc")
	for _, level := range optLevels {
		if out := run(t, buildCXX(t, src, level)); !strings.HasPrefix(out, "ok") {
			t.Errorf("-O%s: %s", level, out)
		}
	}
}
