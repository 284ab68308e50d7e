package ad

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LAPACK's potrf, potrs and trtrs differentiated by rule (lapackrules.go)
// against Debian's reference liblapack (make deps-blas), in the Fortran ABI
// and in the cblas_<p><x>(layout, ..., info) ABI of Enzyme's rules, both
// layouts, both triangles, lda > n: gradients against central
// differences; forward (also batch) and split-mode derivatives against the
// gradients.
func TestLapackRulesSystemLAPACK(t *testing.T) {
	t.Parallel()
	const inc = "/usr/include/x86_64-linux-gnu"
	for _, need := range []string{filepath.Join(inc, "cblas.h"), "/usr/lib/x86_64-linux-gnu/libblas.so", "/usr/lib/x86_64-linux-gnu/liblapack.so"} {
		if _, err := os.Stat(need); err != nil {
			if os.Geteuid() == 0 {
				t.Fatalf("%s is missing: run make deps-blas (libblas-dev, liblapack-dev)", need)
			}
			t.Skipf("%s is missing (make deps-blas installs libblas-dev and liblapack-dev)", need)
		}
	}
	src := testdataC(t, "lapack_rules.c")
	for _, tc := range []struct{ name, o, def string }{
		{"O0", "0", "-DNO_AUX"}, {"O2", "2", "-DNO_AUX"},
		// The program has dlacpy_ and dlascl_, which the rules then call.
		{"O2/lacpy", "2", "-DLAPACK_AUX"},
	} {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.o
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, o, "-I"+inc, tc.def)
			exe, err := finishBuild(t, dir, "clang", bc, o, "-llapack", "-lblas", "-lm")
			if err != nil {
				t.Fatal(err)
			}
			out := run(t, exe)
			if strings.Count(out, "reverse vs FD") != 36 || strings.Contains(out, "MISMATCH") {
				t.Fatalf("want 36 matching cases:\n%s", out)
			}
		})
	}
}

// A LAPACK call whose output has no shadow: the derivative written there is
// dropped where nothing reads it back, its own read of the old value
// included; read after the call or by the call again in a loop, the link
// stops.
func TestLapackConstOutput(t *testing.T) {
	t.Parallel()
	needLapack(t)
	src := testdataC(t, "lapack_const_output.c")
	for _, tc := range []struct{ name, def, wantErr string }{
		{"once", "-DONCE", ""},
		{"read-after", "-DREAD_AFTER", "reads that memory back"},
		{"in-loop", "-DIN_LOOP", "reads that memory back"},
	} {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, "2", tc.def)
			exe, err := finishBuild(t, dir, "clang", bc, "2", "-llapack", "-lblas", "-lm")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error mentioning %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.TrimSpace(run(t, exe)))
		})
	}
}

// needLapack skips the test without Debian's liblapack (make deps-blas),
// or fails it when run as root, who could have installed it.
func needLapack(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/liblapack.so"); err != nil {
		if os.Geteuid() == 0 {
			t.Fatal("liblapack.so is missing: run make deps-blas (liblapack-dev)")
		}
		t.Skip("liblapack.so is missing (make deps-blas installs liblapack-dev)")
	}
}

// spotrf_, spotrs_ and strtrs_: the same rules in single precision,
// against central differences of the double-precision computation.
func TestLapackRulesSinglePrecision(t *testing.T) {
	t.Parallel()
	needLapack(t)
	src := testdataC(t, "lapack_single.c")
	for _, o := range []string{"0", "2"} {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, o)
			exe, err := finishBuild(t, dir, "clang", bc, o, "-llapack", "-lblas", "-lm")
			if err != nil {
				t.Fatal(err)
			}
			if out := run(t, exe); strings.Count(out, "reverse vs FD") != 12 || strings.Contains(out, "MISMATCH") {
				t.Fatalf("want 12 matching cases:\n%s", out)
			}
		})
	}
}
