package ad

import (
	"strings"
	"testing"
)

// noFreeSrc passes Enzyme's enzyme_nofree marker and marks a callee with
// the enzyme_nofree attribute (as gozyme-cc's macro spells it), both
// accepted: the derivative is the same.
const noFreeSrc = `#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_nofree;
void __enzyme_autodiff(void *, ...);
__attribute__((annotate("enzyme:nofree", "nofree"))) double sq(double a) { return a * a; }
void f(double *x, double *y) { *y = sq(*x) + sin(*x); }
int main(void) {
	double x = 0.4, dx = 0, y = 0, dy = 1;
	__enzyme_autodiff((void *)f, enzyme_nofree, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
	double want = 2 * x + cos(x);
	int bad = fabs(dx - want) > 1e-12;
	if (bad) printf("FAIL: %g, want %g\n", dx, want);
	printf("failures %d\n", bad);
	return bad;
}
`

// TestNoFreeAccepted: the enzyme_nofree marker and attribute are
// accepted and change no derivative.
func TestNoFreeAccepted(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		if out := run(t, buildC(t, noFreeSrc, o, "-lm")); !strings.Contains(out, "failures 0") {
			t.Errorf("-O%s: %s", o, out)
		}
	}
}
