package ad

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// TestCalleeWritesRun: helpers write derivatives into memory their caller
// owns (a constant-initialized local array, a struct, a buffer they
// return), and read constant parameters held in a struct passed
// enzyme_const; reverse and forward mode against central differences.
func TestCalleeWritesRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "callee_writes.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") {
				t.Fatal(out)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestLostDerivativeErrors: derivatives written into memory without a
// shadow stop the link where the differentiated code reads that memory
// back (the gradient would miss that path), and are dropped, as Enzyme
// drops them, where it does not.
func TestLostDerivativeErrors(t *testing.T) {
	t.Parallel()
	const prelude = `
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
`
	cases := []struct {
		name, src, err string
	}{
		{"global read back", `
double g;
__attribute__((noinline)) void store(double x) { g = x * x; }
double f(double x) { store(x); return g + x; }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 1.5)); return 0; }`,
			"writes derivatives into global 'g', which has no shadow, and the differentiated code reads it back"},
		{"global through returned pointer", `
char buffer[64];
int offset;
__attribute__((noinline)) double *set(double x) { double *m = (double *)&buffer[offset]; offset += 8; *m = x; return m; }
double f(double x) { double *t = set(x); return *t; }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 1.5)); return 0; }`,
			"global 'buffer'"},
		{"enzyme_const buffer read back", `
double f(double *x, double *work, int n) {
	for (int i = 0; i < n; i++) work[i] = x[i] * x[i];
	double s = 0;
	for (int i = 0; i < n; i++) s += work[(i + 1) % n] * x[i];
	return s;
}
int main(void) {
	double x[2] = {1.5, 0.5}, dx[2] = {0}, w[2];
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, 2);
	printf("%g\n", dx[0]);
	return 0;
}`,
			"has no shadow (enzyme_const), and the function reads that memory back"},
		// Read back by functions given no derivatives, so not
		// differentiated: the derivative would be lost silently.
		{"global read by an undifferentiated callee", `
static double gval;
__attribute__((noinline)) double helper(void) { return gval * 3; }
__attribute__((noinline)) double f(double x) { gval = x * x; return helper(); }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 1.0)); return 0; }`,
			"writes derivatives into global 'gval', which has no shadow"},
		// Read back only by a copy into memory without a shadow: the
		// copy's floats carry no derivative there (the gradient was 0 at
		// -O2 without the stop).
		{"global struct array copied out by memcpy", `
#include <string.h>
typedef struct { float a, b; int id; float w; } C;
static C scratch[2];
__attribute__((noinline)) void copy_c(C *out, float *in, long k) {
	for (long i = 0; i < 2; i++) {
		float a = in[2 * i], b = in[2 * i + 1];
		scratch[i].a = a;
		scratch[i].b = b * b;
		scratch[i].id = (int)i;
		scratch[i].w = a * b;
	}
	memcpy(out, scratch, k * sizeof(C));
}
static float f(float *in, long k) {
	C out[2];
	copy_c(out, in, k);
	float s = 0;
	for (long i = 0; i < k; i++) s += out[i].a * out[i].b + out[i].w * (out[i].id + 1);
	return s;
}
int main(void) {
	float in[4] = {0.7f, -1.2f, 0.4f, 1.5f}, din[4] = {0};
	__enzyme_autodiff((void *)f, in, din, enzyme_const, 2L);
	printf("%g\n", din[0]);
	return 0;
}`,
			"writes derivatives into global 'scratch', which has no shadow"},
		{"pointer kept in a global, written through by a callee", `
static double *gx;
__attribute__((noinline)) void bump(int j) { gx[j] = gx[j] * gx[j]; }
__attribute__((noinline)) double f(double *x, int n) {
	gx = x;
	for (int j = 0; j < n; j++) bump(j);
	return x[0] + x[1];
}
int main(void) {
	double x[2] = {3, 5}, dx[2] = {0, 0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 2);
	printf("%g %g\n", dx[0], dx[1]);
	return 0;
}`,
			"puts the address of memory holding derivatives (a parameter (a pointer)) into global 'gx', which has no shadow"},
	}
	for _, c := range cases {
		for _, o := range []string{"0", "2"} {
			t.Run(c.name+"/O"+o, func(t *testing.T) {
				_, err := tryBuildC(t, prelude+c.src, o)
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want an error containing %q, got %v", c.err, err)
				}
			})
		}
	}
}

// TestWriteOnlyLostDerivatives: derivatives written into a global or a
// buffer passed enzyme_const that nothing differentiated reads back are
// dropped; the gradient is exact.
func TestWriteOnlyLostDerivatives(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "write_only_lost_derivatives.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestCxxObjectsRun: objects returned through sret by constructors and
// operators, a lambda writing a captured local, a std::vector.
func TestCxxObjectsRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "cxx_objects.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// TestPushFromNullRun: a helper growing a buffer with realloc gets the
// buffer's null shadow on its first call (from -O2 up, the first call of
// the unrolled loop passes the constant null).
func TestPushFromNullRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "push_null.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestCallSummariesIR checks the activity analysis's call summaries on the
// optimized IR of small helpers: which arguments need shadows, and whether
// a returned pointer has one.
func TestCallSummariesIR(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "call_summaries_ir.c")
	m := preADModuleC(t, src, "2")
	d := newDiffer(m, Options{})
	fn := func(name string) *ir.Func {
		for _, f := range m.Funcs {
			if f.Name() == name {
				return f
			}
		}
		t.Fatalf("no function %s", name)
		return nil
	}
	cases := []struct {
		f         string
		acts      []activity.Activity
		needs     []bool
		retShadow bool
	}{
		// scale writes derivatives through a (from s), only reads w.
		{"scale", []activity.Activity{activity.Const, activity.Const, activity.Const, activity.Out}, []bool{true, false, false, false}, false},
		// With a already shadowed it needs nothing more.
		{"scale", []activity.Activity{activity.Dup, activity.Const, activity.Const, activity.Out}, []bool{false, false, false, false}, false},
		// fresh returns a pointer to memory it filled from x.
		{"fresh", []activity.Activity{activity.Out}, []bool{false}, true},
		// weights reads the constant struct's pointer and the active x: no
		// write, so no shadow is asked for p.
		{"weights", []activity.Activity{activity.Const, activity.Dup}, []bool{false, false}, false},
		// fill writes through every node of a list reached through itself.
		{"fill", []activity.Activity{activity.Const, activity.Out}, []bool{true, false}, false},
	}
	for _, c := range cases {
		s := d.callSummary(fn(c.f), c.acts, false)
		for i, want := range c.needs {
			if s.needs[i] != want {
				t.Errorf("%s %v: needs[%d] = %v, want %v", c.f, c.acts, i, s.needs[i], want)
			}
		}
		if s.retShadow != c.retShadow {
			t.Errorf("%s %v: retShadow = %v, want %v", c.f, c.acts, s.retShadow, c.retShadow)
		}
	}
	// In use: a (written by scale with an active x) and l (written by fill)
	// need shadows, w and p (read only) do not.
	a := d.analyzeActivity(fn("use"), []activity.Activity{activity.Out, activity.Const, activity.Const, activity.Const, activity.Const}, true, false)
	need := map[int]bool{}
	for _, u := range a.Unmet {
		for i, p := range fn("use").Params {
			if u.Base == p {
				need[i] = true
			}
		}
	}
	if !need[1] || !need[4] || need[2] || need[3] {
		t.Errorf("use: parameters needing shadows %v, want 1 (a) and 4 (l) only", need)
	}
}

// TestMixedStructPointersRun: run-time activity (runtimeactivity.go) for
// structs that hold pointers with and without shadows.
func TestMixedStructPointersRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "mixed_struct_pointers.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestRuntimeActivityStop: with run-time activity, a derivative written
// into memory reached through a pointer stored without a shadow (a
// workspace passed enzyme_const) stops the program with a message rather
// than losing the derivative.
func TestRuntimeActivityStop(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "runtime_activity_stop.c")
	for _, o := range []string{"0", "2"} {
		exe := buildC(t, src, o)
		out, err := exec.Command(exe).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "writes a value that carries a derivative into memory reached through a pointer stored without a shadow") {
			t.Errorf("-O%s: want the run-time activity stop, got %v\n%s", o, err, out)
		}
	}
}
