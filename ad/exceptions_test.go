package ad

import (
	"strings"
	"testing"
)

// TestExceptionsThroughDerivatives: an exception thrown in a derivative's
// forward sweep (framed recursion, a call inside a loop, split mode's
// augmented forward, forward mode, a root dispatching over two functions,
// one returning the primal) reaches the handler of the caller that
// invoked the root, and the derivatives run again afterwards are right
// (testdata/exceptions_through_derivatives.cc), at every level.
func TestExceptionsThroughDerivatives(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "exceptions_through_derivatives.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildCXX(t, src, o)), "-O"+o, []string{"ok exceptions caught: 14"})
		})
	}
}

// caughtInsideSrc differentiates a function that catches what the
// recursion it calls may throw, and goes on.
const caughtInsideSrc = `
#include <cmath>
#include <stdexcept>
extern "C" double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double rec(double x, int n) {
	if (x > 100) throw std::runtime_error("too big");
	return n == 0 ? std::sin(x) : rec(x * 1.5, n - 1) * x;
}
int depth = 5;
double guarded(double x) {
	try { return rec(x, depth); } catch (const std::exception &) { return x * x; }
}
int main() { return __enzyme_autodiff((void *)guarded, 30.0) != 60; }
`

// TestCaughtInsideDerivativeStops: a function differentiated that catches
// an exception its callee may throw stops the link, naming it (the
// derivative has no handler: the exception would leave it where the
// primal goes on).
func TestCaughtInsideDerivativeStops(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"0", "2"} {
		_, err := tryBuild(t, "prog.cc", caughtInsideSrc, o)
		if err == nil || !strings.Contains(err.Error(), "catches an exception the call to") {
			t.Errorf("-O%s: got %v, want the error of a caught exception", o, err)
		}
	}
}
