package ad

import (
	"strings"
	"testing"
)

// TestPointerKeptInGlobal: a function keeps a pointer to memory holding
// derivatives (a malloc'd buffer, or its parameter) in a global without a
// shadow and writes or reads the buffer through the pointer read back
// from the global (in the function, in a callee, in forward mode; also
// overwriting it without a derivative, or handing it or the global's
// address to a function given no derivatives, so not differentiated). The
// global cannot carry the buffer's shadow pointer, so each build either
// gives the right gradient (where the optimizer forwards the stored
// pointer to the load, -O2) or stops naming the store; at -O0 the
// writes through the global were once dropped silently (a gradient of (3,
// 0) instead of (15, 9)). A global only recording the buffer, and one
// holding a pointer to data without derivatives, build and give the right
// gradient. The gradients are checked against analytic values and a
// central finite difference (testdata/global_escape.c).
func TestPointerKeptInGlobal(t *testing.T) {
	t.Parallel()
	const want = "puts the address of memory holding derivatives"
	for _, c := range []struct {
		shape   string
		mayStop bool
	}{
		{"WRITE_THROUGH_GLOBAL", true},
		{"WRITE_IN_CALLEE", true},
		{"STORE_IN_CALLEE", true},
		{"READ_THROUGH_GLOBAL", true},
		{"FORWARD", true},
		{"OVERWRITE_THROUGH_GLOBAL", true},
		{"CALLEE_GIVEN_LOADED", true},
		{"CALLEE_GIVEN_GLOBAL", true},
		{"CACHE", false},
		{"INACTIVE_DATA", false},
	} {
		src := checkPrelude + "#define SHAPE_" + c.shape + " 1\n" + testdataC(t, "global_escape.c")
		for _, o := range []string{"0", "2"} {
			t.Run(c.shape+"/O"+o, func(t *testing.T) {
				t.Parallel()
				exe, err := tryBuildC(t, src, o)
				if err != nil {
					if !c.mayStop || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "into global 'kept', which has no shadow") {
						t.Fatalf("-O%s: %v", o, err)
					}
					return
				}
				run(t, exe)
			})
		}
	}
	// Without the optimizer forwarding the pointer, the writes through the
	// global must stop the build.
	for _, shape := range []string{"WRITE_THROUGH_GLOBAL", "OVERWRITE_THROUGH_GLOBAL"} {
		_, err := tryBuildC(t, checkPrelude+"#define SHAPE_"+shape+" 1\n"+testdataC(t, "global_escape.c"), "0")
		if err == nil || !strings.Contains(err.Error(), "cannot differentiate 'f': ") || !strings.Contains(err.Error(), want+" (the call to 'malloc') into global 'kept'") {
			t.Errorf("%s -O0: want the error naming the store into 'kept', got %v", shape, err)
		}
	}
}

// TestPointerKeptInConstArgument: the same as TestPointerKeptInGlobal with
// the pointer kept in memory the caller passes without a shadow
// (enzyme_const): the build stops naming the parameter, or (where the
// optimizer forwards the stored pointer) the gradient is right.
func TestPointerKeptInConstArgument(t *testing.T) {
	t.Parallel()
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double f(const double *x, double **slot) {
	double *out = malloc(2 * sizeof(double));
	*slot = out;
	out[0] = x[0];
	out[1] = 0;
	(*slot)[1] += x[0] * x[1];
	double r = out[0] * out[0] + out[1] * out[1];
	free(out);
	return r;
}
int main(void) {
	double x[2] = {1.5, 2}, dx[2] = {0, 0}, *slot;
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, &slot);
	CHECK("d f / dx0", dx[0], 15);
	CHECK("d f / dx1", dx[1], 9);
	return failures != 0;
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			exe, err := tryBuildC(t, src, o)
			if err != nil {
				if !strings.Contains(err.Error(), "puts the address of memory holding derivatives (the call to 'malloc') into memory reached through parameter 2 of 'f', which has no shadow (enzyme_const)") {
					t.Fatalf("-O%s: %v", o, err)
				}
				return
			}
			if o == "0" {
				t.Errorf("-O0: want the build stopped (the writes through *slot are not forwarded)")
			}
			run(t, exe)
		})
	}
}
