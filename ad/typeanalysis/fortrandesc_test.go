package typeanalysis

import (
	"testing"

	"github.com/llir/llvm/ir/types"
)

// TestAnalysisFlangDescriptorFields: a flang descriptor copied field by
// field (its version constant 20180515, too large for a constant to be
// taken for an integer; an addendum's length parameter) holds integers
// in those fields, the base address a pointer; a struct of the same
// fields but a float in the i32's place is no descriptor.
func TestAnalysisFlangDescriptorFields(t *testing.T) {
	t.Parallel()
	const src = `
define void @f({ double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }* %d, { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }* %e, { double*, i64, float, i8, i8, i8, i8 }* %s, i32* %o) {
  %v = getelementptr { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }, { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }* %d, i64 0, i32 2
  store i32 20180515, i32* %v
  %ver = load i32, i32* %v
  %w = getelementptr { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }, { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }* %e, i64 0, i32 2
  store i32 %ver, i32* %w
  %l = getelementptr { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }, { double*, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]], i8*, [1 x i64] }* %d, i64 0, i32 9, i64 0
  %len = load i64, i64* %l
  %x = bitcast { double*, i64, float, i8, i8, i8, i8 }* %s to i8*
  %y = getelementptr i8, i8* %x, i64 16
  %z = bitcast i8* %y to i32*
  %other = load i32, i32* %z
  store i32 %other, i32* %o
  ret void
}
`
	a, m := analyze(t, src, "f")
	for _, name := range []string{"ver", "len"} {
		if got := a.Tree(named(t, m, "f", name)).ScalarAt(0, 4); got != Integer {
			t.Errorf("%%%s: %s, want an integer", name, got)
		}
	}
	if got := a.Tree(named(t, m, "f", "other")).ScalarAt(0, 4); got == Integer {
		t.Errorf("%%other, read not through a descriptor's field: %s, want no integer", got)
	}
	if IsFlangDescriptor(named(t, m, "f", "s").Type().(*types.PointerType).ElemType) {
		t.Error("a struct with a float in the version's place taken for a descriptor")
	}
}
