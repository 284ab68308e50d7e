package typeanalysis

import "testing"

// A field copied into a new frame and used only as a bound: R_end - R_start
// compared against a constant (mixedstruct1-simplefda's tile_multiply):
// the comparison makes the difference an integer, and the difference of
// an integer (the index R_start) makes the copied field one.
const boundCopy = `
define i64 @bound(i64* %src, i64* %dst, double* %data) {
  %ps = getelementptr inbounds i64, i64* %src, i64 0
  %start = load i64, i64* %ps, align 8
  %pe = getelementptr inbounds i64, i64* %src, i64 1
  %end = load i64, i64* %pe, align 8
  %de = getelementptr inbounds i64, i64* %dst, i64 1
  store i64 %end, i64* %de, align 8
  %n = sub nsw i64 %end, %start
  %more = icmp sgt i64 %n, 1
  %e = getelementptr inbounds double, double* %data, i64 %start
  %x = load double, double* %e, align 8
  %r = select i1 %more, i64 %n, i64 0
  ret i64 %r
}
`

func TestIntegerByBoundComparison(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, boundCopy, "bound")
	for _, name := range []string{"start", "n", "end"} {
		if c := a.Tree(named(t, m, "bound", name)).ScalarAt(0, 8); c != Integer {
			t.Errorf("%%%s: %v, want an integer", name, c)
		}
		if a.UnknownBits(named(t, m, "bound", name)) {
			t.Errorf("%%%s: unknown bits", name)
		}
	}
}

// Sign tests and comparisons with a float's bit patterns say nothing: the
// bits of a double tested for its sign, or against infinity's pattern, stay
// unknown.
const signTests = `
define i1 @signs(i64* %p) {
  %b = load i64, i64* %p, align 8
  %neg = icmp slt i64 %b, 0
  %c = load i64, i64* %p, align 8
  %inf = icmp ugt i64 %c, 9218868437227405312
  %d = load i64, i64* %p, align 8
  %eq = icmp eq i64 %d, 1
  %r = or i1 %neg, %inf
  %s = or i1 %r, %eq
  ret i1 %s
}
`

func TestSignTestsStayUnknown(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, signTests, "signs")
	for _, name := range []string{"b", "c", "d"} {
		if !a.UnknownBits(named(t, m, "signs", name)) {
			t.Errorf("%%%s: %v, want unknown bits", name, a.Tree(named(t, m, "signs", name)))
		}
	}
}

// A size read through std::max(const long&, const long&) (Eigen's
// blocking-size heuristic): the callee returns one of its arguments, so
// the result points where they point, both integers here (one is
// multiplied, the other a trip count); a second caller gives max no
// single context.
const maxOfRefs = `
define i64* @max(i64* %a, i64* %b) {
  %x = load i64, i64* %a, align 8
  %y = load i64, i64* %b, align 8
  %lt = icmp slt i64 %x, %y
  %r = select i1 %lt, i64* %b, i64* %a
  ret i64* %r
}
define void @heuristic(i64* %k, i64* %m, i64* %out, double* %other) {
  %kv = load i64, i64* %k, align 8
  %k2 = mul i64 %kv, 2
  store i64 %k2, i64* %k, align 8
  %mv = load i64, i64* %m, align 8
  %i = alloca i64
  %e = getelementptr inbounds double, double* %other, i64 %mv
  %p = call i64* @max(i64* %k, i64* %m)
  %v = load i64, i64* %p, align 8
  store i64 %v, i64* %out, align 8
  %q = bitcast double* %other to i64*
  %p2 = call i64* @max(i64* %q, i64* %q)
  ret void
}
`

func TestReturnedArgumentChoice(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, maxOfRefs, "heuristic")
	v := named(t, m, "heuristic", "v")
	if c := a.Tree(v).ScalarAt(0, 8); c != Integer {
		t.Errorf("%%v, read through max: %v, want an integer", c)
	}
	if c := a.Tree(named(t, m, "heuristic", "out")).Data(0).ScalarAt(0, 8); c != Integer {
		t.Errorf("*out: %v, want an integer", c)
	}
}

// Accessors returning a reference to an element (std::array::operator[]
// through __array_traits::_S_ref): an element read at a constant index
// relates to the argument's memory at that offset, one read at a
// variable index to every element (an array of integers).
const accessors = `
%array = type { [2 x i64] }
define i64* @sref([2 x i64]* %a, i64 %i) {
  %e = getelementptr inbounds [2 x i64], [2 x i64]* %a, i64 0, i64 %i
  ret i64* %e
}
define i64* @at(%array* %this, i64 %i) {
  %f = getelementptr inbounds %array, %array* %this, i32 0, i32 0
  %r = call i64* @sref([2 x i64]* %f, i64 %i)
  ret i64* %r
}
define void @use(%array* %dims, %array* %strides, %array* %copy, i64 %j) {
  %p1 = call i64* @at(%array* %dims, i64 1)
  %d1 = load i64, i64* %p1, align 8
  %n = mul i64 %d1, 4
  %q = bitcast %array* %dims to i64*
  %d0 = load i64, i64* %q, align 8
  %pj = call i64* @at(%array* %strides, i64 %j)
  %sj = load i64, i64* %pj, align 8
  %m = mul i64 %sj, 3
  %s0 = getelementptr inbounds %array, %array* %strides, i32 0, i32 0, i64 0
  %t0 = load i64, i64* %s0, align 8
  %c = call i64* @at(%array* %copy, i64 0)
  store i64 %t0, i64* %c, align 8
  ret void
}
`

func TestReturnedArgumentAccessor(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, accessors, "use")
	dims := a.Tree(named(t, m, "use", "dims")).Data(0)
	if c := dims.ScalarAt(8, 8); c != Integer {
		t.Errorf("dims[1], read through at(dims, 1) and multiplied: %v, want an integer", c)
	}
	if c := dims.ScalarAt(0, 8); c != Unknown {
		t.Errorf("dims[0], never used: %v, want unknown", c)
	}
	if a.UnknownBits(named(t, m, "use", "d1")) || !a.UnknownBits(named(t, m, "use", "d0")) {
		t.Errorf("%%d1 should be an integer, %%d0 unknown")
	}
	if a.UnknownBits(named(t, m, "use", "t0")) {
		t.Errorf("strides[0], of an array of integers read at a variable index: %v, want an integer", a.Tree(named(t, m, "use", "t0")))
	}
}

// A rotated loop's exit test compares the next induction value with the
// bound for equality: the bound, read from memory, is an integer.
const exitTest = `
define double @sum(double* %p, i64* %np) {
entry:
  %n = load i64, i64* %np, align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s2, %loop ]
  %e = getelementptr inbounds double, double* %p, i64 %i
  %x = load double, double* %e, align 8
  %s2 = fadd double %s, %x
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s2
}
`

func TestIntegerByExitTest(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, exitTest, "sum")
	if c := a.Tree(named(t, m, "sum", "n")).ScalarAt(0, 8); c != Integer {
		t.Errorf("%%n: %v, want an integer", c)
	}
}

// Getters (Eigen's rows() and outerStride(), the latter forwarding to the
// former): a caller multiplying rows() makes its object's field an
// integer, so the stride another getter reads from the same object, and
// stores into a new evaluator, is one too.
const getters = `
%storage = type { double*, i64 }
define i64 @rows(%storage* %this) {
  %f = getelementptr inbounds %storage, %storage* %this, i32 0, i32 1
  %r = load i64, i64* %f, align 8
  ret i64 %r
}
define i64 @outerStride(%storage* %this) {
  %r = call i64 @rows(%storage* %this)
  ret i64 %r
}
define void @evaluator(%storage* %m, i64* %eval) {
  %s = call i64 @outerStride(%storage* %m)
  store i64 %s, i64* %eval, align 8
  ret void
}
define i64 @size(%storage* %m, %storage* %other) {
  %r = call i64 @rows(%storage* %m)
  %n = mul i64 %r, 3
  %o = call i64 @rows(%storage* %other)
  call void @evaluator(%storage* %m, i64* null)
  ret i64 %n
}
`

func TestGetterResults(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, getters, "size")
	if c := a.Tree(named(t, m, "size", "m")).Data(0).ScalarAt(8, 8); c != Integer {
		t.Errorf("the field rows() reads, of the object multiplied: %v, want an integer", c)
	}
	if !a.UnknownBits(named(t, m, "size", "o")) {
		t.Errorf("rows() of another object, never used: %v, want unknown bits", a.Tree(named(t, m, "size", "o")))
	}
	if a.UnknownBits(named(t, m, "evaluator", "s")) {
		t.Errorf("outerStride() of the multiplied object: %v, want an integer", a.Tree(named(t, m, "evaluator", "s")))
	}
}
