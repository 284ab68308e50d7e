package ad

import "testing"

// TestHigherOrderReverse: reverse over reverse over reverse. The
// derivative of a gradient differentiates the gradient's own augmented
// forward and reverse halves, their tapes and caches; second, third and
// fourth derivatives of small functions against analytic values: a
// product of libm calls, a loop whose terms are cached, memory (a
// temporary array on the heap), and a series kept exact by __enzyme_iter
// (its derivative of order d keeps d more terms).
func TestHigherOrderReverse(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "higher_order_reverse.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
