package ad

import "testing"

// memoryPrelude adds a finite-difference gradient checker over arrays:
// fdcheck(name, f, x, n, grad) perturbs each x[i] and compares the central
// difference of f with grad[i].
const memoryPrelude = checkPrelude + `
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
static void fdcheck(const char *name, double (*f)(double *, int), double *x, int n, const double *grad) {
	for (int i = 0; i < n; i++) {
		double save = x[i], h = 1e-6 * fmax(1, fabs(save));
		x[i] = save + h; double fp = f(x, n);
		x[i] = save - h; double fm = f(x, n);
		x[i] = save;
		char what[64]; snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, grad[i], (fp - fm) / (2 * h), 1e-6);
	}
}
/* GRADCHECK(f): the gradient of f at the caller's x[N], by enzyme_dup, against fdcheck. */
#define GRADCHECK(f) do { \
		double xc[N], dx[N] = {0}; \
		memcpy(xc, x, sizeof x); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, N); \
		fdcheck(#f, f, x, N, dx); \
	} while (0)
`

// loopRunPrelude adds to memoryPrelude, for f(double *x, int n) that may
// overwrite x: CALLEE(f), f_callee = 2·f (differentiated split); COPY64(f),
// f_copy = f on a copy of x (for the finite differences); and FDRUN(f, n),
// the gradient of f at a fixed x[n] against central differences.
const loopRunPrelude = memoryPrelude + `
#define CALLEE(f) __attribute__((noinline)) double f##_callee(double *x, int n) { return 2 * f(x, n); }
#define COPY64(f) static double f##_copy(double *x, int n) { double y[64]; memcpy(y, x, n * sizeof *x); return f(y, n); }
#define FDRUN(f, n) do { \
		double x[n], xc[n], dx[n]; \
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.11 * (i % 7) - 0.02 * (i % 5) * (i % 3), dx[i] = 0; \
		memcpy(xc, x, sizeof x); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n); \
		fdcheck(#f, f##_copy, x, n, dx); \
	} while (0)
`

func TestMemory(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "memory.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestHeapBuiltPointerTable: a table allocated inside the differentiated
// function, filled with rows also allocated there. The row pointers are
// stored into and loaded back from heap memory, so their shadows must travel
// through the table's shadow (a silent zero gradient before the activity
// analysis followed pointers stored into shadowed memory).
func TestHeapBuiltPointerTable(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "heap_built_pointer_table.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
