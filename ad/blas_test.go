package ad

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

// BLAS calls are differentiated by rule (blasrules.go), whether the
// routines come as bitcode beside the program (a plain-C reference BLAS,
// whose bodies the rules must not look at) or from an object compiled
// without gozyme (no bitcode at all: as a real BLAS library links).

func TestBlasRulesWithBodies(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "blas_decls.h") + testdataC(t, "blas_ref.c") + testdataC(t, "blas_rules.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			checkBlasRun(t, run(t, buildC(t, src, o)))
		})
	}
}

func TestBlasRulesLinkedObject(t *testing.T) {
	t.Parallel()
	obj := blasReferenceObject(t)
	src := testdataC(t, "blas_decls.h") + testdataC(t, "blas_rules.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, o)
			exe, err := finishBuild(t, dir, "clang", bc, o, obj, "-lm")
			if err != nil {
				t.Fatal(err)
			}
			checkBlasRun(t, run(t, exe))
		})
	}
}

// blasReferenceObject compiles the reference BLAS with plain clang-14.
func blasReferenceObject(t *testing.T) string {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "ref.c")
	if err := os.WriteFile(c, []byte(testdataC(t, "blas_decls.h")+testdataC(t, "blas_ref.c")), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "ref.o")
	if _, err := toolchains.Run(context.Background(), "clang", "-c", "-O2", c, "-o", obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func checkBlasRun(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, " 0 failures") {
		t.Fatalf("%s", out)
	}
	t.Log(strings.TrimSpace(out))
}

// What the rules cannot handle stops the link naming the call: a routine
// called with arguments that are not CBLAS's, a BLAS routine without a
// rule or a body, derivatives written into memory passed enzyme_const, a
// reverse run by threads.
func TestBlasErrors(t *testing.T) {
	t.Parallel()
	const prelude = `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
`
	cases := []struct {
		name, src, want string
		flags           []string
	}{
		{"signature", `
double cblas_ddot(int n, double *x);
double f(double *x) { return cblas_ddot(3, x); }
void g(double *x, double *dx) { __enzyme_autodiff((void *)f, x, dx); }
int main(void) { return 0; }
`, "has arguments that are not those of CBLAS's dot", nil},
		{"no rule", `
void cblas_dspr(int layout, int uplo, int n, double alpha, const double *x, int incx, double *Ap);
void f(double *A, double *x) { cblas_dspr(102, 121, 3, 1.0, x, 1, A); }
void g(double *A, double *dA, double *x, double *dx) { __enzyme_autodiff((void *)f, A, dA, x, dx); }
int main(void) { return 0; }
`, "cblas_dspr", nil},
		{"const output", `
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double *A, int lda,
                 const double *x, int incx, double beta, double *y, int incy);
double f(double *A, double *x, double *y) {
  cblas_dgemv(102, 111, 2, 2, 1.0, A, 2, x, 1, 0.0, y, 1);
  return y[0] + y[1];
}
void g(double *A, double *dA, double *x, double *y) {
  __enzyme_autodiff((void *)f, enzyme_dup, A, dA, enzyme_const, x, enzyme_const, y);
}
int main(void) { return 0; }
`, "cblas_dgemv", nil},
		{"threads", `
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
void f(double *A, double *x, double *out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = cblas_ddot(n, A + i * n, 1, x, 1);
}
void g(double *A, double *dA, double *x, double *dx, double *o, double *d) {
  __enzyme_autodiff((void *)f, A, dA, x, dx, o, d, enzyme_const, 4);
}
int main(void) { return 0; }
`, "whose reverse cannot run in threads", []string{"-fopenmp"}},
	}
	for _, tc := range cases {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tryBuildC(t, prelude+tc.src, "2", tc.flags...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error mentioning %q, got %v", tc.want, err)
			}
			t.Log(err)
		})
	}
}

// A real BLAS library: Debian's libblas (make deps-blas) through its own
// cblas.h, linked as a shared library.
func TestBlasRulesSystemBLAS(t *testing.T) {
	t.Parallel()
	const inc = "/usr/include/x86_64-linux-gnu"
	if _, err := os.Stat(filepath.Join(inc, "cblas.h")); err != nil {
		t.Skip("no cblas.h (make deps-blas)")
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libblas.so"); err != nil {
		t.Skip("no libblas.so (make deps-blas)")
	}
	src := testdataC(t, "blas_system.c")
	for _, o := range []string{"0", "2"} {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, o, "-I"+inc)
			exe, err := finishBuild(t, dir, "clang", bc, o, "-lblas", "-lm")
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.TrimSpace(run(t, exe)))
		})
	}
}
