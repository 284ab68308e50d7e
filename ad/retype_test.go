package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// bitsPrelude declares the entry points the tests of floats moved as
// integers use, after checkPrelude.
const bitsPrelude = checkPrelude + `
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
`

// A double's bits moved as unsigned long long: an 8-byte memcpy (load
// i64/store i64), a noinline helper taking and returning the bits (its
// copy gets double parameters), a store through long*, sign-bit masks
// (fabs, fneg), and subdoublestore's store of the bits into malloc'd
// memory read back as double by the caller. Reverse, forward and split
// modes.
func TestFloatBitsThroughIntegers(t *testing.T) {
	src := bitsPrelude + `
__attribute__((noinline)) unsigned long long tobits(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
__attribute__((noinline)) double frombits(unsigned long long u) { double x; memcpy(&x, &u, 8); return x; }
double viamemcpy(double x) { return frombits(tobits(x * x)) * 3; }
double vialong(double x) {
	long buf[2];
	long *p = buf;
	*p = (long)tobits(sin(x));
	buf[1] = 7;
	double y; memcpy(&y, buf, 8);
	return y * x + buf[1];
}
double absbits(double x) { unsigned long long u = tobits(x); u &= 0x7fffffffffffffffULL; return frombits(u) * x; }
double negbits(double x) { unsigned long long u = tobits(x); u ^= 0x8000000000000000ULL; return frombits(u) * frombits(u); }
__attribute__((noinline)) unsigned long long *substore(unsigned long long flt, unsigned long long integral) {
	unsigned long long *data = malloc(2 * sizeof *data);
	double asflt; memcpy(&asflt, &flt, sizeof asflt);
	*(double *)data = asflt;
	data[1] = integral;
	return data;
}
double stored(double x) {
	unsigned long long res; memcpy(&res, &x, sizeof res);
	unsigned long long *data = substore(res, 3);
	double r = ((double *)data)[0] * x;
	free(data);
	return r;
}
int main(void) {
	volatile double xs[] = {-1.25, 0.5, 2.0};
	for (int i = 0; i < 3; i++) {
		double x = xs[i];
		CHECK("memcpy bits", __enzyme_autodiff((void *)viamemcpy, x), 6 * x);
		CHECK("long store", __enzyme_autodiff((void *)vialong, x), cos(x) * x + sin(x));
		CHECK("fabs by mask", __enzyme_autodiff((void *)absbits, x), 2 * fabs(x));
		CHECK("fneg by mask", __enzyme_autodiff((void *)negbits, x), 2 * x);
		CHECK("integer parameter", __enzyme_autodiff((void *)stored, x), 2 * x);
		CHECK("fwd memcpy bits", __enzyme_fwddiff((void *)viamemcpy, x, 1.0), 6 * x);
		CHECK("fwd long store", __enzyme_fwddiff((void *)vialong, x, 1.0), cos(x) * x + sin(x));
		CHECK("fwd integer parameter", __enzyme_fwddiff((void *)stored, x, 1.0), 2 * x);
		void *tape = __enzyme_augmentfwd((void *)stored, enzyme_out, x);
		CHECK("split integer parameter", __enzyme_reverse((void *)stored, enzyme_out, x, 1.0, tape), 2 * x);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// Structs copied by assignment (two doubles: i64 pairs or <2 x i64>, a
// double next to a long), returned by value, and a char buffer of doubles
// copied by memcpy of a variable length in a generic helper.
func TestStructCopiesAsIntegers(t *testing.T) {
	src := bitsPrelude + `
typedef struct { double a, b; } Pair;
typedef struct { double v; long n; } Tagged;
__attribute__((noinline)) void copypair(Pair *dst, const Pair *src) { *dst = *src; }
__attribute__((noinline)) Pair swap(Pair p) { Pair q = {p.b, p.a}; return q; }
__attribute__((noinline)) void copytagged(Tagged *dst, const Tagged *src, int k) { for (int i = 0; i < k; i++) dst[i] = src[i]; }
__attribute__((noinline)) void copyn(char *dst, const char *src, int n) { memcpy(dst, src, n); }
double pairs(double x) {
	Pair p = {x * x, sin(x)}, q;
	copypair(&q, &p);
	Pair r = swap(q);
	return r.a * 2 + r.b * x;
}
double tagged(double x) {
	Tagged t[3], u[3];
	for (int i = 0; i < 3; i++) { t[i].v = x * (i + 1); t[i].n = i; }
	copytagged(u, t, 3);
	double s = 0;
	for (int i = 0; i < 3; i++) s += u[i].v * u[i].v * u[i].n;
	return s;
}
double buffer(double x) {
	double in[4] = {x, x * x, exp(x), 1}, out[4];
	char buf[32];
	copyn(buf, (char *)in, (int)sizeof in);
	copyn((char *)out, buf, (int)sizeof out);
	return out[0] * out[1] + out[2] - out[3];
}
int main(void) {
	volatile double xs[] = {-0.75, 0.5, 1.5};
	for (int i = 0; i < 3; i++) {
		double x = xs[i];
		CHECK("pair copy", __enzyme_autodiff((void *)pairs, x), 2 * cos(x) + 3 * x * x);
		CHECK("tagged copy", __enzyme_autodiff((void *)tagged, x), 44 * x);
		CHECK("char buffer", __enzyme_autodiff((void *)buffer, x), 3 * x * x + exp(x));
		CHECK("fwd pair copy", __enzyme_fwddiff((void *)pairs, x, 1.0), 2 * cos(x) + 3 * x * x);
		CHECK("fwd tagged copy", __enzyme_fwddiff((void *)tagged, x, 1.0), 44 * x);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// A variable-length copy of a buffer whose first 32 bytes are known to
// hold doubles, asked to copy 40: the derivative stops the program rather
// than treat the unknown bytes as floats (or drop them).
func TestCopyBeyondKnownFloatsStops(t *testing.T) {
	src := bitsPrelude + `
__attribute__((noinline)) void copyn(char *dst, const char *src, int n) { memcpy(dst, src, n); }
double beyond(double x, int n) {
	double in[4] = {x, x * x, x, x};
	char buf[64] = {0}, out[64];
	copyn(buf, (char *)in, 32);
	copyn(out, buf, n);
	double y; memcpy(&y, out + 8, 8);
	return y;
}
int main(int argc, char **argv) {
	int n = argc > 1 ? 40 : 32;
	double d = __enzyme_autodiff((void *)beyond, 0.5, enzyme_const, n);
	CHECK("within", d, 1.0);
	return failures != 0;
}
`
	exe := buildC(t, src, "2")
	run(t, exe)
	out, err := exec.Command(exe, "beyond").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "goes beyond the bytes known to hold floating point") {
		t.Fatalf("copy beyond the known doubles: want a stop, got %v\n%s", err, out)
	}
}

// Floats the rewrite cannot express: the bytes of doubles copied one by
// one, a struct {float; int} passed by value (one i64 holding both). The
// link stops with an error naming the instruction, never a zero.
func TestOpaqueFloatBitsAreErrors(t *testing.T) {
	cases := map[string]string{
		"byte loop": `
__attribute__((noinline)) void copybytes(char *dst, const char *src, int n) { for (int i = 0; i < n; i++) dst[i] = src[i]; }
double f(double x) {
	double in[2] = {x, x * x}, out[2];
	char buf[16];
	memcpy(buf, in, sizeof in);
	copybytes((char *)out, buf, (int)sizeof out);
	return out[0] * out[1];
}`,
		"float and int by value": `
typedef struct { float a; int b; } FI;
__attribute__((noinline)) double use(FI s) { return (double)s.a * s.a * s.b; }
double f(double x) { FI s = {(float)x, 3}; return use(s); }`,
	}
	for name, body := range cases {
		src := bitsPrelude + body + `
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 0.5)); return 0; }
`
		for _, o := range []string{"0", "2"} {
			t.Run(name+"/O"+o, func(t *testing.T) {
				_, err := tryBuildC(t, src, o)
				if err == nil || !strings.Contains(err.Error(), "carries a derivative as an integer") {
					t.Fatalf("want an error about float bits moved as an integer, got %v", err)
				}
			})
		}
	}
}

// A struct passed by value (byval) that the callee changes: each call
// works on its own copy in the derivative as in the program.
func TestByvalCopiesStayCopies(t *testing.T) {
	src := bitsPrelude + `
typedef struct { double s[6]; int k; } Big;
__attribute__((noinline)) double consume(Big b) { b.s[0] *= b.s[1]; b.s[1] = 0; return b.s[0] * b.k + b.s[1]; }
double twice(double x) {
	Big b = {{x, x * x, 1, 1, 1, 1}, 2};
	return consume(b) + consume(b);
}
int main(void) {
	volatile double xs[] = {-0.75, 1.5};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		CHECK("byval twice", __enzyme_autodiff((void *)twice, x), 12 * x * x);
		CHECK("fwd byval twice", __enzyme_fwddiff((void *)twice, x, 1.0), 12 * x * x);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// A callback passed down generic code (an ODE integrator's right-hand
// side) and called through a parameter: the copies AD differentiates call
// it directly; two callbacks through one parameter, by dispatch.
func TestCallbackParameters(t *testing.T) {
	src := bitsPrelude + `
typedef void (*rhs)(const double *, double *);
static void decay(const double *x, double *dx) { dx[0] = -1.5 * x[0]; }
__attribute__((noinline)) void step(rhs f, double *x, double h) { double d[1]; f(x, d); x[0] += h * d[0]; }
__attribute__((noinline)) void integrate(rhs f, double *x, double h, int n) { for (int i = 0; i < n; i++) step(f, x, h); }
double euler(double x0) { double x[1] = {x0}; integrate(decay, x, 0.1, 5); return x[0]; }
int main(void) {
	volatile double xs[] = {-0.75, 2.0};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		CHECK("callback", __enzyme_autodiff((void *)euler, x), pow(1 - 0.15, 5));
		CHECK("fwd callback", __enzyme_fwddiff((void *)euler, x, 1.0), pow(1 - 0.15, 5));
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	two := bitsPrelude + `
typedef void (*rhs)(const double *, double *);
static void decay(const double *x, double *dx) { dx[0] = -1.5 * x[0]; }
static void grow(const double *x, double *dx) { dx[0] = 0.5 * x[0]; }
__attribute__((noinline)) void step(rhs f, double *x, double h) { double d[1]; f(x, d); x[0] += h * d[0]; }
double both(double x0) { double x[1] = {x0}; step(decay, x, 0.1); step(grow, x, 0.1); return x[0]; }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)both, 0.5)); return 0; }
`
	// Two callbacks through one parameter: the call dispatches over them
	// (dispatch.go); d/dx0 of x0 (1 - 0.15)(1 + 0.05).
	for _, o := range []string{"0", "2"} {
		t.Run("two/O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, two, o)), "-O"+o, []string{"0.8925"})
		})
	}
}

// C++: std::array<double, 1> assigned in a noinline function (an i64
// copy at -O2, as boost odeint copies its state), std::copy and
// std::vector copies.
func TestCXXCopiesOfDoubles(t *testing.T) {
	src := `
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>
extern "C" double __enzyme_autodiff(void *, ...);
static int failures;
static void check(const char *what, double got, double want) {
	double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
	if (!(err <= 1e-9)) { std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else std::printf("ok %s: %.17g\n", what, got);
}
struct P { double a, b; };
__attribute__((noinline)) void copied(std::vector<double> &dst, const std::vector<double> &src) { std::copy(src.begin(), src.end(), dst.begin()); }
__attribute__((noinline)) void assign(std::array<double, 1> &d, const std::array<double, 1> &s) { d = s; }
double vectors(double x) {
	std::vector<double> v = {x, x * x, std::sin(x)};
	std::vector<double> w(3);
	copied(w, v);
	std::vector<double> u = w;
	return u[0] * u[1] + u[2];
}
double arrays(double x) {
	std::array<double, 1> a = {x * x}, b;
	assign(b, a);
	std::array<double, 1> c = b;
	return c[0] * x;
}
double structs(double x) {
	std::vector<P> ps(2);
	ps[0] = {x, 2 * x};
	ps[1] = ps[0];
	std::vector<P> qs = ps;
	return qs[1].a * qs[1].b + qs[0].a;
}
int main() {
	volatile double xs[] = {-0.5, 1.25};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		check("vector copies", __enzyme_autodiff((void *)vectors, x), 3 * x * x + std::cos(x));
		check("std::array copies", __enzyme_autodiff((void *)arrays, x), 3 * x * x);
		check("struct vector copies", __enzyme_autodiff((void *)structs, x), 4 * x + 1);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// Pointers moved as integers (an unsigned long holding a double*, copied
// by memcpy: load i64/store i64 at -O2): their shadows move with them.
func TestPointerBitsThroughIntegers(t *testing.T) {
	src := bitsPrelude + `
__attribute__((noinline)) void movep(double **dst, double **src) { unsigned long u; memcpy(&u, src, 8); memcpy(dst, &u, 8); }
__attribute__((noinline)) double *viabits(double *p) { unsigned long u = (unsigned long)p; return (double *)(u + 8); }
double viaptr(double *x, int n) { double *a[1] = {x}, *b[1]; movep(b, a); return b[0][0] * b[0][1] * *viabits(x); }
int main(void) {
	double x[3] = {0.5, 1.5, 2.5}, dx[3] = {0, 0, 0};
	__enzyme_autodiff((void *)viaptr, enzyme_dup, x, dx, enzyme_const, 3);
	CHECK("dx0", dx[0], 1.5 * 1.5);
	CHECK("dx1", dx[1], 2 * 0.5 * 1.5);
	CHECK("dx2", dx[2], 0);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
