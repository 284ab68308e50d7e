package ad

import (
	"strings"
	"testing"
)

// aggregatesSrc differentiates code whose pointers travel inside whole
// struct values (insertvalue/extractvalue, whole-struct loads and stores,
// structs returned and passed by value): without shadow aggregates their
// derivatives would silently be zero.
func aggregatesSrc(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "aggregates.c")
}

func TestAggregatePointers(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, aggregatesSrc(t), o)) })
		t.Run("forward-O"+o, func(t *testing.T) { run(t, buildC(t, aggregatesSrc(t), o, "-DFORWARD")) })
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
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, irDriver("agg_ir"), aggregatesIR, o)) })
	}
}

// A struct passed by value that holds both a float with a derivative and a
// pointer needing a shadow would need two activities at once: an error
// naming the call, never a silently dropped derivative.
func TestAggregateMixedArgumentError(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	src := cxxPrelude + testdataC(t, "aggregate_pointers_cxx.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}
