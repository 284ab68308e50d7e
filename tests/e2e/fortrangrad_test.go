package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gradMainC differentiates `double loss(const double *x, int n)` (a
// Fortran bind(C) function) at a fixed point, reverse and forward mode, and
// prints checkComparisons lines: "grad i derivative central-difference"
// and "fwd 0 tangent gradient·v".
const gradMainC = `#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double loss(const double *x, int n);
#define N 8
` + gradMainBody

// gradMainBody is gradMainC's main: the gradient at a fixed point of
// N inputs against central differences, and the forward tangent along v.
const gradMainBody = `int main(void) {
  double x[N], dx[N] = {0}, v[N], dv = 0;
  for (int i = 0; i < N; i++) { x[i] = 0.7 * sin(1.3 * i + 0.4) + 0.2 * i - 0.5; v[i] = 0.3 + 0.1 * i; }
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, xi = x[i];
    x[i] = xi + h; double fp = loss(x, N);
    x[i] = xi - h; double fm = loss(x, N);
    x[i] = xi;
    printf("grad %d %.17g %.17g\n", i, dx[i], (fp - fm) / (2 * h));
    dv += dx[i] * v[i];
  }
  printf("fwd 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N), dv);
  return 0;
}
`

// checkFortranGradient compiles src (Fortran defining loss) with
// gozyme-fc and links it with gradMainC at each level, then compares the
// gradient with central differences and the forward tangent with it.
func checkFortranGradient(t *testing.T, src string, levels ...string) {
	t.Helper()
	for _, o := range levels {
		dir := t.TempDir()
		for name, text := range map[string]string{"loss.f90": src, "main.c": gradMainC} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := toolEnv()
		run(t, dir, env, tool("gozyme-fc"), o, "-c", "loss.f90")
		run(t, dir, env, tool("gozyme-cc"), o, "main.c", "loss.o", "-o", "prog", "-lm")
		checkComparisons(t, "loss "+o, run(t, dir, env, filepath.Join(dir, "prog")),
			map[string]int{"grad": 8, "fwd": 1}, map[string]float64{"grad": fortranFD, "fwd": fortranExact})
	}
}

// TestFortranDerivedTypeArrayComponent differentiates through a local
// derived type whose fixed-size array component, filled in a loop, comes
// before an integer component: the array index (a getelementptr without
// inbounds) stays inside the component, so the integer is no float's bits.
func TestFortranDerivedTypeArrayComponent(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module layers
  use iso_c_binding
  implicit none
  type :: layer
    real(c_double) :: w(16)
    real(c_double) :: bias
    integer :: n
  end type
contains
  subroutine init_layer(l, x)
    type(layer), intent(inout) :: l
    real(c_double), intent(in) :: x(:)
    l%n = size(x)
    l%bias = 0.5d0
    l%w(1:l%n) = 2*x + 1
  end subroutine
  function forward_pass(x) result(e)
    real(c_double), intent(in) :: x(:)
    real(c_double) :: e
    type(layer) :: l
    call init_layer(l, x)
    e = sum(l%w(1:l%n) * x) + l%bias*l%n
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    e = forward_pass(x)
  end function
end module
`, "-O0", "-O2")
}

// readLossF90 reads a value into t, which before the READ held 2*x(1):
// READ overwrites it, so the derivative t carried must not reach x(1).
// With into = "s\n    t = s" it reads into s, which carries none, and
// assigns from it.
const readLossF90 = `module reader
  use iso_c_binding
  implicit none
contains
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, t, s
    character(len=16) :: buf
    buf = "0.75"
    t = x(1)*2
    e = t*t
    read(buf, *) INTO
    e = e + t*x(2)
  end function
end module
`

// TestFortranReadIntoActiveStops: a READ into a variable whose old value
// carried a derivative stops the link in reverse and forward mode, naming
// the runtime's input routine, where skipping it as I/O left the old
// derivative behind (a wrong gradient). Read into a variable that carries
// none and assigned from it, the gradient is right.
func TestFortranReadIntoActiveStops(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, strings.Replace(readLossF90, "INTO", "s\n    t = s", 1), "-O0", "-O2")
	for _, mode := range []string{"__enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);", "__enzyme_fwddiff((void *)loss"} {
		for _, o := range []string{"-O0", "-O2"} {
			dir := t.TempDir()
			main := gradMainC
			if strings.HasPrefix(mode, "__enzyme_fwddiff") {
				main = strings.Replace(main, "__enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);", "", 1)
			} else {
				main = strings.Replace(main, `printf("fwd 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N), dv);`, "", 1)
			}
			for name, text := range map[string]string{"loss.f90": strings.Replace(readLossF90, "INTO", "t", 1), "main.c": main} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := toolEnv()
			run(t, dir, env, tool("gozyme-fc"), o, "-c", "loss.f90")
			_, stderr, err := runErr(dir, env, tool("gozyme-cc"), o, "main.c", "loss.o", "-o", "prog", "-lm")
			if err == nil || !strings.Contains(stderr, "loss.f90:5: cannot differentiate 'loss': '_FortranAioInputReal64' reads input into memory that carries derivatives") {
				t.Errorf("%s %s: READ into a variable with a derivative linked (%v):\n%s", o, mode[:17], err, stderr)
			}
		}
	}
}

// TestFortranMathIntrinsics differentiates intrinsics that become libm or
// Fortran runtime calls needing their own rules: ASINH, ACOSH, ATANH, and
// MOD and MODULO of reals (_FortranAModReal8, _FortranAModuloReal8), with
// the divisor active and negative arguments, where the two differ.
func TestFortranMathIntrinsics(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module mathintr
  use iso_c_binding
  implicit none
contains
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    e = sum(asinh(x)) + acosh(x(4)**2 + 1.5d0) + atanh(0.5d0*tanh(x(6))) &
      + mod(x(5)*3, x(2) + 2) + modulo(-x(8)*4 - 1, x(3) + 1.7d0) &
      + mod(-x(1)*5, 1.3d0) * x(7) + modulo(x(7)*7, -(x(6) + 2))
  end function
end module
`, "-O0", "-O2")
}
