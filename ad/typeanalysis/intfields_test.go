package typeanalysis

import (
	"testing"

	"github.com/llir/llvm/ir"
)

// Arrays of structs on the stack reached only at variable indices: a
// point {double x, y; union {char[4]; int} tag} whose tag is stored as an
// i32, and a union {i64[2]; double} whose IR type is its integer member,
// doubles and integers both stored at variable indices.
const intFields = `
%struct.vec = type { double, double }
%union.tag = type { i32 }
%struct.pt = type { %struct.vec, %union.tag }
%union.cell = type { [2 x i64] }
define void @f(double %x, i64 %k, i32 %w, i64 %bits) {
entry:
  %p = alloca [2 x %struct.pt], align 16
  %c = alloca [4 x %union.cell], align 16
  %px = getelementptr inbounds [2 x %struct.pt], [2 x %struct.pt]* %p, i64 0, i64 %k, i32 0, i32 0
  store double %x, double* %px, align 8
  %pt = getelementptr inbounds [2 x %struct.pt], [2 x %struct.pt]* %p, i64 0, i64 %k, i32 1, i32 0
  %w1 = trunc i64 %k to i32
  store i32 %w1, i32* %pt, align 8
  %in = getelementptr inbounds [2 x %struct.pt], [2 x %struct.pt]* %p, i64 0, i64 %k, i32 1
  %in1 = bitcast %union.tag* %in to i8*
  %b = load i8, i8* %in1, align 8
  %pb = bitcast [2 x %struct.pt]* %p to i8*
  %any = getelementptr inbounds i8, i8* %pb, i64 %k
  %b2 = load i8, i8* %any, align 1
  %cd = getelementptr inbounds [4 x %union.cell], [4 x %union.cell]* %c, i64 0, i64 %k
  %cdd = bitcast %union.cell* %cd to double*
  store double %x, double* %cdd, align 16
  %ci = getelementptr inbounds [4 x %union.cell], [4 x %union.cell]* %c, i64 0, i64 %k, i32 0, i64 0
  %bits1 = add i64 %k, 1
  store i64 %bits1, i64* %ci, align 16
  %ci1 = getelementptr inbounds [4 x %union.cell], [4 x %union.cell]* %c, i64 0, i64 %k, i32 0, i64 1
  store i64 %bits1, i64* %ci1, align 8
  ret void
}
`

// The tag stored at one element is the declared integer field of every
// element (a read of it at any index is an integer); the union's integer
// member does not spread over the doubles stored at every element, which
// keep their size, only over the bytes no float reaches.
func TestIntFieldsSpreadAtVariableIndex(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, intFields, "f")
	p := named(t, m, "f", "p")
	for el := int64(0); el < 2; el++ {
		if c := a.Tree(p).At(0, 24*el+16); c != Integer {
			t.Errorf("point %d's tag: %v, want Integer (tree %v)", el, c, a.Tree(p))
		}
		if c := a.Tree(p).At(0, 24*el); c != Double {
			t.Errorf("point %d's x: %v, want Double", el, c)
		}
	}
	if c := a.Tree(named(t, m, "f", "b")).At(0); c != Integer {
		t.Errorf("a byte of the tag read at a variable index: %v, want Integer", c)
	}
	c := named(t, m, "f", "c")
	for el := int64(0); el < 4; el++ {
		if got := a.Tree(c).At(0, 16*el); got != Double {
			t.Errorf("cell %d's double: %v, want Double (tree %v)", el, got, a.Tree(c))
		}
	}
}

// FloatOverlap: a byte of the tag (byte 16 of 24-byte elements whose
// doubles are at 0 and 8) meets no double; a byte at any offset does.
func TestFloatOverlapOfNarrowReads(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, intFields, "f")
	gep := func(name string) *ir.InstGetElementPtr {
		v := named(t, m, "f", name)
		g, ok := v.(*ir.InstGetElementPtr)
		if !ok {
			t.Fatalf("%s is %T", name, v)
		}
		return g
	}
	if n := a.FloatOverlap(gep("in"), 1); n != 0 {
		t.Errorf("a byte of the tag overlaps a %d-byte float", n)
	}
	if n := a.FloatOverlap(gep("any"), 1); n != 8 {
		t.Errorf("a byte at any offset: overlap %d, want 8", n)
	}
	if n := a.FloatOverlap(gep("any"), 8); n != 0 {
		t.Errorf("8 bytes: overlap %d, want 0 (no wider float)", n)
	}
}

func TestMeets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		off, g, n, o, s int64
		want            bool
	}{
		{24, 32, 1, 0, 8, false},
		{24, 32, 1, 16, 8, false},
		{24, 32, 1, 48, 8, false},
		{24, 32, 2, 31, 8, false},
		{24, 32, 1, 20, 8, true},
		{0, 1, 1, 8, 8, true},
		{3, 0, 1, 0, 8, true},
		{8, 0, 1, 0, 8, false},
		{-8, 32, 1, 24, 8, true},
	} {
		if got := meets(c.off, c.g, c.n, c.o, c.s); got != c.want {
			t.Errorf("meets(%d, %d, %d, %d, %d) = %v, want %v", c.off, c.g, c.n, c.o, c.s, got, c.want)
		}
	}
}
