package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/gozyme/gozyme/toolchains/flang"
)

// TestFortranSumRule differentiates SUM of assumed-shape arrays, which
// flang-16 leaves as calls of the runtime's _FortranASumReal8: a rank-2
// array and a strided section of it, a product expression (a temporary),
// a reversed section times another, and a box refilled in a loop for
// each column (the reverse must read each call's own descriptor).
// DOT_PRODUCT of sections (flang inlines those) rides along.
func TestFortranSumRule(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module reductions
  use iso_c_binding
  implicit none
contains
  function total(a) result(e)
    real(c_double), intent(in) :: a(:,:)
    real(c_double) :: e
    e = sum(a)
  end function
  function inner(u, w) result(e)
    real(c_double), intent(in) :: u(:), w(:)
    real(c_double) :: e
    e = dot_product(u, w)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, a(2, 4), w(n)
    integer :: j
    do j = 1, 4
      a(:, j) = x(2*j-1:2*j)
    end do
    w = sin(x)
    e = total(a*a) + total(a(:, 2:4:2)) + sum(x(n:1:-1)*x(1:n))
    e = e + inner(x(1:n:2), x(2:n:2)) + dot_product(w, x) + inner(x, x)
    do j = 1, 4
      e = e + total(a(:, j:j))**2 + inner(a(:, j), a(:, 5-j))*x(j)
    end do
  end function
end module
`, "-O0", "-O2")
}

// TestFortranSumShapes differentiates SUM over boxes whose byte strides
// are not the element size: a derived type's component (p%y), a reversed
// section of an allocatable with step -3, and rank-3 sections with a
// negative stride in the last dimension.
func TestFortranSumShapes(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module shapes
  use iso_c_binding
  implicit none
  type :: pt
    real(c_double) :: x, y
    integer :: tag
  end type
contains
  function total(v) result(e)
    real(c_double), intent(in) :: v(:)
    real(c_double) :: e
    e = sum(v)
  end function
  function cube(c) result(e)
    real(c_double), intent(in) :: c(:,:,:)
    real(c_double) :: e
    e = sum(c*c)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(pt) :: p(4)
    real(c_double), allocatable :: w(:)
    real(c_double) :: c(2, 2, 2)
    integer :: j, k
    do j = 1, 4
      p(j)%x = x(2*j-1); p(j)%y = x(2*j)*x(1); p(j)%tag = j
    end do
    allocate(w(n))
    w = exp(x/4)
    do k = 1, 2
      do j = 1, 2
        c(:, j, k) = x(4*k+2*j-5:4*k+2*j-4)
      end do
    end do
    e = total(p%y)*total(p%x) + total(w(n:1:-3)) + cube(c(:, :, 2:1:-1)) * x(3) + cube(c(2:2, :, :))
    deallocate(w)
  end function
end module
`, "-O0", "-O2")
}

// TestFortranMaxvalMinvalRule differentiates MAXVAL and MINVAL
// (_FortranAMaxvalReal8, _FortranAMinvalReal8) of a rank-2 product, a
// strided 2-D section, a reversed strided vector and a box refilled in a
// loop: the derivative goes to the extremal element. The real(4) calls
// (times zero) only check that their rules build and run.
func TestFortranMaxvalMinvalRule(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module extrema
  use iso_c_binding
  implicit none
contains
  function spread_of(a) result(e)
    real(c_double), intent(in) :: a(:,:)
    real(c_double) :: e
    e = maxval(a) - 2*minval(a)
  end function
  function top(v) result(e)
    real(c_double), intent(in) :: v(:)
    real(c_double) :: e
    e = maxval(v)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, a(2, 4)
    real(4) :: f(n)
    integer :: j
    do j = 1, 4
      a(:, j) = x(2*j-1:2*j)
    end do
    f = real(x, 4)
    e = spread_of(a*a) * x(2) + top(x(n:1:-2)) + spread_of(a(:, 2:4:2))
    do j = 1, 3
      e = e + top(a(:, j) * x(j+1))**2
    end do
    e = e + minval(f(2:n:3)) * 0 + real(maxval(f), 8) * 0
  end function
end module
`, "-O0", "-O2")
}

// flangDescriptorC declares flang's descriptor (ISO_Fortran_binding.h's
// CFI_cdesc_t) of rank up to 2 for C test programs, desc_t.
const flangDescriptorC = `/* flang's descriptor (ISO_Fortran_binding.h CFI_cdesc_t) of rank up to 2. */
typedef struct { long lower, extent, sm; } dim_t;
typedef struct {
  void *base; long elem_len; int version;
  signed char rank, type; unsigned char attribute, addendum;
  dim_t dim[2];
} desc_t;
`

// reductionMainC calls the Fortran runtime's reductions directly on
// descriptors built as flang builds them (ISO_Fortran_binding.h's
// CFI_cdesc_t): DotProductReal8 of strided and reversed vectors, SumReal8
// of a strided 2-D section, and the Real4 routines (MAXVAL and MINVAL
// too), whose gradient is compared with its analytic value.
const reductionMainC = `#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
` + flangDescriptorC + `double _FortranASumReal8(const desc_t *, const char *, int, int, const desc_t *);
float _FortranASumReal4(const desc_t *, const char *, int, int, const desc_t *);
double _FortranADotProductReal8(const desc_t *, const desc_t *, const char *, int);
float _FortranADotProductReal4(const desc_t *, const desc_t *, const char *, int);
float _FortranAMaxvalReal4(const desc_t *, const char *, int, int, const desc_t *);
float _FortranAMinvalReal4(const desc_t *, const char *, int, int, const desc_t *);
static desc_t vec(void *p, int kind, long n, long stride) {
  desc_t d = {p, kind, 20180515, 1, kind == 8 ? 28 : 27, 0, 0, {{1, n, stride * kind}}};
  return d;
}
#define N 8
/* loss mixes strided and reversed vectors and a 2-D section. */
double loss(const double *x, int n) {
  double t[N];
  for (int i = 0; i < n; i++) t[i] = x[i] * x[i];
  desc_t a = vec((void *)x, 8, n / 2, 2), b = vec((void *)(x + 1), 8, n / 2, 2);
  desc_t r = vec((void *)(x + n - 1), 8, n, -1), s = vec(t, 8, n, 1);
  desc_t m = {t + 1, 8, 20180515, 2, 28, 0, 0, {{1, 2, 8}, {1, 3, 16}}}; /* t(2:3, 1:5:2) */
  double e = _FortranADotProductReal8(&a, &b, "x", 1) + _FortranADotProductReal8(&r, &s, "x", 2);
  return e + _FortranASumReal8(&m, "x", 3, 0, 0) * x[2] + _FortranASumReal8(&r, "x", 4, 0, 0);
}
/* loss4: single precision, f = x: sum(f(2::2))*x(4) + dot(f, f)
   + 2 maxval(f) - minval(f(2::2)); its gradient is x(4) at the odd
   indices, plus sum(f(2::2)) at index 3, plus 2 f, plus 2 at f's largest
   element, minus 1 at the smallest odd one. */
double loss4(const double *x, int n) {
  float f[N];
  for (int i = 0; i < n; i++) f[i] = (float)x[i];
  desc_t g = vec(f, 4, n, 1), h = vec(f + 1, 4, n / 2, 2);
  return _FortranASumReal4(&h, "x", 5, 0, 0) * x[3] + _FortranADotProductReal4(&g, &g, "x", 6) +
         2 * _FortranAMaxvalReal4(&g, "x", 7, 0, 0) - _FortranAMinvalReal4(&h, "x", 8, 0, 0);
}
int main(void) {
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
  double x4[N], d4[N] = {0}, g4[N], odd = 0, dv4 = 0;
  for (int i = 0; i < N; i++) x4[i] = (float)x[i];
  int imax = 0, imin = 1;
  for (int i = 1; i < N; i += 2) odd += (float)x4[i];
  for (int i = 0; i < N; i++) {
    if (x4[i] > x4[imax]) imax = i;
    if (i % 2 && x4[i] < x4[imin]) imin = i;
  }
  __enzyme_autodiff((void *)loss4, enzyme_dup, x4, d4, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    g4[i] = 2 * (float)x4[i] + (i % 2 ? x4[3] : 0) + (i == 3 ? odd : 0) + (i == imax ? 2 : 0) - (i == imin ? 1 : 0);
    printf("grad4 %d %.17g %.17g\n", i, d4[i], g4[i]);
    dv4 += g4[i] * v[i];
  }
  printf("fwd4 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss4, enzyme_dup, x4, v, enzyme_const, N), dv4);
  return 0;
}
`

// TestFortranRuntimeReductionRules differentiates C calling the Fortran
// runtime's SUM and DOT_PRODUCT routines (double and single precision) on
// hand-built descriptors with strides, negative ones included, and rank
// 2: flang-16 inlines DOT_PRODUCT of real vectors itself, so only such a
// call reaches the DotProduct rules.
func TestFortranRuntimeReductionRules(t *testing.T) {
	setup(t)
	needFlang(t)
	driver, err := flang.Driver(toolchains.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"-O0", "-O2"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(reductionMainC), 0o644); err != nil {
			t.Fatal(err)
		}
		env := toolEnv()
		run(t, dir, env, tool("gozyme-cc"), o, "main.c", "-o", "prog", "-L"+flang.RuntimeDir(driver), "-lFortranRuntime", "-lFortranDecimal", "-lstdc++", "-lm")
		checkComparisons(t, "reductions "+o, run(t, dir, env, filepath.Join(dir, "prog")),
			map[string]int{"grad": 8, "fwd": 1, "grad4": 8, "fwd4": 1},
			map[string]float64{"grad": fortranFD, "fwd": fortranExact, "grad4": 1e-6, "fwd4": 1e-6})
	}
}

// TestFortranSumMaskDimStops: SUM with a mask (a SumReal8 call with a mask
// descriptor) and SUM along a dimension (_FortranASumDim) have no rule:
// the link stops naming the routine, in reverse and forward mode.
func TestFortranSumMaskDimStops(t *testing.T) {
	setup(t)
	needFlang(t)
	masked := `module masked
  use iso_c_binding
  implicit none
contains
  function total(v) result(e)
    real(c_double), intent(in) :: v(:)
    real(c_double) :: e
    e = sum(v, mask=v > 0)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    e = total(x*x)
  end function
end module
`
	dimmed := `module dimmed
  use iso_c_binding
  implicit none
contains
  function cols(a) result(e)
    real(c_double), intent(in) :: a(:,:)
    real(c_double) :: e
    real(c_double) :: s(size(a, 2))
    s = sum(a, dim=1)
    e = s(1)*s(2)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, a(2, 4)
    integer :: j
    do j = 1, 4
      a(:, j) = x(2*j-1:2*j)
    end do
    e = cols(a)
  end function
end module
`
	rev := "__enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);"
	fwd := `printf("fwd 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N), dv);`
	for _, c := range []struct{ src, want string }{
		{masked, "no derivative for the call to '_FortranASumReal8' with a DIM or MASK argument"},
		{dimmed, "no derivative for the call to '_FortranASumDim'"},
	} {
		for _, mode := range []string{"reverse", "forward"} {
			main := strings.Replace(gradMainC, fwd, "", 1)
			if mode == "forward" {
				main = strings.Replace(gradMainC, rev, "", 1)
			}
			for _, o := range []string{"-O0", "-O2"} {
				dir := t.TempDir()
				for name, text := range map[string]string{"loss.f90": c.src, "main.c": main} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				env := toolEnv()
				run(t, dir, env, tool("gozyme-fc"), o, "-c", "loss.f90")
				_, stderr, err := runErr(dir, env, tool("gozyme-cc"), o, "main.c", "loss.o", "-o", "prog", "-lm")
				if err == nil || !strings.Contains(stderr, c.want) {
					t.Errorf("%s %s: want a stop with %q, got (%v):\n%s", mode, o, c.want, err, stderr)
				}
			}
		}
	}
}

// TestFortranSumInParallelStops: SUM inside an OpenMP parallel loop stops
// the link in reverse mode, whose rule adds into the shadows with plain
// stores (threads may share the array).
func TestFortranSumInParallelStops(t *testing.T) {
	setup(t)
	needFlang(t)
	src := `module par
  use iso_c_binding
  implicit none
contains
  function part(v) result(e)
    real(c_double), intent(in) :: v(:)
    real(c_double) :: e
    e = sum(v)
  end function
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, p(4)
    integer :: j
    !$omp parallel do
    do j = 1, 4
      p(j) = part(x(2*j-1:2*j))**2
    end do
    e = p(1) + p(2)*p(3) + p(4)
  end function
end module
`
	dir := t.TempDir()
	for name, text := range map[string]string{"loss.f90": src, "main.c": gradMainC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := toolEnv()
	run(t, dir, env, tool("gozyme-fc"), "-fopenmp", "-O2", "-c", "loss.f90")
	_, stderr, err := runErr(dir, env, tool("gozyme-cc"), "-fopenmp", "-O2", "main.c", "loss.o", "-o", "prog", "-lm")
	want := "'_FortranASumReal8' is differentiated by a rule whose reverse cannot run in threads"
	if err == nil || !strings.Contains(stderr, want) {
		t.Errorf("want a stop with %q, got (%v):\n%s", want, err, stderr)
	}
}

// mixedDotC calls DotProductReal8 with a real(4) and a real(8) vector, as
// flang does for dot_product of the two kinds: the runtime converts, the
// rule does not, and the derivative stops the program with a message.
const mixedDotC = `#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct { long lower, extent, sm; } dim_t;
typedef struct {
  void *base; long elem_len; int version;
  signed char rank, type; unsigned char attribute, addendum;
  dim_t dim[1];
} desc_t;
double _FortranADotProductReal8(const desc_t *, const desc_t *, const char *, int);
double loss(const double *x, int n) {
  float f[4] = {1, 2, 3, 4};
  desc_t a = {(void *)x, 8, 20180515, 1, 28, 0, 0, {{1, n, 8}}};
  desc_t b = {f, 4, 20180515, 1, 27, 0, 0, {{1, n, 4}}};
  return _FortranADotProductReal8(&a, &b, "x", 1);
}
int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, 4);
  printf("grad %g\n", dx[0]);
  return 0;
}
`

// TestFortranDotProductMixedKindAborts: a descriptor of another element
// type than the routine's aborts the derivative at run time, naming the
// routine, instead of reading floats as doubles.
func TestFortranDotProductMixedKindAborts(t *testing.T) {
	setup(t)
	needFlang(t)
	driver, err := flang.Driver(toolchains.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(mixedDotC), 0o644); err != nil {
		t.Fatal(err)
	}
	env := toolEnv()
	run(t, dir, env, tool("gozyme-cc"), "-O2", "main.c", "-o", "prog", "-L"+flang.RuntimeDir(driver), "-lFortranRuntime", "-lFortranDecimal", "-lstdc++", "-lm")
	stdout, stderr, err := runErr(dir, env, filepath.Join(dir, "prog"))
	want := "the derivative of '_FortranADotProductReal8' was given an array descriptor it cannot read"
	if err == nil || !strings.Contains(stderr, want) || strings.Contains(stdout, "grad") {
		t.Errorf("want an abort with %q, got (%v):\n%s%s", want, err, stdout, stderr)
	}
}

// constArrayMainC differentiates loss(a, x, n) with a enzyme_const.
const constArrayMainC = `#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double loss(const double *a, const double *x, int n);
#define N 6
int main(void) {
  double a[N], x[N], dx[N] = {0}, v[N], dv = 0;
  for (int i = 0; i < N; i++) { a[i] = cos(i); x[i] = 0.5 + 0.3 * i; v[i] = 0.1 * i - 0.2; }
  __enzyme_autodiff((void *)loss, enzyme_const, a, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, xi = x[i];
    x[i] = xi + h; double fp = loss(a, x, N);
    x[i] = xi - h; double fm = loss(a, x, N);
    x[i] = xi;
    printf("grad %d %.17g %.17g\n", i, dx[i], (fp - fm) / (2 * h));
    dv += dx[i] * v[i];
  }
  printf("fwd 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss, enzyme_const, a, enzyme_dup, x, v, enzyme_const, N), dv);
  return 0;
}
`

// TestFortranSumConstArray: SUM and DOT_PRODUCT over an array passed
// enzyme_const (its box has no shadow array), alone and multiplied by an
// active one, next to active ones.
func TestFortranSumConstArray(t *testing.T) {
	setup(t)
	needFlang(t)
	for _, o := range []string{"-O0", "-O2"} {
		dir := t.TempDir()
		for name, text := range map[string]string{"loss.f90": `module cst
  use iso_c_binding
  implicit none
contains
  function total(v) result(e)
    real(c_double), intent(in) :: v(:)
    real(c_double) :: e
    e = sum(v)
  end function
  function loss(a, x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: a(n), x(n)
    real(c_double) :: e
    e = total(a) * total(x*x) + total(a(1:n:2) * x(1:n:2)) + dot_product(a, x)
  end function
end module
`, "main.c": constArrayMainC} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := toolEnv()
		run(t, dir, env, tool("gozyme-fc"), o, "-c", "loss.f90")
		run(t, dir, env, tool("gozyme-cc"), o, "main.c", "loss.o", "-o", "prog", "-lm")
		checkComparisons(t, "const "+o, run(t, dir, env, filepath.Join(dir, "prog")),
			map[string]int{"grad": 6, "fwd": 1}, map[string]float64{"grad": fortranFD, "fwd": fortranExact})
	}
}
