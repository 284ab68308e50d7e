package ad

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

// review6Kernels attack this session's reverse-sweep rules: path decisions
// from conditions computed each iteration from affine induction variables
// (iterationCond), exit counts of != loops without a clamp (exitCount),
// growth on entry decided over several paths (entryPaths). Triangular,
// skewed, growing and shrinking nests, loops counting down by 1, 2 and 3
// with != tests, inner bounds that go negative, inner loops skipped on
// some outer iterations by branches that do not dominate them, bodies
// that vectorize (remainder loops at -O2/-O3).
const review6Kernels = `
/* triangular below and above the diagonal, vectorizable bodies */
__attribute__((noinline)) double tri_lo(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) x[j] = x[j] * 0.9 + 0.05 * x[i];
		for (int j = i; j < n; j++) x[j] = sin(x[j]) + 0.1;
		e += x[i] * x[n - 1 - i];
	}
	return e;
}
/* skewed: j from i to i + m, m = n/2, into a buffer of 2n */
__attribute__((noinline)) double skew(double *x, int n) {
	double y[128], e = 0;
	for (int k = 0; k < 2 * n; k++) y[k] = x[k % n];
	int m = n / 2;
	for (int i = 0; i < n; i++) {
		for (int j = i; j < i + m; j++) y[j] = y[j] * y[j] * 0.5 + 0.2;
		e += y[i + m] * x[i];
	}
	return e;
}
/* growing 2i+1 and shrinking n - 2i (negative for i > n/2) */
__attribute__((noinline)) double grow_shrink(double *x, int n) {
	double y[128], e = 0;
	for (int k = 0; k < 2 * n + 1; k++) y[k] = x[k % n];
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < 2 * i + 1; j++) y[j] = cos(y[j]) * 0.8;
		for (int j = 0; j < n - 2 * i; j++) y[j] = y[j] * y[j] + 0.01;
		e += y[i] * x[i];
	}
	return e;
}
/* counting down by 1, 2 and 3 with != from multiples of the step */
__attribute__((noinline)) double down123(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		for (int j = i; j != -1; j--) x[j] = x[j] * 0.9 + 0.1 * sin(x[j]);
		for (int j = 2 * i; j != 0; j -= 2) x[j / 2] = x[j / 2] * x[j / 2] * 0.5 + 0.1;
		for (int j = 3 * (n - 1 - i); j != 0; j -= 3) x[j / 3] = cos(x[j / 3]) + 0.05;
		e += x[i] * x[0];
	}
	return e;
}
/* an inner loop skipped on some outer iterations by a condition on i and a
   data-dependent one, neither dominating it; triangular count */
__attribute__((noinline)) double skipped(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3 == 1) goto next;
		if (x[i] > 0.45 && i > 1) goto next;
		for (int j = 0; j < n - i; j++) x[j] = x[j] * x[j] * 0.7 + 0.2;
	next:
		e += x[i] * x[n - 1];
		x[i] = x[i] * 0.5 + 0.1;
	}
	return e;
}
/* two paths into one inner loop with different counts, one of them
   negative past the middle (the loop then does not run) */
__attribute__((noinline)) double twopath(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		int m;
		if (i & 1) m = n - 2 * i; else m = i;
		for (int j = 0; j < m; j++) x[j] = sin(x[j] * x[i]) + 0.3;
		e += x[i];
	}
	return e;
}
/* a nest three deep: k < j < i, the innermost vectorizable */
__attribute__((noinline)) double tri3(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++) {
			for (int k = 0; k < j; k++) x[k] = x[k] * 0.95 + 0.02 * x[j];
			e += x[j] * x[i];
		}
	return e;
}
/* inner bound loaded from memory (a global table, negative entries) */
int counts[32] = {3, -2, 0, 5, 1, 7, -9, 2, 4, 0, 6, 1, 3, 8, -1, 2, 5, 0, 4, 3, 1, 2, 9, 0, 3, -4, 2, 6, 1, 0, 5, 2};
__attribute__((noinline)) double datadep(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		int m = counts[i] < n ? counts[i] : n;
		for (int j = 0; j < m; j++) x[j] = x[j] * 0.8 + 0.1 * x[i];
		e += x[i] * x[i];
	}
	return e;
}
/* unsigned counters with != down to zero, inner bound n - i */
__attribute__((noinline)) double udown(double *x, int n) {
	double e = 0;
	for (unsigned i = 0; i != (unsigned)n; i++) {
		for (unsigned j = n - i; j != 0; j--) x[j - 1] = x[j - 1] * 0.9 + 0.05 * x[i];
		e += x[i] * x[i];
	}
	return e;
}
/* != loops on 8- and 16-bit counters that wrap: (b - a) mod 256 iterations
   up, (a - b) mod 256 down, (b - a) mod 65536 / 2 by two */
__attribute__((noinline)) double wrap8(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		unsigned char a = (unsigned char)(200 + i * 37), b = (unsigned char)(i * 11);
		double acc = x[i];
		for (unsigned char j = a; j != b; j++) acc = sin(acc) * 0.99 + 0.01 * x[j % n];
		for (unsigned char j = a; j != b; j--) acc = cos(acc) * 0.5 + 0.02 * x[j % n];
		unsigned short c = (unsigned short)(65530 + 2 * i), d = (unsigned short)(2 * i * i);
		for (unsigned short j = c; j != d; j += 2) acc = acc * 0.999 + 0.001 * x[j % n] * x[j % n];
		e += acc * x[i];
	}
	return e;
}
/* inner counts from outer variables that are not affine: doubling, a step
   that alternates, a counter bumped only on some iterations */
__attribute__((noinline)) double nonaffine(double *x, int n) {
	double y[64], e = 0;
	for (int k = 0; k < n; k++) y[k] = x[k];
	int st = 1, c = 0;
	for (int i = 1, s = 0; i < 4 * n; i = 2 * i + 1, s += st, st = 3 - st) {
		int m = i < n ? i : n;
		for (int j = 0; j < m; j++) y[j] = y[j] * y[j] * 0.6 + 0.2;
		int m2 = s % n;
		for (int j = 0; j < m2; j++) y[j] = y[j] * 0.9 + 0.1 * y[m2];
		if (y[0] > 0.3) c++;
		for (int j = 0; j < c && j < n; j++) y[j] = y[j] * y[0] + 0.05;
		e += y[m - 1] * x[m2];
	}
	return e;
}
/* vectorized inner loops with remainders in a nest, entered past
   branches on values invariant in the nest (n, a flag, n - 3 which is
   negative for small n), records in each */
__attribute__((noinline)) double rem_inv(double *x, int n) {
	double e = 0;
	int m = n - 3, odd = n & 1, steps = n % 3 + 2;
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < n; i++) x[i] = x[i] * x[i] * 0.5 + 0.1;
		if (odd || m > 2)
			for (int i = 0; i < m; i++) x[i + 1] = x[i + 1] * x[i] + 0.2;
		else
			for (int i = 0; i < n - 1; i++) x[i] = x[i] * x[i + 1] * 0.9;
		e += x[0] * x[n - 1];
	}
	return e;
}
/* three deep, invariant inner count, a skip on the middle index that does
   not dominate the inner loop */
__attribute__((noinline)) double rem_mid(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n % 2 + 1; s++)
		for (int r = 0; r < n % 4 + 1; r++) {
			if (r == 1 && n < 6) continue;
			for (int i = 0; i < n - r; i++) x[i] = x[i] * x[i] * 0.6 + 0.15 * x[r % n];
			e += x[r % n] * x[n - 1];
		}
	return e;
}
`

const review6Runs = loopRunPrelude + review6Kernels + `
#define ALL(X) X(tri_lo) X(skew) X(grow_shrink) X(down123) X(skipped) X(twopath) X(tri3) X(datadep) X(udown) X(rem_inv) X(rem_mid) X(wrap8) X(nonaffine)
#define DECL(f) CALLEE(f) COPY64(f) COPY64(f##_callee)
ALL(DECL)
int main(void) {
#define RUN(f) FDRUN(f, 1); FDRUN(f, 2); FDRUN(f, 3); FDRUN(f, 4); FDRUN(f, 5); FDRUN(f, 7); FDRUN(f, 9); FDRUN(f, 17); \
	FDRUN(f##_callee, 3); FDRUN(f##_callee, 8);
	ALL(RUN)
	return failures != 0;
}
`

// TestReview6Run: review6Kernels' gradients against central differences at
// -O0..-O3, combined and split, and under valgrind at -O2.
func TestReview6Run(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, review6Runs, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, review6Runs, "2")) })
}

// review6Nests are iterNests' shape (K components of a d-vector in local
// buffers, x read only) with this session's twists: a copy counting down
// with != by 1 and by 2, an inner count d - 3 (negative for d < 3), and
// inner loops entered past branches on values invariant in the nest that
// do not dominate them (d > 4 || K > 5; d odd), so that their records
// grow on entry under a decision over paths.
const review6Nests = loopRunPrelude + `
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 3;
#define XC(c, j) (x[((c) * d + (j)) % n] * x[((c) * d + (j) + 1) % n] - 0.5)
__attribute__((noinline)) double down_nest(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = d - 1; j != -1; j--) q[j] = xc[j] * x[j];
		for (int j = 2 * (d - 1); j > 0 && j != 0; j -= 2) q[j / 2] += xc[j / 2] * x[j / 2 + 1];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double neg_nest(double *x, int n) {
	int d = DIM, m = d - 3;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = 0.5;
		if (d > 4 || K > 5)
			for (int j = 0; j < m; j++) q[j] = xc[j] * x[j + 1];
		if (d & 1)
			for (int j = 0; j < d; j++) q[j] += xc[j] * xc[j];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(down_nest)
CALLEE(neg_nest)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(down_nest)
COPY(neg_nest)
COPY(down_nest_callee)
COPY(neg_nest_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(down_nest, 64);
	FDRUN(neg_nest, 64);
	FDRUN(down_nest_callee, 64);
	FDRUN(neg_nest_callee, 64);
	return failures != 0;
}
`

// TestReview6NestsRun: review6Nests' gradients against central differences
// at every level with d = 0..9 (vector loops skipped, alone, with their
// remainders; m = d - 3 negative), under valgrind at -O2.
func TestReview6NestsRun(t *testing.T) {
	wants := []string{"ok down_nest[63]", "ok neg_nest[63]", "ok down_nest_callee[63]", "ok neg_nest_callee[63]"}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, review6Nests, o)
			for _, dim := range []string{"0", "1", "2", "3", "4", "5", "7", "8", "9"} {
				t.Setenv("DIM", dim)
				var out string
				if o == "2" {
					out = runLeakChecked(t, exe)
				} else {
					out = run(t, exe)
				}
				checkWants(t, out, "-O"+o+" DIM="+dim, wants)
			}
		})
	}
}

// TestReview6PickRun: fmax/fmin routing where LLVM vectorizes the calls
// (llvm.maxnum/minnum on vectors of double and float) with an infinite
// adjoint in one lane, ties, NaNs and signed zeros; fmaxl; a NaN adjoint;
// at every level, values exact.
func TestReview6PickRun(t *testing.T) {
	src := checkPrelude + `
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_autodiff_l(void *, ...) __asm__("__enzyme_autodiff");
double __enzyme_fwddiff(void *, ...);
double W[16];
/* z[i] = fmax(x[i], x[i + h]) and fmin, weighted by W (one weight infinite) */
__attribute__((noinline)) double vmax(double *x, int n) {
	int h = n / 2;
	double s = 0;
	for (int i = 0; i < h; i++) x[i] = fmax(x[i], x[i + h]);
	for (int i = 0; i < h; i++) s += W[i] * x[i];
	return s;
}
__attribute__((noinline)) double vmin(double *x, int n) {
	int h = n / 2;
	double s = 0;
	for (int i = 0; i < h; i++) x[i] = fmin(x[i + h], x[i]);
	for (int i = 0; i < h; i++) s += W[i] * x[i];
	return s;
}
float WF[16];
__attribute__((noinline)) float vmaxf(float *x, int n) {
	int h = n / 2;
	float s = 0;
	for (int i = 0; i < h; i++) x[i] = fmaxf(x[i], x[i + h]);
	for (int i = 0; i < h; i++) s += WF[i] * x[i];
	return s;
}
__attribute__((noinline)) long double maxl(long double a, long double b) { return 3 * fmaxl(a, b); }
double NANW = NAN; /* not a constant: NAN * v would fold to NAN */
__attribute__((noinline)) double nanmax(double a, double b) { return NANW * fmax(a, b); }
__attribute__((noinline)) double triple(double a) { return 3 * a; }
__attribute__((noinline)) double third(double a) { return a / 3; }
__attribute__((noinline)) double zmax(double a, double b) { return 3 * fmax(a, b); }
static void exact(const char *what, double got, double want) {
	int same = got == want || (isnan(got) && isnan(want));
	if (!same || signbit(got) != signbit(want)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s\n", what);
}
int main(void) {
	enum { N = 16, H = N / 2 };
	/* lanes: 0 tie, 1 x wins, 2 y wins, 3 NaN x, 4 NaN y, 5 -0 vs +0, 6 +inf x, 7 -inf y */
	double x0[N] = {2, 5, 1, NAN, 4, -0.0, INFINITY, 3, 2, 1, 5, 6, NAN, 0.0, 1, -INFINITY};
	for (int i = 0; i < H; i++) W[i] = i == 1 || i == 4 ? HUGE_VAL : i + 1, WF[i] = W[i];
	/* fmax takes x on ties (x >= y) and where y is NaN */
	int takesX[H] = {1, 1, 0, 0, 1, 1, 1, 1};
	double x[N], dx[N];
	memcpy(x, x0, sizeof x);
	memset(dx, 0, sizeof dx);
	__enzyme_autodiff((void *)vmax, enzyme_dup, x, dx, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmax dx[%d]", i);
		exact(what, dx[i], takesX[i] ? W[i] : 0);
		snprintf(what, sizeof what, "vmax dx[%d]", i + H);
		exact(what, dx[i + H], takesX[i] ? 0 : W[i]);
	}
	/* fmin(x[i + h], x[i]): the first argument on ties (lanes 0, 5), where
	   the second is NaN (lane 3) and where it is smaller (1, 6, 7) */
	int takesFirst[H] = {1, 1, 0, 1, 0, 1, 1, 1};
	memcpy(x, x0, sizeof x);
	memset(dx, 0, sizeof dx);
	__enzyme_autodiff((void *)vmin, enzyme_dup, x, dx, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmin dx[%d]", i + H);
		exact(what, dx[i + H], takesFirst[i] ? W[i] : 0);
		snprintf(what, sizeof what, "vmin dx[%d]", i);
		exact(what, dx[i], takesFirst[i] ? 0 : W[i]);
	}
	float xf[N], dxf[N] = {0};
	for (int i = 0; i < N; i++) xf[i] = x0[i];
	__enzyme_autodiff((void *)vmaxf, enzyme_dup, xf, dxf, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmaxf dx[%d]", i);
		exact(what, dxf[i], takesX[i] ? WF[i] : 0);
		snprintf(what, sizeof what, "vmaxf dx[%d]", i + H);
		exact(what, dxf[i + H], takesX[i] ? 0 : WF[i]);
	}
	volatile long double la = 1.5L, lb = 2.5L;
	exact("maxl", (double)__enzyme_autodiff_l((void *)maxl, enzyme_out, la, enzyme_const, lb), 0);
	exact("maxl b", (double)__enzyme_autodiff_l((void *)maxl, enzyme_const, la, enzyme_out, lb), 3);
	volatile double a = 1.5, b = -0.5, nz = -0.0, pz = 0.0;
	/* a NaN adjoint reaches the returned argument only */
	exact("nan adjoint, other", __enzyme_autodiff_d((void *)nanmax, enzyme_const, a, enzyme_out, b), 0);
	exact("nan adjoint, picked", __enzyme_autodiff_d((void *)nanmax, enzyme_out, a, enzyme_const, b), NAN);
	/* fmax(-0, +0) compares equal: the first argument takes it */
	exact("zero tie first", __enzyme_autodiff_d((void *)zmax, enzyme_out, nz, enzyme_const, pz), 3);
	exact("zero tie second", __enzyme_autodiff_d((void *)zmax, enzyme_const, nz, enzyme_out, pz), 0);
	exact("fwd nan tangent other", __enzyme_fwddiff((void *)zmax, a, 1.0, b, NAN), 3);
	/* fmax(NaN, NaN) takes the first; 3 fmax(a, b): no 0 times the NaN */
	exact("fwd both nan", __enzyme_fwddiff((void *)zmax, (double)NAN, 1.0, (double)NAN, 2.0), 3);
	/* the constant factor's zero tangent is not multiplied by inf */
	exact("fwd 3a at inf", __enzyme_fwddiff((void *)triple, (double)INFINITY, 1.0), 3);
	exact("fwd a/3 at inf", __enzyme_fwddiff((void *)third, (double)INFINITY, 3.0), 1);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if n := strings.Count(out, "ok "); n != 58 {
				t.Errorf("-O%s: %d checks passed, want 58:\n%s", o, n, out)
			}
		})
	}
}

// TestReview6InvokedRoot: a C++ caller with a std::vector in scope invokes
// __enzyme_autodiff (an exception would have to destroy the vector), one
// call's result merged by a phi, one returning a struct: at
// every level the call is differentiated (it was left an invoke of the
// undefined __enzyme_autodiff, failing the link from -O1 on).
func TestReview6InvokedRoot(t *testing.T) {
	src := `
#include <cstdio>
#include <string>
#include <vector>
extern "C" {
extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
}
struct Pair { double a, b; };
extern "C" Pair __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
static double cube(double x) { return x * x * x; }
static double prod(double x, double y) { return x * y * y; }
int main(int argc, char **) {
	std::vector<double> a(argc + 3, 1.5);
	std::string s = "scope";
	double d = argc > 0 ? __enzyme_autodiff((void *)cube, a[1] + argc) : -1;
	Pair g = __enzyme_autodiff2((void *)prod, enzyme_out, a[0], enzyme_out, a[2] + 1);
	if (d != 18.75 || g.a != 6.25 || g.b != 7.5) {
		printf("FAIL %s: got %.17g %.17g %.17g want 18.75 6.25 7.5\n", s.c_str(), d, g.a, g.b);
		return 1;
	}
	printf("ok %g\n", d);
	return 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			if out := run(t, buildCXX(t, src, o)); !strings.Contains(out, "ok 18.75") {
				t.Errorf("-O%s: printed %s", o, out)
			}
		})
	}
}

// invokedPadIR invokes __enzyme_autodiff twice; the landing pad, reached
// only from those invokes, merges which one threw in a phi.
const invokedPadIR = `
declare double @__enzyme_autodiff(i8*, ...)
declare i32 @__gxx_personality_v0(...)
define double @sq(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @caller(double %x) personality i8* bitcast (i32 (...)* @__gxx_personality_v0 to i8*) {
entry:
  %a = invoke double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @sq to i8*), double %x)
          to label %cont unwind label %lpad
cont:
  %b = invoke double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @sq to i8*), double %a)
          to label %done unwind label %lpad
done:
  ret double %b
lpad:
  %k = phi i32 [ 1, %entry ], [ 2, %cont ]
  %lp = landingpad { i8*, i32 } cleanup
  resume { i8*, i32 } %lp
}
`

// TestReview6InvokedPad: invokes of the entry point whose landing pad
// nothing else reaches leave no phi without incoming values (the pad
// goes) and the module passes LLVM's verifier.
func TestReview6InvokedPad(t *testing.T) {
	m := parseIR(t, invokedPadIR)
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if f.Name() != "caller" {
			continue
		}
		for _, b := range f.Blocks {
			if b.Name() == "lpad" {
				t.Error("the landing pad only the invokes reached is still there")
			}
		}
	}
	ll := filepath.Join(t.TempDir(), "ad.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
		t.Fatalf("the module fails LLVM's verifier: %v\n%s", err, out)
	}
}
