package ad

import (
	"testing"

	"github.com/llir/llvm/ir/types"
)

// The lanes a dense view's functions are called for are whole-byte
// integers, half, float, double and pointers, of their store sizes; every
// other type has no scalar size (0), and such an access stops the link.
func TestDenseViewScalarSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		t    types.Type
		want int64
	}{
		{types.I1, 0}, {types.NewInt(12), 0}, {types.I8, 1}, {types.I16, 2}, {types.NewInt(24), 3},
		{types.I32, 4}, {types.I64, 8}, {types.I128, 16},
		{types.Half, 2}, {types.Float, 4}, {types.Double, 8}, {types.X86_FP80, 0}, {types.FP128, 0},
		{types.I8Ptr, 8}, {types.NewPointer(types.Double), 8},
		{types.NewVector(2, types.Double), 0}, {types.NewArray(2, types.Double), 0}, {types.NewStruct(types.Double), 0},
	} {
		if got := scalarSize(tc.t); got != tc.want {
			t.Errorf("scalarSize(%s) = %d, want %d", tc.t, got, tc.want)
		}
	}
}
