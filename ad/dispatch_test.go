package ad

import (
	"strings"
	"testing"
)

// TestIndirectCallsRun: callbacks, tables indexed at run time, pointers to
// libm functions and a pointer chosen by a branch, at every level (-O0
// keeps the calls indirect).
func TestIndirectCallsRun(t *testing.T) {
	src := testdataC(t, "indirect_calls.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestVirtualCallsRun: C++ virtual calls, whose overriders take their own
// class as `this`.
func TestVirtualCallsRun(t *testing.T) {
	src := testdataC(t, "virtual_calls.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// TestIndirectCallUnknown: a callback of a type no function of the program
// has, given memory holding derivatives, is an error naming the call.
func TestIndirectCallUnknown(t *testing.T) {
	src := `
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef void (*scale_fn)(double *, int);
__attribute__((noinline)) void run(scale_fn f, double *a, int n) { f(a, n); }
double g(double *a, scale_fn f) { run(f, a, 3); return a[0] + a[1]; }
int main(void) {
	double a[3] = {1, 2, 3}, da[3] = {0};
	__enzyme_autodiff((void *)g, enzyme_dup, a, da, enzyme_const, (scale_fn)0);
	printf("%g\n", da[0]);
	return 0;
}`
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildC(t, src, o)
		if err == nil || !strings.Contains(err.Error(), "indirect call") || !strings.Contains(err.Error(), "takes pointers to memory that carries derivatives") {
			t.Errorf("-O%s: want the indirect-call error, got %v", o, err)
		}
	}
}

// TestAllocatorThroughPointer: memory from malloc, calloc or operator-new
// style allocators reached through function pointers (a global struct's
// field, a static pointer, a callback parameter) gets a shadow allocation
// like a direct call's; derivatives through it are checked against
// analytic values, and no shadow leaks.
func TestAllocatorThroughPointer(t *testing.T) {
	src := checkPrelude + `
#include <string.h>
double __enzyme_autodiff(void *, ...);
typedef void *(*alloc_fn)(unsigned long);
struct { int count; alloc_fn alloc; } pool = {0, malloc};
static alloc_fn salloc = malloc;
static void *zalloc(unsigned long n) { return calloc(1, n); }
alloc_fn pick_alloc(int i) { return i ? zalloc : malloc; }
__attribute__((noinline)) void *pool_alloc(unsigned long n) { return pool.alloc(n); }
__attribute__((noinline)) void square_in_place(double *x) { *x *= *x; }
double through_struct(double x) {
	double *mem = pool_alloc(sizeof(double));
	*mem = x;
	square_in_place(mem);
	double r = mem[0] * x;
	free(mem);
	return r; /* x^3 */
}
double through_static(double x) {
	double *mem = salloc(2 * sizeof(double));
	mem[0] = sin(x);
	mem[1] = mem[0] * mem[0];
	double r = mem[1];
	free(mem);
	return r; /* sin^2 x */
}
__attribute__((noinline)) double fill(alloc_fn a, double x, int n) {
	double *v = a(n * sizeof(double)), s = 0;
	for (int i = 0; i < n; i++) v[i] = x * (i + 1);
	for (int i = 0; i < n; i++) s += v[i] * v[i];
	free(v);
	return s; /* x^2 n(n+1)(2n+1)/6 */
}
double through_param(double x) { return fill(pick_alloc(0), x, 4) + fill(pick_alloc(1), x, 3); }
int main(void) {
	double x = 0.7;
	CHECK("allocator in a global struct", __enzyme_autodiff((void *)through_struct, x), 3 * x * x);
	CHECK("allocator in a static pointer", __enzyme_autodiff((void *)through_static, x), 2 * sin(x) * cos(x));
	CHECK("allocator passed as a callback", __enzyme_autodiff((void *)through_param, x), 2 * x * (30 + 14));
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
