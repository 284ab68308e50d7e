package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/gozyme/gozyme/toolchains/flang"
)

// TestFortranSectionCopyInOut differentiates sections passed to
// explicit-shape dummies, which flang-16 copies in and out through the
// runtime's _FortranAAssign: a strided real section the callee reads and
// writes (each element from another), a rank-2 section with a strided
// second dimension, a reversed complex section, and an integer section
// (no derivative: its Assign calls must still link).
func TestFortranSectionCopyInOut(t *testing.T) {
	setup(t)
	needFlang(t)
	checkFortranGradient(t, `module sections
  use iso_c_binding
  implicit none
contains
  subroutine scale(v, m)
    integer, intent(in) :: m
    real(c_double), intent(inout) :: v(m)
    integer :: i
    do i = 1, m
      v(i) = v(i)*v(i) + 0.5d0*i*v(m+1-i)
    end do
  end subroutine
  subroutine mix(b, m)
    integer, intent(in) :: m
    real(c_double), intent(inout) :: b(2, m)
    b(1, :) = b(1, :)*b(2, :)
    b(2, :) = sin(b(2, :)) + b(1, 1)
  end subroutine
  subroutine zmul(z, m)
    integer, intent(in) :: m
    complex(c_double), intent(inout) :: z(m)
    z = z*z + (0.5d0, 1.0d0)*z(1)
  end subroutine
  subroutine bump(k, m)
    integer, intent(in) :: m
    integer, intent(inout) :: k(m)
    k = k*2 + 1
  end subroutine
  subroutine work(w, a, z, k)
    real(c_double), intent(inout) :: w(:), a(:,:)
    complex(c_double), intent(inout) :: z(:)
    integer, intent(inout) :: k(:)
    call scale(w(1:size(w):2), (size(w)+1)/2)
    call mix(a(:, 1:4:2), 2)
    call zmul(z(4:1:-1), 4)
    call bump(k(1:size(k):3), (size(k)+2)/3)
  end subroutine
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e, w(n), a(2, 4)
    complex(c_double) :: z(4)
    integer :: k(n), j
    w = x
    do j = 1, 4
      a(:, j) = x(2*j-1:2*j)*j
      z(j) = cmplx(x(j), x(9-j), c_double)
    end do
    k = [(j, j = 1, n)]
    call work(w, a, z, k)
    e = sum(w*x) + sum(a*a) + sum(real(z)*aimag(z)) + sum(k*x)
  end function
end module
`, "-O0", "-O2")
}

// assignMainC calls the runtime's Assign directly on descriptors built as
// flang builds them: a strided vector into a rank-2 section of an array
// whose other elements stay (same element count, other shape), and a
// scalar (rank 0) broadcast into a strided section, constants (no
// shadow) into a reversed section, and the vector into a heap array; the overwritten elements' old values must carry nothing.
// ATTR is the heap array's descriptor's attribute (0; 2, allocatable,
// must abort).
const assignMainC = `#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
` + flangDescriptorC + `void _FortranAAssign(desc_t *, const desc_t *, const char *, int);
#define N 8
double loss(const double *x, int n) {
  double t[N], u[N], w[N], e = 0;
  for (int i = 0; i < n; i++) { t[i] = x[i] * x[i]; u[i] = sin(x[i]); w[i] = x[i] * 3; }
  desc_t from = {t, 8, 20180515, 1, 28, 0, 0, {{1, n / 2, 16}}};             /* t(1:n:2) */
  desc_t to = {u + 1, 8, 20180515, 2, 28, 0, 0, {{1, 2, 8}, {1, 2, 32}}}; /* u(2:3, 1:2) of u(4, 2) */
  _FortranAAssign(&to, &from, "x", 1);
  double *a = malloc(sizeof(double) * (n / 2));
  desc_t ad = {a, 8, 20180515, 1, 28, ATTR, 0, {{1, n / 2, 8}}}; /* allocated with from's shape */
  _FortranAAssign(&ad, &from, "x", 3);
  for (int i = 0; i < n / 2; i++) e += a[i] * x[i + 1];
  free(a);
  desc_t s = {t + 3, 8, 20180515, 0, 28, 0, 0};
  desc_t ws = {w, 8, 20180515, 1, 28, 0, 0, {{1, 3, 24}}}; /* w(1:n:3) */
  _FortranAAssign(&ws, &s, "x", 2);
  static const double k[2] = {0.25, -1.5};
  desc_t kd = {(void *)k, 8, 20180515, 1, 28, 0, 0, {{1, 2, 8}}};
  desc_t uk = {u + 7, 8, 20180515, 1, 28, 0, 0, {{1, 2, -8}}}; /* u(8:7:-1) */
  _FortranAAssign(&uk, &kd, "x", 4);
  for (int i = 0; i < n; i++) e += u[i] * x[i] + w[i] * w[i];
  return e;
}
` + gradMainBody

// TestFortranRuntimeAssignRule differentiates C calling the runtime's
// Assign on hand-built descriptors of other shapes and a broadcast
// scalar, reverse and forward; with an allocatable destination (which
// the runtime may reallocate, its shadow not following) the derivative
// aborts naming the routine.
func TestFortranRuntimeAssignRule(t *testing.T) {
	setup(t)
	needFlang(t)
	driver, err := flang.Driver(toolchains.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	build := func(o, attr string) (string, []string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(strings.Replace(assignMainC, "ATTR", attr, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		env := toolEnv()
		run(t, dir, env, tool("gozyme-cc"), o, "main.c", "-o", "prog", "-L"+flang.RuntimeDir(driver), "-lFortranRuntime", "-lFortranDecimal", "-lstdc++", "-lm")
		return dir, env
	}
	for _, o := range []string{"-O0", "-O2"} {
		dir, env := build(o, "0")
		checkComparisons(t, "assign "+o, run(t, dir, env, filepath.Join(dir, "prog")),
			map[string]int{"grad": 8, "fwd": 1}, map[string]float64{"grad": fortranFD, "fwd": fortranExact})
	}
	dir, env := build("-O2", "2")
	stdout, stderr, err := runErr(dir, env, filepath.Join(dir, "prog"))
	want := "the derivative of '_FortranAAssign' cannot assign to an allocatable array"
	if err == nil || !strings.Contains(stderr, want) || strings.Contains(stdout, "grad") {
		t.Errorf("want an abort with %q, got (%v):\n%s%s", want, err, stdout, stderr)
	}
}

// TestFortranDerivedTypeSectionStops: a section of a derived type passed
// to an explicit-shape dummy is copied in and out by _FortranAAssign of
// elements the rule does not handle (type code 42): the link stops
// naming the routine, in reverse and forward mode.
func TestFortranDerivedTypeSectionStops(t *testing.T) {
	setup(t)
	needFlang(t)
	const src = `module dtsect
  use iso_c_binding
  implicit none
  type :: pt
    real(c_double) :: u, w
    integer :: tag
  end type
contains
  subroutine sq(q, m)
    integer, intent(in) :: m
    type(pt), intent(inout) :: q(m)
    integer :: i
    do i = 1, m
      q(i)%u = q(i)%u*q(i)%w
    end do
  end subroutine
  function loss(x, n) bind(C, name="loss") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(pt) :: p(n)
    integer :: j
    do j = 1, n
      p(j)%u = x(j)
      p(j)%w = x(n+1-j)
      p(j)%tag = j
    end do
    call sq(p(1:n:2), (n+1)/2)
    e = sum(p%u)
  end function
end module
`
	rev := "__enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);"
	fwd := `printf("fwd 0 %.17g %.17g\n", __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N), dv);`
	for _, drop := range []string{fwd, rev} {
		for _, o := range []string{"-O0", "-O2"} {
			dir := t.TempDir()
			for name, text := range map[string]string{"loss.f90": src, "main.c": strings.Replace(gradMainC, drop, "", 1)} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := toolEnv()
			run(t, dir, env, tool("gozyme-fc"), o, "-c", "loss.f90")
			_, stderr, err := runErr(dir, env, tool("gozyme-cc"), o, "main.c", "loss.o", "-o", "prog", "-lm")
			want := "no derivative for the call to '_FortranAAssign' (an array assignment, or the copy-in or copy-out of a section passed to an explicit-shape dummy) of elements of type code 42"
			if err == nil || !strings.Contains(stderr, want) {
				t.Errorf("%s without %.20s: linked or another error (%v):\n%s", o, drop, err, stderr)
			}
		}
	}
}
