package ad

import (
	"testing"
)

// forwardKernels are the C functions the forward-mode tests differentiate,
// one at a time (TestForwardMode) and in batches (TestBatchForwardMode).
func forwardKernels(t *testing.T) string {
	t.Helper()
	return testdataC(t, "forward_kernels.c")
}

func TestForwardMode(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + `
double __enzyme_fwddiff(void *, ...);

` + forwardKernels(t) + `
/* A variable-length array on the stack. */
__attribute__((noinline)) double vla(const double *x, int n) {
	double t[n];
	for (int i = 0; i < n; i++) t[i] = x[i] * x[(i + 1) % n];
	double s = 0;
	for (int i = 0; i < n; i++) s += sin(t[i]) * t[(i + 3) % n];
	return s;
}

int main(void) {
	double x = 0.7, y = 1.3, h = 1e-6;
	/* Directional derivative along (dx, dy) = (0.3, -1.1). */
	double dir = __enzyme_fwddiff((void *)scalar, x, 0.3, y, -1.1);
	double fd = (scalar(x + 0.3 * h, y - 1.1 * h) - scalar(x - 0.3 * h, y + 1.1 * h)) / (2 * h);
	check("scalar", dir, fd, 1e-6);
	int ns[] = {0, 1, 6};
	for (int k = 0; k < 3; k++) {
		int n = ns[k];
		check("looped", __enzyme_fwddiff((void *)looped, x, 1.0, enzyme_const, n), (looped(x + h, n) - looped(x - h, n)) / (2 * h), 1e-6);
		check("rec", __enzyme_fwddiff((void *)rec, x, 1.0, enzyme_const, n), (rec(x + h, n) - rec(x - h, n)) / (2 * h), 1e-6);
	}
	enum { N = 7 };
	double in[N], v[N], out[N], dout[N], p[N], m[N];
	for (int i = 0; i < N; i++) { in[i] = 0.2 + 0.1 * i; v[i] = 0.5 - 0.13 * i; }
	__enzyme_fwddiff((void *)map, enzyme_dup, out, dout, enzyme_dup, in, v, enzyme_const, N);
	for (int i = 0; i < N; i++) { p[i] = in[i] + h * v[i]; m[i] = in[i] - h * v[i]; }
	double fp[N], fm[N];
	map(fp, p, N);
	map(fm, m, N);
	for (int i = 0; i < N; i++) check("jvp", dout[i], (fp[i] - fm[i]) / (2 * h), 1e-6);
	/* d/dt poly(c + t dc, x + t dx) */
	double c[4] = {1, -2, 0.5, 0.25}, dc[4] = {0.1, 0.2, -0.3, 0.4};
	double t = __enzyme_fwddiff((void *)poly, enzyme_dup, c, dc, enzyme_const, 4, x, 0.5);
	double want = 0;
	for (int i = 0; i < 4; i++) want += dc[i] * pow(x, i);
	want += 0.5 * (-2 + 2 * 0.5 * x + 3 * 0.25 * x * x);
	check("poly", t, want, 1e-12);
	/* d/dt vla(in + t v) */
	double dvla = __enzyme_fwddiff((void *)vla, enzyme_dup, in, v, enzyme_const, N);
	check("vla", dvla, (vla(p, N) - vla(m, N)) / (2 * h), 1e-6);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestExternalPointersInActiveMemory stores a pointer from a library call
// (getenv) and one to a table of integers into a struct that also holds
// derivatives: they need no shadow in either mode (theirs there is null,
// not the pointer itself: shadow and primal memory would alias), and the
// table, read back through the struct, is left untouched.
func TestExternalPointersInActiveMemory(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "external_pointers_in_active_memory.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestShadowlessPointerInActiveMemory: a pointer to floating point without
// a shadow (an enzyme_const array) stored into memory that has one makes
// the link differentiate with run-time activity (runtimeactivity.go): the
// stored copy is its own shadow, reads through it add nothing into the
// constant array, and the gradient and tangent are exact in both modes
// (see TestExternalPointersInActiveMemory for pointers to other data).
func TestShadowlessPointerInActiveMemory(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "shadowless_pointer_in_active_memory.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
