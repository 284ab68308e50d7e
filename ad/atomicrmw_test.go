package ad

import (
	"strings"
	"testing"
)

// Atomic floating-point adds (C's __atomic_fetch_add, what CUDA's
// atomicAdd and OpenMP atomics become): out += x_i² accumulates into out
// with atomicrmw fadd; its gradient is dx_i += 2·x_i·dout in reverse mode
// and dout += 2·x_i·dx_i in forward mode (the tangent added atomically).
func TestAtomicFloatAdd(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "atomic_float_add.c")
	for _, level := range optLevels {
		out := run(t, buildC(t, src, level, "-lm"))
		if !strings.Contains(out, "ok") {
			t.Errorf("-O%s: %s", level, out)
		}
	}
}
