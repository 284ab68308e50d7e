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
	src := memoryPrelude + `
/* Arrays through pointers. */
__attribute__((noinline)) double dot(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[(i * 7 + 3) % n];
	return s;
}

/* In-place updates, repeated: the overwritten values must be cached. */
__attribute__((noinline)) double inplace(double *x, int n) {
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1 * x[(i + 1) % n];
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i];
	return s;
}
static double inplace_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return inplace(y, n); }

/* A heap temporary, a matrix-vector product and a call with pointers. */
__attribute__((noinline)) void matvec(const double *A, const double *v, double *out, int n) {
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++) s += A[i * n + j] * v[j];
		out[i] = s;
	}
}
__attribute__((noinline)) double heapy(double *x, int n) {
	double *A = malloc(n * n * sizeof *A);
	double *y = malloc(n * sizeof *y);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) A[i * n + j] = cos(x[i] - x[j]) + (i == j);
	matvec(A, x, y, n);
	double s = 0;
	for (int i = 0; i < n; i++) s += y[i] * y[i];
	free(A);
	free(y);
	return s;
}

/* memcpy of doubles and a local array. */
__attribute__((noinline)) double copies(double *x, int n) {
	double tmp[16];
	memcpy(tmp, x, n * sizeof(double));
	double s = 0;
	for (int i = 0; i < n; i++) s += tmp[i] * tmp[n - 1 - i] * x[i];
	return s;
}

/* An output buffer: void f(out, in); seeds come from the output's shadow. */
__attribute__((noinline)) void normalize(double *out, const double *in, int n) {
	double r = 0;
	for (int i = 0; i < n; i++) r += in[i] * in[i];
	r = sqrt(r);
	for (int i = 0; i < n; i++) out[i] = in[i] / r;
}

int main(void) {
	enum { N = 9 };
	double x[N], dx[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(dot);
	GRADCHECK(inplace_copy);
	GRADCHECK(heapy);
	GRADCHECK(copies);
	/* Accumulation: derivatives are added into the shadow. */
	for (int i = 0; i < N; i++) dx[i] = 1.0;
	__enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_const, N);
	double once[N] = {0};
	__enzyme_autodiff((void *)dot, enzyme_dup, x, once, enzyme_const, N);
	for (int i = 0; i < N; i++) CHECK("accumulates", dx[i], 1.0 + once[i]);

	/* Output buffer: d_in = d_out/r - in (in . d_out)/r^3. */
	double out[N], dout[N], din[N] = {0}, r = 0, dotp = 0;
	for (int i = 0; i < N; i++) { dout[i] = 0.1 * (i + 1); r += x[i] * x[i]; dotp += x[i] * dout[i]; }
	r = sqrt(r);
	double seeds[N];
	memcpy(seeds, dout, sizeof dout);
	__enzyme_autodiff((void *)normalize, enzyme_dup, out, dout, enzyme_dup, x, din, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		CHECK("normalize", din[i], seeds[i] / r - x[i] * dotp / (r * r * r));
		CHECK("seed consumed", dout[i], 0.0);
		CHECK("primal written", out[i], x[i] / r);
	}
	return failures != 0;
}
`
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
	src := memoryPrelude + `
__attribute__((noinline)) double table(double *x, int n) {
	double **rows = malloc(n * sizeof *rows);
	for (int i = 0; i < n; i++) {
		rows[i] = malloc(3 * sizeof(double));
		rows[i][0] = x[i] * x[i];
		rows[i][1] = sin(x[i]);
		rows[i][2] = x[(i + 1) % n];
	}
	double s = 0;
	for (int i = 0; i < n; i++) {
		s += rows[i][0] * rows[i][1] + rows[i][2] * rows[(i + 2) % n][0];
	}
	for (int i = 0; i < n; i++) free(rows[i]);
	free(rows);
	return s;
}
int main(void) {
	enum { N = 7 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.21 * i - 0.03 * i * i;
	GRADCHECK(table);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
