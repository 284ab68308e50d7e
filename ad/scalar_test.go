package ad

import (
	"testing"
)

// checkPrelude gives test programs a CHECK(got, want) that compares with a
// relative tolerance and makes the program exit 1 on any mismatch.
const checkPrelude = `
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static int failures;
static void check(const char *what, double got, double want, double tol) {
	double err = fabs(got - want) / fmax(1.0, fabs(want));
	if (!(err <= tol)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s: %.17g\n", what, got);
}
#define CHECK(what, got, want) check(what, got, want, 1e-9)
`

func TestRelu3AndSquare(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "relu3_and_square.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestQuadPrecisionGradient: __float128 (fp128) gradients (testdata/fp128.c).
// llir writes an fp128 constant built from a value with its 64-bit halves
// swapped (it reads LLVM's 0xL digits high word first, LLVM writes the low
// word first), so without irutil swapping the halves on reading and
// writing every constant gozyme makes for fp128 reaches LLVM wrong (the
// seed 1.0 of the return adjoint becomes a denormal, and the gradient 0),
// and a primal constant whose low word reads as a NaN's high word comes
// back changed (scale). Combined (cube, poly, scale) and split
// (poly_callee differentiates poly as a callee), every level, against the
// analytic derivatives.
func TestQuadPrecisionGradient(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "fp128.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
