package ad

import (
	"strings"
	"testing"
)

// TestTableCalls: functions called through a table of function pointers at
// a constant index, which -O0 leaves as a load and an indirect call: a
// constant global table, a constant struct of them, a local array with an
// initializer list (copied from a constant global) and one filled by
// stores. Reverse and forward mode against the analytic derivative, at
// every level.
func TestTableCalls(t *testing.T) {
	src := checkPrelude + `
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double (*const table[])(double) = {sq, cube, sin};
struct ops { double (*f)(double); double w; double (*g)(double); };
static const struct ops ops = {cube, 2.0, sq};
double global_table(double x) { return table[1](x) + table[0](x) * 2 + table[2](x); }
double struct_table(double x) { return ops.f(x) * ops.w + ops.g(x); }
double initialized(double x) {
	double (*local[3])(double) = {cube, sq, sin};
	return local[0](x) + 3 * local[1](x) + local[2](x);
}
double stored(double x) {
	double (*local[2])(double);
	local[1] = sq;
	local[0] = cube;
	return local[0](x) * local[1](x);
}
int main(void) {
	for (double x = -1.5; x < 2; x += 0.7) {
		double d[] = {3 * x * x + 4 * x + cos(x), 6 * x * x + 2 * x, 3 * x * x + 6 * x + cos(x), 5 * x * x * x * x};
		CHECK("global_table", __enzyme_autodiff((void *)global_table, x), d[0]);
		CHECK("struct_table", __enzyme_autodiff((void *)struct_table, x), d[1]);
		CHECK("initialized", __enzyme_autodiff((void *)initialized, x), d[2]);
		CHECK("stored", __enzyme_autodiff((void *)stored, x), d[3]);
		CHECK("global_table forward", __enzyme_fwddiff((void *)global_table, x, 1.0), d[0]);
		CHECK("struct_table forward", __enzyme_fwddiff((void *)struct_table, x, 1.0), d[1]);
		CHECK("initialized forward", __enzyme_fwddiff((void *)initialized, x, 1.0), d[2]);
		CHECK("stored forward", __enzyme_fwddiff((void *)stored, x, 1.0), d[3]);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"ok stored forward"})
		})
	}
}

// TestTableCallsDispatched: where the table's element is not provably one
// function (written with two functions on two paths; the table passed to
// a function that writes it) the call stays indirect and the derivative
// dispatches over the functions of its type (dispatch.go).
func TestTableCallsDispatched(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"two writes": {`
	double (*local[2])(double) = {sq, sq};
	if (x > 0) local[1] = cube;
	return local[1](x);`, "6.75"},
		"escaping": {`
	double (*local[2])(double) = {sq, cube};
	fill(local);
	return local[1](x);`, "3"},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			src := `
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
__attribute__((noinline)) void fill(double (**t)(double)) { t[1] = sq; }
double f(double x) {` + c.body + `
}
int main(void) { printf("d=%g\n", __enzyme_autodiff((void *)f, 1.5)); return 0; }
`
			for _, o := range optLevels {
				checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"d=" + c.want + "\n"})
			}
		})
	}
}
