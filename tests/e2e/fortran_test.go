package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/gozyme/gozyme/toolchains/flang"
)

// needFlang skips a test when flang-16 is not installed (make deps-fortran).
func needFlang(t *testing.T) {
	t.Helper()
	if _, err := flang.Driver(toolchains.ConfigFromEnv()); err != nil {
		t.Skipf("flang-16 is not installed (make deps-fortran): %v", err)
	}
}

// Tolerances: analytic values to rounding, finite differences to their
// truncation error.
const fortranExact, fortranFD = 1e-12, 1e-6

// cmainWant and cmainTol are what main_c.c prints: how many derivatives of
// each function, and their tolerance.
var (
	cmainWant = map[string]int{"energy": 5, "forces": 5, "forces_primal": 5, "potential": 3, "energy_fwd": 1, "forces_fwd": 5}
	cmainTol  = map[string]float64{"energy": fortranExact, "forces": fortranFD, "forces_primal": fortranExact,
		"potential": fortranFD, "energy_fwd": fortranFD, "forces_fwd": fortranFD}
)

// TestFortranProject builds tests/projects/fortran with
// `CC=gozyme-cc FC=gozyme-fc make -j2`: Fortran in free and fixed form with
// modules (-J, -module-dir), C and Fortran mains, links at -O1 and -O0, AD across both languages
// (a C main differentiating Fortran, a Fortran main differentiating
// Fortran that calls C through an interface to __enzyme_autodiff), and a
// Fortran program compiled and linked in one call. Every derivative the
// programs print is compared with the analytic value or a central finite
// difference they print beside it.
func TestFortranProject(t *testing.T) {
	setup(t)
	needFlang(t)
	dir := copyProject(t, "fortran")
	env := toolEnv("CC=gozyme-cc", "FC=gozyme-fc")
	timed(t, "CC=gozyme-cc FC=gozyme-fc make -j2", func() { run(t, dir, env, "make", "-j2") })
	for _, obj := range []string{"energy.o", "bonds.o", "forces.o", "scale.o", "particles.o", "chain.o", "main_f.o", "main_c.o", "cfuncs.o"} {
		checkFatObject(t, filepath.Join(dir, obj))
	}
	for _, mod := range []string{"energy_mod.mod", "bonds_mod.mod", "chain_mod.mod", "particles.mod"} {
		if _, err := os.Stat(filepath.Join(dir, "mod", mod)); err != nil {
			t.Errorf("module file: %v", err)
		}
	}
	for _, c := range []struct {
		prog string
		want map[string]int
		tol  map[string]float64
	}{
		{"cmain", cmainWant, cmainTol},
		// Linked at -O0: nothing inlined, the gradient goes through the
		// assumed-shape call (bonds.f90) and its array descriptor.
		{"cmain_O0", cmainWant, cmainTol},
		{"fmain", map[string]int{"chain": 4, "energy": 4},
			map[string]float64{"chain": fortranExact, "energy": fortranFD}},
		{"fmain_cc", map[string]int{"chain": 4, "energy": 4},
			map[string]float64{"chain": fortranExact, "energy": fortranFD}},
		{"onecall", map[string]int{"spring_pos": 6, "spring_mass": 3},
			map[string]float64{"spring_pos": fortranExact, "spring_mass": fortranExact}},
	} {
		prog := filepath.Join(dir, c.prog)
		checkNoBitcode(t, prog)
		checkComparisons(t, c.prog, run(t, dir, env, prog), c.want, c.tol)
	}
}

// TestFortranCMake builds the C-main part of tests/projects/fortran with
// CMake and cmake/gozyme-toolchain.cmake: Fortran sources in a static
// library compiled by gozyme-fc, linked into a C program by gozyme-cc
// (which adds the Fortran runtime for the library's Fortran objects).
func TestFortranCMake(t *testing.T) {
	setup(t)
	needFlang(t)
	src := copyProject(t, "fortran")
	env := toolEnv()
	build := cmakeBuild(t, src, env)
	exe := filepath.Join(build, "cmain_cmake")
	checkNoBitcode(t, exe)
	checkComparisons(t, "cmain_cmake", run(t, build, env, exe),
		cmainWant, cmainTol)
}

// checkComparisons parses "name index derivative expected" lines and
// checks each derivative against the expected value within the name's
// relative tolerance (absolute below 1), and how many lines each name has.
func checkComparisons(t *testing.T, prog, out string, want map[string]int, tol map[string]float64) {
	t.Helper()
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Errorf("%s: unexpected output line %q", prog, line)
			continue
		}
		tl, ok := tol[f[0]]
		d, err1 := strconv.ParseFloat(f[2], 64)
		w, err2 := strconv.ParseFloat(f[3], 64)
		if !ok || err1 != nil || err2 != nil {
			t.Errorf("%s: unexpected output line %q", prog, line)
			continue
		}
		got[f[0]]++
		if math.IsNaN(d) || math.Abs(d-w) > tl*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: %s[%s] = %.17g, want %.17g", prog, f[0], f[1], d, w)
		}
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %d derivatives of %s printed, want %d; output:\n%s", prog, got[name], name, n, out)
		}
	}
}

// TestFortranRuntimeCallError differentiates Fortran whose MATMUL stays a
// call into the Fortran runtime: the link must fail naming the routine, the
// function and its source line, and leave no executable.
// (Both arrays are active: an enzyme_const one would stop the link first,
// its pointer going without a shadow into the descriptor MATMUL gets.)
func TestFortranRuntimeCallError(t *testing.T) {
	setup(t)
	needFlang(t)
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("quad.f90", `module quadm
  use iso_c_binding, only: c_double, c_int
contains
  function quad(a, x, n) bind(C, name="quad") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: a(n,n), x(n)
    real(c_double) :: e
    e = dot_product(x, matmul(a, x))
  end function
end module
`)
	write("main.c", `extern int enzyme_const;
double quad(const double *a, const double *x, int n);
void __enzyme_autodiff(void *, ...);
int main(void) {
  double a[4] = {1, 2, 3, 4}, da[4] = {0}, x[2] = {1, 2}, dx[2] = {0};
  __enzyme_autodiff((void *)quad, a, da, x, dx, enzyme_const, 2);
  return 0;
}
`)
	env := toolEnv()
	run(t, dir, env, tool("gozyme-fc"), "-O2", "-c", "quad.f90")
	_, stderr, err := runErr(dir, env, tool("gozyme-cc"), "-O2", "main.c", "quad.o", "-o", "prog")
	if err == nil {
		t.Fatal("linking a derivative through MATMUL's runtime call succeeded; want an error naming _FortranAMatmul")
	}
	for _, want := range []string{"quad.f90:4: cannot differentiate 'quad'", "'_FortranAMatmul'"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("error output lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "prog")); err == nil {
		t.Error("the failed link left prog behind")
	}
}

// TestFortranPassThrough checks that gozyme-fc command lines making no
// object run flang unchanged, and that -S output is flang's.
func TestFortranPassThrough(t *testing.T) {
	setup(t)
	needFlang(t)
	dir := copyProject(t, "fortran")
	env := toolEnv()
	if out := run(t, dir, env, tool("gozyme-fc"), "--version"); !strings.Contains(out, "flang") {
		t.Errorf("gozyme-fc --version printed %q", out)
	}
	run(t, dir, env, tool("gozyme-fc"), "-fsyntax-only", "scale.f")
	run(t, dir, env, tool("gozyme-fc"), "-S", "scale.f", "-o", "scale.s")
	asm, err := os.ReadFile(filepath.Join(dir, "scale.s"))
	if err != nil || !strings.Contains(string(asm), "fscale_") {
		t.Errorf("gozyme-fc -S wrote no assembly for fscale_ (%v)", err)
	}
	pre := run(t, dir, env, tool("gozyme-fc"), "-E", "-DCOUPLED", "forces.F90")
	if !strings.Contains(pre, "subroutine forces") || !strings.Contains(pre, "x(i)*x(j)") {
		t.Errorf("gozyme-fc -E printed %q", pre)
	}
}

// TestFortranNoBitcodeWarning makes the bitcode route fail (a flang-new
// that refuses -emit-fir): the compile still succeeds with flang's object
// and warns that derivatives cannot go through the file.
func TestFortranNoBitcodeWarning(t *testing.T) {
	setup(t)
	needFlang(t)
	flangPath, _ := flang.Driver(toolchains.ConfigFromEnv())
	fake := t.TempDir()
	script := "#!/bin/sh\nfor a; do [ \"$a\" = -emit-fir ] && { echo 'simulated frontend failure' >&2; exit 1; }; done\nexec " + flangPath + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(fake, "flang-new"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := copyProject(t, "fortran")
	_, stderr, err := runErr(dir, toolEnv("GOZYME_FLANG_BIN="+fake), tool("gozyme-fc"), "-c", "scale.f")
	if err != nil {
		t.Fatalf("gozyme-fc -c failed: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "gozyme-fc: warning: scale.f: no bitcode embedded") || !strings.Contains(stderr, "simulated frontend failure") {
		t.Errorf("no warning naming the file and the cause:\n%s", stderr)
	}
	if s := sections(t, filepath.Join(dir, "scale.o")); s[".llvmbc"] {
		t.Error("scale.o has a .llvmbc section")
	}
}

// TestFortranLapackRules builds tests/projects/fortran-lapack: Fortran
// calling dpotrf, dpotrs and dtrtrs on explicit-shape arrays, differentiated
// by gozyme's LAPACK rules against Debian's liblapack, at -O2 and -O0; the
// program checks the gradient against central differences.
func TestFortranLapackRules(t *testing.T) {
	setup(t)
	needFlang(t)
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/liblapack.so"); err != nil {
		if os.Geteuid() == 0 {
			t.Fatal("liblapack.so is missing: run make deps-blas (liblapack-dev)")
		}
		t.Skip("liblapack.so is missing (make deps-blas installs liblapack-dev)")
	}
	for _, o := range []string{"-O2", "-O0"} {
		dir := copyProject(t, "fortran-lapack")
		env := toolEnv("CC=gozyme-cc", "FC=gozyme-fc", "FFLAGS="+o, "CFLAGS="+o)
		run(t, dir, env, "make")
		if out := run(t, dir, nil, "./prog"); !strings.Contains(out, "max error") {
			t.Errorf("%s: %s", o, out)
		}
	}
}

// TestFortranBlasRules builds tests/projects/fortran-blas: Fortran calling
// dgemv and ddot, differentiated by gozyme's BLAS rules (Fortran ABI, a
// trailing hidden character length) against a BLAS object built without
// gozyme, at -O2 and -O0; the program checks the analytic gradient.
func TestFortranBlasRules(t *testing.T) {
	setup(t)
	needFlang(t)
	for _, o := range []string{"-O2", "-O0"} {
		dir := copyProject(t, "fortran-blas")
		env := toolEnv("CC=gozyme-cc", "FC=gozyme-fc", "FFLAGS="+o, "CFLAGS="+o)
		run(t, dir, env, "make")
		if out := run(t, dir, nil, "./prog"); !strings.Contains(out, "max error") {
			t.Errorf("%s: %s", o, out)
		}
	}
}
