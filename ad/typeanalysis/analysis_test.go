package typeanalysis

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// analyze parses IR text and analyzes it from the function named root.
func analyze(t *testing.T, src, root string) (*Analysis, *ir.Module) {
	t.Helper()
	m, err := irutil.ParseText("test.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if f.Name() == root {
			return Analyze([]*ir.Func{f}, nil), m
		}
	}
	t.Fatalf("no function %s", root)
	return nil, nil
}

// named finds the value %name in function fn of m.
func named(t *testing.T, m *ir.Module, fn, name string) value.Value {
	t.Helper()
	for _, f := range m.Funcs {
		if f.Name() != fn {
			continue
		}
		for _, p := range f.Params {
			if p.Name() == name {
				return p
			}
		}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if v, ok := inst.(value.Named); ok && v.Name() == name {
					return v
				}
			}
		}
	}
	t.Fatalf("no %%%s in %s", name, fn)
	return nil
}

// A double's bits passed through an integer parameter, stored with an
// integer store tagged "long long" and read back as double by the caller
// (Enzyme's subdoublestore.c at -O2).
const subDoubleStore = `
define i64* @substore(i64 %flt, i64 %integral) {
  %m = call i8* @malloc(i64 16)
  %data = bitcast i8* %m to i64*
  store i64 %flt, i64* %data, align 8, !tbaa !5
  %p1 = getelementptr inbounds i64, i64* %data, i64 1
  store i64 %integral, i64* %p1, align 8, !tbaa !5
  ret i64* %data
}
declare i8* @malloc(i64)
define double @foo(double %inp) {
  %bits = bitcast double %inp to i64
  %data = call i64* @substore(i64 %bits, i64 3)
  %d = bitcast i64* %data to double*
  %r = load double, double* %d, align 8
  ret double %r
}
!5 = !{!6, !6, i64 0}
!6 = !{!"long long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
`

func TestAnalysisIntegerParameterHoldsDouble(t *testing.T) {
	a, m := analyze(t, subDoubleStore, "foo")
	flt := named(t, m, "substore", "flt")
	if got := a.FloatOf(flt); got != types.Double {
		t.Errorf("FloatOf(%%flt) = %v; tree %s", got, a.Tree(flt))
	}
	// The integer stored next to it is an integer (a small constant
	// argument), and its "long long" tag made nothing of the double.
	if got := a.Tree(named(t, m, "substore", "integral")).ScalarAt(0, 8); got != Integer {
		t.Errorf("%%integral: %s", got)
	}
	ret := a.Return(m.Funcs[0])
	if ret.At(0, 0) != Double || ret.Data(0).Window(8, 8).ScalarAt(0, 8) != Integer {
		t.Errorf("return tree %s", ret)
	}
	if got := a.Tree(named(t, m, "foo", "data")); got.At(0, 0) != Double {
		t.Errorf("the call's result: %s", got)
	}
}

// Memory copies: an 8-byte memcpy of a double into a long, then read as
// i64; the i64 is the double.
func TestAnalysisMemcpyOfDouble(t *testing.T) {
	const src = `
define double @f(double %x) {
  %a = alloca double
  %b = alloca i64
  store double %x, double* %a
  %ai = bitcast double* %a to i8*
  %bi = bitcast i64* %b to i8*
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %ai, i8* %bi, i64 8, i1 false)
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %bi, i8* %ai, i64 8, i1 false)
  %v = load i64, i64* %b
  %w = call i64 @id(i64 %v)
  %d = bitcast i64 %w to double
  ret double %d
}
define i64 @id(i64 %y) {
  ret i64 %y
}
declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)
`
	a, m := analyze(t, src, "f")
	for _, name := range []string{"v", "w"} {
		if got := a.FloatOf(named(t, m, "f", name)); got != types.Double {
			t.Errorf("FloatOf(%%%s) = %v", name, got)
		}
	}
	if got := a.FloatOf(named(t, m, "id", "y")); got != types.Double {
		t.Errorf("the helper's parameter: %v", got)
	}
	if fields, complete := a.Layout(named(t, m, "f", "bi"), 8); !complete || len(fields) != 1 || fields[0].Type != Double {
		t.Errorf("layout of the copy: %v %v", fields, complete)
	}
}

// Facts flow from uses back to definitions: an i64 loaded from a struct
// field that another load reads as double, found through getelementptr
// offsets on both sides.
func TestAnalysisStructFieldOffsets(t *testing.T) {
	const src = `
%struct.S = type { i32, double, i8* }
define double @f(%struct.S* %s, %struct.S* %t) {
  %p = getelementptr inbounds %struct.S, %struct.S* %s, i64 0, i32 1
  %x = load double, double* %p
  %raw = bitcast %struct.S* %s to i8*
  %q = getelementptr inbounds i8, i8* %raw, i64 8
  %qi = bitcast i8* %q to i64*
  %bits = load i64, i64* %qi
  %r = getelementptr inbounds i8, i8* %raw, i64 16
  %ri = bitcast i8* %r to i64*
  %ptr = load i64, i64* %ri
  %n = getelementptr inbounds %struct.S, %struct.S* %s, i64 0, i32 0
  %ni = load i32, i32* %n
  %twice = mul i32 %ni, 2
  ret double %x
}
`
	a, m := analyze(t, src, "f")
	if got := a.FloatOf(named(t, m, "f", "bits")); got != types.Double {
		t.Errorf("FloatOf(%%bits) = %v, tree %s", got, a.Tree(named(t, m, "f", "bits")))
	}
	// The pointer field is a pointer by the struct type's hint.
	if !a.IsPointerBits(named(t, m, "f", "ptr")) {
		t.Errorf("%%ptr: %s", a.Tree(named(t, m, "f", "ptr")))
	}
	s := a.Tree(named(t, m, "f", "s"))
	if s.At(0, 0) != Integer || s.At(0, 8) != Double {
		t.Errorf("%%s: %s", s)
	}
	fields, complete := a.Layout(named(t, m, "f", "s"), 24)
	if len(fields) != 2 || fields[0] != (Field{8, Double}) || fields[1] != (Field{16, Pointer}) || complete {
		// bytes 4..7 are padding: not known.
		t.Errorf("layout %v complete=%v", fields, complete)
	}
}

// Interprocedural and recursive: a list summed recursively terminates and
// types the node.
func TestAnalysisRecursionTerminates(t *testing.T) {
	const src = `
%node = type { double, %node* }
define double @sum(%node* %n) {
entry:
  %null = icmp eq %node* %n, null
  br i1 %null, label %done, label %more
more:
  %vp = getelementptr %node, %node* %n, i64 0, i32 0
  %vi = bitcast double* %vp to i64*
  %bits = load i64, i64* %vi
  %np = getelementptr %node, %node* %n, i64 0, i32 1
  %next = load %node*, %node** %np
  %rest = call double @sum(%node* %next)
  %v = bitcast i64 %bits to double
  %s = fadd double %v, %rest
  ret double %s
done:
  ret double 0.0
}
`
	a, m := analyze(t, src, "sum")
	n := a.Tree(named(t, m, "sum", "n"))
	if n.At(0, 0) != Double || n.At(0, 8) != Pointer || n.At(0, 8, 0) != Double || n.At(0, 8, 8, 8) != Pointer {
		t.Errorf("%%n: %s", n)
	}
	if a.FloatOf(named(t, m, "sum", "bits")) != types.Double {
		t.Error("the value field read as i64")
	}
}

// Conflicts: a helper copying 8 bytes called once for doubles and once for
// integers sees Anything; it is never silently one of them.
func TestAnalysisConflictingCallSites(t *testing.T) {
	const src = `
define void @copy(i64* %dst, i64* %src) {
  %v = load i64, i64* %src
  store i64 %v, i64* %dst
  ret void
}
define void @f(double* %x, double* %y, i64* %i, i64* %j) {
  %xi = bitcast double* %x to i64*
  %yi = bitcast double* %y to i64*
  call void @copy(i64* %xi, i64* %yi)
  call void @copy(i64* %i, i64* %j)
  %k = load i64, i64* %j
  %k2 = mul i64 %k, 3
  %d = load double, double* %y
  ret void
}
`
	a, m := analyze(t, src, "f")
	v := named(t, m, "copy", "v")
	if a.FloatOf(v) != nil || !a.Mixed(v) || a.Tree(v).At(0) != Anything {
		t.Errorf("%%v: %s (FloatOf %v, Mixed %v)", a.Tree(v), a.FloatOf(v), a.Mixed(v))
	}
}

// Phis and selects join; sign-bit masks keep floats floats; integer
// arithmetic makes integers.
func TestAnalysisPhiSelectAndSignMasks(t *testing.T) {
	const src = `
define double @f(double %x, double %y, i1 %c, i64 %n) {
entry:
  %bx = bitcast double %x to i64
  br i1 %c, label %a, label %b
a:
  %neg = xor i64 %bx, -9223372036854775808
  br label %join
b:
  %abs = and i64 %bx, 9223372036854775807
  br label %join
join:
  %p = phi i64 [ %neg, %a ], [ %abs, %b ]
  %by = bitcast double %y to i64
  %s = select i1 %c, i64 %p, i64 %by
  %r = bitcast i64 %s to double
  %m = mul i64 %n, 8
  %other = and i64 %n, 255
  ret double %r
}
`
	a, m := analyze(t, src, "f")
	for _, name := range []string{"neg", "abs", "p", "s"} {
		if a.FloatOf(named(t, m, "f", name)) != types.Double {
			t.Errorf("%%%s: %s", name, a.Tree(named(t, m, "f", name)))
		}
	}
	if a.Tree(named(t, m, "f", "n")).ScalarAt(0, 8) != Integer || a.Tree(named(t, m, "f", "other")).ScalarAt(0, 8) != Integer {
		t.Error("integer arithmetic gives integers")
	}
}

// TBAA: a "double" tag on an integer load is a hint where nothing certain
// says otherwise; an integer tag is no fact.
func TestAnalysisTBAAHints(t *testing.T) {
	const src = `
define void @f(i64* %p, i64* %q, i64* %r) {
  %a = load i64, i64* %p, !tbaa !1
  %b = load i64, i64* %q, !tbaa !5
  store i64 %b, i64* %r, !tbaa !5
  %c = load i64, i64* %r, !tbaa !1
  %m = mul i64 %c, 2
  ret void
}
!1 = !{!2, !2, i64 0}
!2 = !{!"double", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}
!5 = !{!6, !6, i64 0}
!6 = !{!"long", !3, i64 0}
`
	a, m := analyze(t, src, "f")
	if a.FloatOf(named(t, m, "f", "a")) != types.Double {
		t.Errorf("%%a with a double tag: %s", a.Tree(named(t, m, "f", "a")))
	}
	if got := a.Tree(named(t, m, "f", "b")).ScalarAt(0, 8); got != Integer {
		t.Errorf("%%b: %s (its long tag is no fact, but the same memory is multiplied)", got)
	}
	// The certain fact (mul: an integer) wins over the "double" hint.
	if got := a.Tree(named(t, m, "f", "c")).ScalarAt(0, 8); got != Integer {
		t.Errorf("%%c: %s", got)
	}
}

// Pointers moved as integers, variable indices over arrays, and copies of
// variable length.
func TestAnalysisPointerBitsAndArrays(t *testing.T) {
	const src = `
define void @f(double** %pp, i8* %dst, i64 %n, i64 %i) {
  %pi = bitcast double** %pp to i64*
  %bits = load i64, i64* %pi
  %p = inttoptr i64 %bits to double*
  %e = getelementptr inbounds double, double* %p, i64 %i
  %v = load double, double* %e
  %src = bitcast double* %p to i8*
  call void @llvm.memmove.p0i8.p0i8.i64(i8* %dst, i8* %src, i64 %n, i1 false)
  %di = bitcast i8* %dst to i64*
  %de = getelementptr inbounds i64, i64* %di, i64 %i
  %w = load i64, i64* %de
  ret void
}
declare void @llvm.memmove.p0i8.p0i8.i64(i8*, i8*, i64, i1)
`
	a, m := analyze(t, src, "f")
	if !a.IsPointerBits(named(t, m, "f", "bits")) {
		t.Errorf("%%bits: %s", a.Tree(named(t, m, "f", "bits")))
	}
	if got := a.Repeating(named(t, m, "f", "p")); got != Double {
		t.Errorf("%%p points to an array of %s", got)
	}
	if got := a.Repeating(named(t, m, "f", "dst")); got != Double {
		t.Errorf("the copy's destination holds %s (tree %s)", got, a.Tree(named(t, m, "f", "dst")))
	}
	if a.FloatOf(named(t, m, "f", "w")) != types.Double {
		t.Errorf("%%w: %s", a.Tree(named(t, m, "f", "w")))
	}
}

// Vectors: <2 x i64> holding two doubles, or a double and an integer.
func TestAnalysisVectorsOfBits(t *testing.T) {
	const src = `
%pair = type { double, double }
%mix = type { double, i64 }
define void @f(%pair* %a, %pair* %b, %mix* %c, %mix* %d) {
  %ai = bitcast %pair* %a to <2 x i64>*
  %bi = bitcast %pair* %b to <2 x i64>*
  %v = load <2 x i64>, <2 x i64>* %ai
  store <2 x i64> %v, <2 x i64>* %bi
  %a0 = getelementptr %pair, %pair* %a, i64 0, i32 0
  %x = load double, double* %a0
  %a1 = getelementptr %pair, %pair* %a, i64 0, i32 1
  %y = load double, double* %a1
  %ci = bitcast %mix* %c to <2 x i64>*
  %w = load <2 x i64>, <2 x i64>* %ci
  %c0 = getelementptr %mix, %mix* %c, i64 0, i32 0
  %z = load double, double* %c0
  %c1 = getelementptr %mix, %mix* %c, i64 0, i32 1
  %n = load i64, i64* %c1
  %n2 = mul i64 %n, 2
  %e = extractelement <2 x i64> %w, i32 0
  ret void
}
`
	a, m := analyze(t, src, "f")
	if got := a.FloatOf(named(t, m, "f", "v")); got != types.Double {
		t.Errorf("%%v: %s", a.Tree(named(t, m, "f", "v")))
	}
	w := named(t, m, "f", "w")
	if a.FloatOf(w) != nil || !a.Mixed(w) {
		t.Errorf("%%w holds a double and an integer: %s", a.Tree(w))
	}
	if a.FloatOf(named(t, m, "f", "e")) != types.Double {
		t.Errorf("%%e: %s", a.Tree(named(t, m, "f", "e")))
	}
	if !strings.Contains(a.Print(m.Funcs[0]), "%v: {[0]:Float@double, [8]:Float@double}") {
		t.Errorf("Print:\n%s", a.Print(m.Funcs[0]))
	}
}

// The IR type of a float is certain: a float's bits also used as an
// integer (the exponent shifted out) conflict at the integer, never at the
// float.
func TestAnalysisCertainFloatsStayFloats(t *testing.T) {
	const src = `
@g = global [2 x double] [double 1.0, double 2.0]
define double @f(double %x, i8* %buf) {
  %b = bitcast double %x to i64
  %e = lshr i64 %b, 52
  %i = sitofp i64 %e to double
  %gp = bitcast [2 x double]* @g to i64*
  %g1 = getelementptr i64, i64* %gp, i64 1
  %gv = load i64, i64* %g1
  %m = call i8* @realloc(i8* %buf, i64 64)
  %md = bitcast i8* %m to double*
  %mv = load double, double* %md
  call void @llvm.memset.p0i8.i64(i8* %buf, i8 0, i64 64, i1 false)
  %bi = bitcast i8* %buf to i64*
  %bv = load i64, i64* %bi
  ret double %i
}
declare i8* @realloc(i8*, i64)
declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)
`
	a, m := analyze(t, src, "f")
	if got := a.Tree(named(t, m, "f", "x")); got.At(0) != Double {
		t.Errorf("%%x: %s", got)
	}
	if got := a.Tree(named(t, m, "f", "b")).At(0); got != Anything {
		t.Errorf("%%b, a double's bits shifted as an integer: %s", got)
	}
	if a.FloatOf(named(t, m, "f", "gv")) != types.Double {
		t.Errorf("a global's initializer: %s", a.Tree(named(t, m, "f", "gv")))
	}
	// realloc's result holds what its argument held, and memset says
	// nothing: the i64 read from buf is the double read from the new block.
	if a.FloatOf(named(t, m, "f", "bv")) != types.Double {
		t.Errorf("through realloc: %s", a.Tree(named(t, m, "f", "bv")))
	}
}

// Summaries go up, contexts go down: a helper given pointers into two
// fields of one struct (a double, and two ints) does not make the fields
// alike, and the helper itself sees what each call passes.
func TestAnalysisContextsDoNotSmear(t *testing.T) {
	const src = `
%s = type { double, i32, i32, double }
define void @touch(i64* %p) {
  %v = load i64, i64* %p
  store i64 %v, i64* %p
  ret void
}
define void @f(%s* %x) {
  %a = getelementptr %s, %s* %x, i64 0, i32 0
  %ai = bitcast double* %a to i64*
  call void @touch(i64* %ai)
  %n = getelementptr %s, %s* %x, i64 0, i32 1
  %nv = load i32, i32* %n
  %n2 = mul i32 %nv, 3
  store i32 %n2, i32* %n
  %ni = bitcast i32* %n to i64*
  call void @touch(i64* %ni)
  %d = getelementptr %s, %s* %x, i64 0, i32 3
  %dv = load double, double* %d
  %av = load double, double* %a
  ret void
}
`
	a, m := analyze(t, src, "f")
	x := a.Tree(named(t, m, "f", "x"))
	if x.At(0, 0) != Double || x.At(0, 16) != Double || x.At(0, 8) != Integer {
		t.Errorf("%%x: %s", x)
	}
	// The helper is given a double and two ints: it sees both.
	if v := named(t, m, "touch", "v"); a.FloatOf(v) != nil || !a.Mixed(v) {
		t.Errorf("the helper's load: %s", a.Tree(v))
	}
}
