package ad

import (
	"strings"
	"testing"
)

// aggregatesSrc differentiates code whose pointers travel inside whole
// struct values (insertvalue/extractvalue, whole-struct loads and stores,
// structs returned and passed by value): without shadow aggregates their
// derivatives would silently be zero.
const aggregatesSrc = memoryPrelude + `
typedef struct { double *p; int n; } View;
typedef struct { double *a, *b; } Pair;
typedef struct { const double *w; double *out; long n; double scale; } Job;

/* A small struct holding a pointer, returned by value. */
__attribute__((noinline)) View make_view(double *x, int n) { View v = {x, n}; return v; }
__attribute__((noinline)) double view_sum(View v) {
	double s = 0;
	for (int i = 0; i < v.n; i++) s += v.p[i] * v.p[i] * (i + 1);
	return s;
}
__attribute__((noinline)) double viewed(double *x, int n) {
	View v = make_view(x, n);
	return view_sum(v) + sin(v.p[0]);
}

/* A pair of pointers, built, returned and passed by value. */
__attribute__((noinline)) Pair halves(double *x, int n) { Pair p = {x, x + n / 2}; return p; }
__attribute__((noinline)) double pair_dot(Pair p, int m) {
	double s = 0;
	for (int i = 0; i < m; i++) s += p.a[i] * cos(p.b[i]);
	return s;
}
__attribute__((noinline)) double paired(double *x, int n) {
	Pair p = halves(x, n);
	Pair q = p;           /* struct copy */
	q.a = q.a + 1;
	return pair_dot(p, n / 2) + pair_dot(q, n / 2 - 1);
}

/* A larger struct (passed in memory) with a const pointer and an output
   pointer to a local buffer. */
__attribute__((noinline)) void run_job(Job j) {
	for (long i = 0; i < j.n; i++) j.out[i] = j.scale * j.w[i] * j.w[(i + 1) % j.n];
}
__attribute__((noinline)) double jobbed(double *x, int n) {
	double out[16];
	Job j = {x, out, n, 1.5};
	run_job(j);
	double s = 0;
	for (int i = 0; i < n; i++) s += exp(0.1 * out[i]);
	return s;
}

/* Views kept in an array of structs, assigned by value. */
__attribute__((noinline)) double stacked(double *x, int n) {
	View vs[2];
	vs[0] = make_view(x, n / 2);
	vs[1] = make_view(x + n / 2, n - n / 2);
	View t = vs[0]; vs[0] = vs[1]; vs[1] = t;
	return view_sum(vs[0]) * view_sum(vs[1]);
}

/* A pointer and a float together, returned by value: the float field
   carries a derivative, the pointer field a shadow. */
typedef struct { double *p; double w; } Weighted;
__attribute__((noinline)) Weighted weigh(double *x, int n) {
	Weighted r = {x + 1, 0};
	for (int i = 0; i < n; i++) r.w += x[i] * x[i];
	return r;
}
__attribute__((noinline)) double weighted(double *x, int n) {
	Weighted r = weigh(x, n);
	return r.w * r.p[0] + r.p[1] * r.p[2];
}

/* A view chosen by a branch: phis (or selects) of aggregates. */
__attribute__((noinline)) double chosen(double *x, int n) {
	View v;
	if (x[0] > 0) v = make_view(x + 1, n - 1);
	else v = make_view(x, n);
	return view_sum(v);
}

/* FWDCHECK(f): forward mode along a direction v, against a central
   difference of f along v. */
double __enzyme_fwddiff(void *, ...);
#define FWDCHECK(f) do { \
		double xc[N], v[N], xp[N], xm[N], h = 1e-6; \
		for (int i = 0; i < N; i++) { v[i] = 0.5 - 0.13 * i; xc[i] = x[i]; xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; } \
		double d = __enzyme_fwddiff((void *)f, enzyme_dup, xc, v, enzyme_const, N); \
		check(#f " (forward)", d, (f(xp, N) - f(xm, N)) / (2 * h), 1e-6); \
	} while (0)

int main(void) {
	enum { N = 10 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.01 * i * i;
	GRADCHECK(viewed);
	GRADCHECK(paired);
	GRADCHECK(jobbed);
	GRADCHECK(stacked);
	GRADCHECK(weighted);
	GRADCHECK(chosen);
#ifdef FORWARD
	FWDCHECK(viewed);
	FWDCHECK(paired);
	FWDCHECK(jobbed);
	FWDCHECK(stacked);
	FWDCHECK(weighted);
	FWDCHECK(chosen);
#endif
	return failures != 0;
}
`

func TestAggregatePointers(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, aggregatesSrc, o)) })
		t.Run("forward-O"+o, func(t *testing.T) { run(t, buildC(t, aggregatesSrc, o, "-DFORWARD")) })
	}
}

// aggregatesIR is handwritten IR whose structs holding pointers are stored
// and loaded whole (through noinline functions, so no pass splits them),
// chosen by a phi against a constant struct,
// passed by value to an internal function, and mix a pointer with a float
// that carries a derivative (stored whole into heap memory: split by the
// optimizer above -O0).
const aggregatesIR = `
%V = type { double*, i64 }
%W = type { double*, double }

define internal void @stash(%V* %dst, %V %v) noinline {
  store %V %v, %V* %dst, align 8
  ret void
}

define internal %V @fetch(%V* %src) noinline {
  %v = load %V, %V* %src, align 8
  ret %V %v
}

define internal double @vsum(%V %v) noinline {
entry:
  %p = extractvalue %V %v, 0
  %n = extractvalue %V %v, 1
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %q = getelementptr double, double* %p, i64 %i
  %e = load double, double* %q, align 8
  %i1 = add i64 %i, 1
  %fi = sitofp i64 %i1 to double
  %t = fmul double %e, %e
  %t2 = fmul double %t, %fi
  %s1 = fadd double %s, %t2
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret double %s1
}

define double @agg_ir(double* %x, i32 %n) {
entry:
  %raw = call i8* @malloc(i64 16)
  %slot = bitcast i8* %raw to %V*
  %n64 = sext i32 %n to i64
  %a = insertvalue %V undef, double* %x, 0
  %b = insertvalue %V %a, i64 %n64, 1
  call void @stash(%V* %slot, %V %b)
  %l = call %V @fetch(%V* %slot)
  %s = call double @vsum(%V %l)
  %wraw = call i8* @malloc(i64 16)
  %wslot = bitcast i8* %wraw to %W*
  %x1 = getelementptr double, double* %x, i64 1
  %x0v = load double, double* %x, align 8
  %sq = fmul double %x0v, %x0v
  %w1 = insertvalue %W undef, double* %x1, 0
  %w2 = insertvalue %W %w1, double %sq, 1
  store %W %w2, %W* %wslot, align 8
  %wl = load %W, %W* %wslot, align 8
  %wp = extractvalue %W %wl, 0
  %ww = extractvalue %W %wl, 1
  %wv = load double, double* %wp, align 8
  %m = fmul double %ww, %wv
  %r0 = fadd double %s, %m
  %big = icmp sgt i32 %n, 3
  br i1 %big, label %then, label %join
then:
  br label %join
join:
  %pv = phi %V [ { double* null, i64 2 }, %entry ], [ %b, %then ]
  %pp = extractvalue %V %pv, 0
  %none = icmp eq double* %pp, null
  br i1 %none, label %done, label %use
use:
  %pe = getelementptr double, double* %pp, i64 3
  %u = load double, double* %pe, align 8
  %u2 = fmul double %u, %u
  br label %done
done:
  %extra = phi double [ 0.0, %join ], [ %u2, %use ]
  %r = fadd double %r0, %extra
  call void @free(i8* %raw)
  call void @free(i8* %wraw)
  ret double %r
}

declare i8* @malloc(i64)
declare void @free(i8*)
`

// irDriver is a C main checking the gradient (GRADCHECK) and a forward
// directional derivative of a handwritten IR function
// double name(double *x, int n) at n = 6.
func irDriver(name string) string {
	return memoryPrelude + `
double ` + name + `(double *x, int n);
double __enzyme_fwddiff(void *, ...);
int main(void) {
	enum { N = 6 };
	double x[N], v[N], xp[N], xm[N], h = 1e-6;
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.23 * i;
	GRADCHECK(` + name + `);
	for (int i = 0; i < N; i++) { v[i] = 0.5 - 0.13 * i; xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; }
	double d = __enzyme_fwddiff((void *)` + name + `, enzyme_dup, x, v, enzyme_const, N);
	check("forward", d, (` + name + `(xp, N) - ` + name + `(xm, N)) / (2 * h), 1e-6);
	return failures != 0;
}
`
}

func TestAggregatePointersIR(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, irDriver("agg_ir"), aggregatesIR, o)) })
	}
}

// A struct passed by value that holds both a float with a derivative and a
// pointer needing a shadow would need two activities at once: an error
// naming the call, never a silently dropped derivative.
func TestAggregateMixedArgumentError(t *testing.T) {
	ll := strings.Replace(aggregatesIR, "  store %W %w2, %W* %wslot, align 8", "  call void @stashw(%W* %wslot, %W %w2)", 1) + `
define internal void @stashw(%W* %dst, %W %w) noinline {
  store %W %w, %W* %dst, align 8
  ret void
}
`
	_, err := tryBuildCWithIR(t, irDriver("agg_ir"), ll, "0")
	if err == nil || !strings.Contains(err.Error(), "stashw") || !strings.Contains(err.Error(), "by value") {
		t.Fatalf("want an error naming the by-value struct argument of stashw, got %v", err)
	}
}

// TestAggregatePointersCXX: C++ pairs and span-like views of pointers,
// built by value, returned, copied and iterated.
func TestAggregatePointersCXX(t *testing.T) {
	src := cxxPrelude + `
#include <utility>
template <class T> struct Span {
	T *b, *e;
	T *begin() const { return b; }
	T *end() const { return e; }
	Span first(long k) const { return Span{b, b + k}; }
	Span drop(long k) const { return Span{b + k, e}; }
};
__attribute__((noinline)) Span<double> whole(double *x, int n) { return Span<double>{x, x + n}; }
__attribute__((noinline)) std::pair<double *, double *> ends(Span<double> s) { return {s.b, s.e - 1}; }
__attribute__((noinline)) double spans(double *x, int n) {
	Span<double> s = whole(x, n);
	double acc = 0;
	for (double &v : s.first(n / 2)) acc += v * v;
	for (double &v : s.drop(n / 2)) acc += std::sin(v) * acc;
	std::pair<double *, double *> p = ends(s);
	auto q = p;
	std::swap(q.first, q.second);
	return acc + *p.first * *q.first + *p.second;
}
int main() {
	const int N = 8;
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.15 * i;
	__enzyme_autodiff((void *)spans, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("spans", spans, x, N, dx);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}
