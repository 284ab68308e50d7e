package ad

import (
	"strings"
	"testing"
)

// errorPrelude: ULP(r), the spacing of doubles at r, and the model's
// rule for one operation, for expected values computed by hand.
const errorPrelude = checkPrelude + `
extern int enzyme_dup, enzyme_const;
double __enzyme_error_estimate(void *, ...);
static double ULP(double r) { return nextafter(fabs(r), INFINITY) - fabs(r); }
static double MAX(double a, double b) { return a > b ? a : b; }
`

// TestErrorEstimateArrays: errors of arrays live in their shadows, as
// tangents do, through loops the optimizer vectorizes at -O3: each
// element's error is max(ulp(a·b + c), |ab/(ab+c)|·max(ulp(ab), e_a + e_b)
// + |c/(ab+c)|·e_c).
func TestErrorEstimateArrays(t *testing.T) {
	t.Parallel()
	src := errorPrelude + testdataC(t, "error_estimate_arrays.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") {
				t.Errorf("-O%s:\n%s", o, out)
			}
		})
	}
}

// TestErrorEstimateLoggerByID: the (const char *id, double err) form of
// enzymeLogError hears of each rounding operation that reaches the
// result, with its error, and not of those that reach none.
func TestErrorEstimateLoggerByID(t *testing.T) {
	t.Parallel()
	src := errorPrelude + testdataC(t, "error_estimate_logger_by_id.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") {
				t.Errorf("-O%s:\n%s", o, out)
			}
		})
	}
}
