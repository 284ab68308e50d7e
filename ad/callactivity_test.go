package ad

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdataC reads a C program of testdata/.
func testdataC(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestCalleeWritesRun: helpers write derivatives into memory their caller
// owns (a constant-initialized local array, a struct, a buffer they
// return), and read constant parameters held in a struct passed
// enzyme_const; reverse and forward mode against central differences.
func TestCalleeWritesRun(t *testing.T) {
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
	src := `
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double last;   /* a log of the last value, never read by the function */
__attribute__((noinline)) void note(double v) { last = v; }
double f(double *x, double *trace) {
	double y = sin(x[0]) * x[1];
	trace[0] = y;  /* an output the caller does not differentiate */
	note(y);
	return y * y;
}
int main(void) {
	double x[2] = {0.6, 1.7}, dx[2] = {0}, tr[1];
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, tr);
	double y = sin(x[0]) * x[1];
	double want0 = 2 * y * cos(x[0]) * x[1], want1 = 2 * y * sin(x[0]);
	int bad = fabs(dx[0] - want0) > 1e-12 || fabs(dx[1] - want1) > 1e-12;
	printf("%s %g %g (want %g %g) last=%g\n", bad ? "FAIL" : "ok", dx[0], dx[1], want0, want1, last);
	return bad;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestCxxObjectsRun: objects returned through sret by constructors and
// operators, a lambda writing a captured local, a std::vector.
func TestCxxObjectsRun(t *testing.T) {
	src := testdataC(t, "cxx_objects.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}
