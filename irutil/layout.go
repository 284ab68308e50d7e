package irutil

import (
	"github.com/llir/llvm/ir/types"
)

// The x86-64 data layout clang-14 uses
// ("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"):
// sizes and ABI alignments of IR types, struct field offsets.

// StoreSize is the number of bytes a load or store of t reads or writes
// (integers rounded up to whole bytes; x86_fp80: 10).
func StoreSize(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		return int64((t.BitSize + 7) / 8)
	case *types.FloatType:
		return FloatSize(t.Kind)
	case *types.PointerType:
		return 8
	case *types.VectorType:
		if it, ok := t.ElemType.(*types.IntType); ok {
			return int64((t.Len*it.BitSize + 7) / 8)
		}
		return int64(t.Len) * StoreSize(t.ElemType)
	}
	return AllocSize(t)
}

// FloatSize is the number of bytes a float of kind k holds (x86_fp80:
// 10; the 128-bit kinds 16).
func FloatSize(k types.FloatKind) int64 {
	switch k {
	case types.FloatKindHalf:
		return 2
	case types.FloatKindFloat:
		return 4
	case types.FloatKindDouble:
		return 8
	case types.FloatKindX86_FP80:
		return 10
	}
	return 16
}

// AllocSize is the distance between consecutive elements of type t in
// memory (an array's stride): its size rounded up to its alignment.
func AllocSize(t types.Type) int64 {
	switch t := t.(type) {
	case *types.ArrayType:
		return int64(t.Len) * AllocSize(t.ElemType)
	case *types.StructType:
		n, a := int64(0), int64(1)
		for _, f := range t.Fields {
			fa := int64(1)
			if !t.Packed {
				fa = Align(f)
			}
			n = roundUp(n, fa) + AllocSize(f)
			if fa > a {
				a = fa
			}
		}
		return roundUp(n, a)
	case *types.VoidType, *types.FuncType, *types.LabelType, *types.MetadataType, *types.TokenType:
		return 0
	}
	return roundUp(StoreSize(t), Align(t))
}

// Align is the ABI alignment of t.
func Align(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		switch s := StoreSize(t); {
		case s <= 1:
			return 1
		case s <= 2:
			return 2
		case s <= 4:
			return 4
		}
		return 8
	case *types.FloatType:
		if s := FloatSize(t.Kind); s <= 8 {
			return s
		}
		return 16
	case *types.PointerType:
		return 8
	case *types.VectorType:
		a := int64(1)
		for a < StoreSize(t) {
			a *= 2
		}
		return a
	case *types.ArrayType:
		return Align(t.ElemType)
	case *types.StructType:
		if t.Packed {
			return 1
		}
		a := int64(1)
		for _, f := range t.Fields {
			if fa := Align(f); fa > a {
				a = fa
			}
		}
		return a
	}
	return 1
}

// FieldOffset is the byte offset of field i of struct t.
func FieldOffset(t *types.StructType, i int) int64 {
	n := int64(0)
	for k, f := range t.Fields {
		if !t.Packed {
			n = roundUp(n, Align(f))
		}
		if k == i {
			return n
		}
		n += AllocSize(f)
	}
	return n
}

// ElementOffset is the byte offset of element i of an aggregate or vector
// type (struct field, array or vector element), and that element's type.
func ElementOffset(t types.Type, i int64) (int64, types.Type) {
	switch t := t.(type) {
	case *types.StructType:
		if i < 0 || int(i) >= len(t.Fields) {
			return 0, nil
		}
		return FieldOffset(t, int(i)), t.Fields[i]
	case *types.ArrayType:
		return i * AllocSize(t.ElemType), t.ElemType
	case *types.VectorType:
		return i * StoreSize(t.ElemType), t.ElemType
	}
	return 0, nil
}

func roundUp(n, a int64) int64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}
