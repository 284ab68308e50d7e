package irutil

import (
	"testing"

	"github.com/llir/llvm/ir/types"
)

// Sizes, alignments and field offsets of the x86-64 data layout.
func TestLayoutSizes(t *testing.T) {
	t.Parallel()
	st := types.NewStruct(types.I8, types.Double, types.I32, types.X86_FP80)
	if got := FieldOffset(st, 1); got != 8 {
		t.Errorf("double after i8 at %d", got)
	}
	if got := FieldOffset(st, 3); got != 32 {
		t.Errorf("x86_fp80 (align 16) at %d", got)
	}
	if got := AllocSize(st); got != 48 {
		t.Errorf("struct size %d", got)
	}
	packed := types.NewStruct(types.I8, types.Double)
	packed.Packed = true
	if FieldOffset(packed, 1) != 1 || AllocSize(packed) != 9 {
		t.Errorf("packed struct: %d, %d", FieldOffset(packed, 1), AllocSize(packed))
	}
	if AllocSize(types.NewArray(3, types.NewVector(3, types.Float))) != 48 {
		t.Error("<3 x float> takes 16 bytes in an array")
	}
	if StoreSize(types.NewVector(2, types.I64)) != 16 || StoreSize(types.I1) != 1 {
		t.Error("store sizes")
	}
}
