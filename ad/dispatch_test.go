package ad

import (
	"strings"
	"testing"
)

// TestIndirectCallsRun: callbacks, tables indexed at run time, pointers to
// libm functions and a pointer chosen by a branch, at every level (-O0
// keeps the calls indirect).
func TestIndirectCallsRun(t *testing.T) {
	src := testdataC(t, "indirect_calls.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestVirtualCallsRun: C++ virtual calls, whose overriders take their own
// class as `this`.
func TestVirtualCallsRun(t *testing.T) {
	src := testdataC(t, "virtual_calls.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// TestIndirectCallUnknown: a callback of a type no function of the program
// has, given memory holding derivatives, is an error naming the call.
func TestIndirectCallUnknown(t *testing.T) {
	src := `
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef void (*scale_fn)(double *, int);
__attribute__((noinline)) void run(scale_fn f, double *a, int n) { f(a, n); }
double g(double *a, scale_fn f) { run(f, a, 3); return a[0] + a[1]; }
int main(void) {
	double a[3] = {1, 2, 3}, da[3] = {0};
	__enzyme_autodiff((void *)g, enzyme_dup, a, da, enzyme_const, (scale_fn)0);
	printf("%g\n", da[0]);
	return 0;
}`
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildC(t, src, o)
		if err == nil || !strings.Contains(err.Error(), "indirect call") || !strings.Contains(err.Error(), "takes pointers to memory that carries derivatives") {
			t.Errorf("-O%s: want the indirect-call error, got %v", o, err)
		}
	}
}
