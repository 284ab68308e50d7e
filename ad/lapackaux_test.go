package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLapackAux: lacpy and lascl called by the program, differentiated by
// rule (lapackaux.go), through the Fortran ABI against Debian's reference
// liblapack (make deps-blas) and through Enzyme's cblas_<p>lacpy /
// cblas_<p>lascl ABI in both layouts: every uplo and every type but the
// band ones, rectangular matrices, cfrom and cto active; gradients against
// central differences, forward, split and batch mode against the
// gradients, in double and single precision, at every level.
func TestLapackAux(t *testing.T) {
	t.Parallel()
	needLapack(t)
	src := testdataC(t, "lapack_aux.c")
	for _, prec := range []string{"double", "single"} {
		for _, o := range optLevels {
			prec, o := prec, o
			t.Run(prec+"/O"+o, func(t *testing.T) {
				t.Parallel()
				var flags []string
				if prec == "single" {
					flags = append(flags, "-DSINGLE")
				}
				dir := t.TempDir()
				bc := compileBitcode(t, dir, "clang", "prog.c", src, o, flags...)
				exe, err := finishBuild(t, dir, "clang", bc, o, "-llapack", "-lblas", "-lm")
				if err != nil {
					t.Fatal(err)
				}
				if out := run(t, exe); strings.Count(out, "reverse vs FD") != 36 || strings.Contains(out, "MISMATCH") {
					t.Fatalf("want 36 matching cases:\n%s", out)
				}
			})
		}
	}
}

// TestLapackAuxBandStops: lascl of a band matrix has no rule: its
// derivative stops the program with a message.
func TestLapackAuxBandStops(t *testing.T) {
	t.Parallel()
	needLapack(t)
	const src = `void dlascl_(char *type, int *kl, int *ku, double *cfrom, double *cto, int *m, int *n, double *a, int *lda, int *info);
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void f(double *a) {
	char t = 'B';
	int kl = 1, ku = 1, n = 4, lda = 2, info;
	double from = 1, to = 3;
	dlascl_(&t, &kl, &ku, &from, &to, &n, &n, a, &lda, &info);
}
int main(void) {
	double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, da[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	__enzyme_autodiff((void *)f, enzyme_dup, a, da);
	return 0;
}
`
	dir := t.TempDir()
	bc := compileBitcode(t, dir, "clang", "prog.c", src, "2")
	exe, err := finishBuild(t, dir, "clang", bc, "2", "-llapack", "-lblas", "-lm")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "lascl of a band matrix") {
		t.Fatalf("want a stop naming lascl of a band matrix, got %v:\n%s", err, out)
	}
}
