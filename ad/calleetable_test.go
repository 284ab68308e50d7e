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
	t.Parallel()
	src := checkPrelude + testdataC(t, "table_calls.c")
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
	t.Parallel()
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
