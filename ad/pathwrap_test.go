package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// wrapNest: a triangle whose outer counter is a 32-bit unsigned that
// wraps through 0 (it starts at BASE = 2^32 - 2), the inner count i + 4
// wrapping with it (2, 3, 4, ...): at -O2 and -O3 the inner loop is
// vectorized, and the join after it is decided per outer iteration from
// conditions on the wrapped counter (iterationCond), rebuilt in the
// reverse from the outer loop's linear counter in 32-bit arithmetic.
const wrapNest = loopRunPrelude + `
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 2;
unsigned BASE = 4294967294u; /* not a constant */
__attribute__((noinline)) double wrap(double *x, int n) {
	int d = DIM;
	unsigned base = BASE;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d + 4; j++) q[j] = 0.25 * j + x[(c + j) % n];
		for (int j = 0; j < d; j++) xc[j] = x[(c * d + j) % n] * x[(c * d + j + 1) % n] - 0.5;
		for (unsigned i = base; i != base + d; i++)
			for (unsigned j = 0; j < i + 4; j++) q[j] += x[(K + i - base) * 8 + j] * xc[i - base];
		for (int j = 0; j < d + 4; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(wrap)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(wrap)
COPY(wrap_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(wrap, 128);
	FDRUN(wrap_callee, 128);
	return failures != 0;
}
`

// TestWrapPathIR: at -O2 and -O3, a join in wrap's loop over the 32-bit
// counter (after the vector loop and its overflow checks) is decided by
// its paths, from conditions on the counter (iterationCond). (The
// remainder's start, a phi of three ways in, is still rebuilt from the
// way taken: mergeValue reads the predecessor index.)
func TestWrapPathIR(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, wrapNest, o)
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, "wrap", split, "wrap_ir")
			paths := 0
			for b := range r.predIdx {
				l := r.cfg.LoopOf[b]
				if l == nil || !counter32(l.Header) {
					continue
				}
				if _, ok := r.pathDecision(b); ok && !r.decidedByDominators(b) {
					paths++
				}
			}
			if paths == 0 {
				t.Errorf("-O%s (split %v): no join in the loop over the 32-bit counter is decided by its paths", o, split)
			}
			d.dropFunc(r.g)
		}
	}
}

// counter32 reports whether loop header h has an i32 phi.
func counter32(h *ir.Block) bool {
	for _, inst := range h.Insts {
		if p, ok := inst.(*ir.InstPhi); ok && p.Typ.Equal(types.I32) {
			return true
		}
	}
	return false
}

// TestWrapPathRun: wrap's gradient against central differences at every
// level, combined and split, with d = 1, 2, 3 and 6 (the inner loop runs
// 2 to 9 times: below, at and above the vector width), leak-checked.
func TestWrapPathRun(t *testing.T) {
	t.Parallel()
	runSizes(t, wrapNest, "DIM", []string{"1", "2", "3", "6"}, []string{"ok wrap[127]", "ok wrap_callee[127]"})
}
