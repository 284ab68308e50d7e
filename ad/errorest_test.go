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
	src := errorPrelude + `
enum { N = 37 };
void fma_arrays(const double *a, const double *b, const double *c, double *out, int n) {
	for (int i = 0; i < n; i++) out[i] = a[i] * b[i] + c[i];
}
int main(void) {
	double a[N], b[N], c[N], out[N], ea[N], eb[N], ec[N], eout[N];
	for (int i = 0; i < N; i++) {
		a[i] = 1 + 0.37 * i; b[i] = 2.5 - 0.11 * i; c[i] = (i % 3) - 1.25;
		ea[i] = 1e-12 * (i % 5); eb[i] = 2e-13; ec[i] = (i % 2) ? 1e-11 : 0; eout[i] = 0;
	}
	__enzyme_error_estimate((void *)fma_arrays, enzyme_dup, a, ea, enzyme_dup, b, eb, enzyme_dup, c, ec,
		enzyme_dup, out, eout, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		double p = a[i] * b[i], s = p + c[i];
		double ep = MAX(ULP(p), fabs(ea[i]) + fabs(eb[i]));
		double es = MAX(ULP(s), fabs(p / s * ep) + fabs(c[i] / s * ec[i]));
		char what[32]; snprintf(what, sizeof what, "error of out[%d]", i);
		check(what, eout[i], es, 1e-9);
		if (out[i] != s) { printf("FAIL out[%d] changed\n", i); failures++; }
	}
	return failures != 0;
}
`
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
	src := errorPrelude + `
#include <string.h>
static int calls, calls_exp;
static double seen[8];
void enzymeLogError(const char *id, double err) {
	if (calls < 8) seen[calls] = err;
	calls++;
	if (strstr(id, "call")) calls_exp++;
}
double f(double x, double *side) {
	double y = exp(x) / 3;
	*side = y * 7; /* into memory without a shadow: reaches no result */
	return y + x;
}
int main(void) {
	double x = 0.75, side, ex = 4e-12;
	double r = __enzyme_error_estimate((void *)f, x, ex, enzyme_const, &side);
	double e = exp(x), y = e / 3;
	double ee = MAX(ULP(e), fabs(x * ex));     /* d exp = exp: condition x */
	double ey = MAX(ULP(y), ee);               /* /3 keeps a relative error */
	double er = MAX(ULP(y + x), fabs(y / (y + x) * ey) + fabs(x / (y + x) * ex));
	CHECK("error of exp(x)/3 + x", r, er);
	CHECK("three operations logged (exp, /, +)", calls, 3);
	CHECK("one of them a call", calls_exp, 1);
	CHECK("the logged error of exp", seen[0], ee);
	CHECK("the logged error of the division", seen[1], ey);
	CHECK("the last logged is the result's", seen[2], er);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") {
				t.Errorf("-O%s:\n%s", o, out)
			}
		})
	}
}
