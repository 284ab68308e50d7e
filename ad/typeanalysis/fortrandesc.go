package typeanalysis

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// A flang array descriptor (CFI_cdesc_t as flang-16 types it in the IR:
// { T*, i64, i32, i8, i8, i8, i8, [rank x [3 x i64]] }, maybe followed by
// its addendum) holds integers in every field after the base address:
// element length, version, rank, type, attribute, extra flags, each
// dimension's lower bound, extent and byte stride, and the addendum's
// length parameters (its derived type's address aside). flang fills them with
// constants (the version 20180515 among them, too large for constTree to
// take for an integer) and copies descriptors field by field, so an
// integer loaded from or stored to such a field through a getelementptr
// of the descriptor type is an integer.

// descriptorFieldHint adds integers to v, the value of an integer access
// at p, where p addresses an integer field of a flang descriptor.
func (a *Analysis) descriptorFieldHint(v value.Value, p value.Value) {
	t := v.Type()
	if !isIntegers(t) {
		return
	}
	g, ok := unwrap(p).(*ir.InstGetElementPtr)
	if !ok || !IsFlangDescriptor(g.ElemType) || len(g.Indices) < 2 {
		return
	}
	st := g.ElemType.(*types.StructType)
	c, ok := unwrap(g.Indices[1]).(*constant.Int)
	if !ok || !c.X.IsInt64() || c.X.Int64() < 1 || c.X.Int64() >= int64(len(st.Fields)) || types.IsPointer(st.Fields[c.X.Int64()]) {
		return // the base address, the addendum's type pointer, or not a field
	}
	a.add(v, integers(t))
}

// IsFlangDescriptor reports a struct type laid out as flang's descriptor: a
// pointer, i64, i32, four i8, then dimension triples ([n x [3 x i64]]) and
// an optional addendum (a pointer and an [k x i64]).
func IsFlangDescriptor(t types.Type) bool {
	st, ok := t.(*types.StructType)
	if !ok || len(st.Fields) < 7 || st.Packed {
		return false
	}
	want := []types.Type{types.I64, types.I32, types.I8, types.I8, types.I8, types.I8}
	if !types.IsPointer(st.Fields[0]) {
		return false
	}
	for i, w := range want {
		if !types.Equal(st.Fields[i+1], w) {
			return false
		}
	}
	rest := st.Fields[7:]
	if len(rest) > 0 {
		if dims, ok := rest[0].(*types.ArrayType); ok && isTriple(dims.ElemType) {
			rest = rest[1:]
		}
	}
	switch len(rest) {
	case 0:
		return true
	case 2:
		arr, ok := rest[1].(*types.ArrayType)
		return types.IsPointer(rest[0]) && ok && types.Equal(arr.ElemType, types.I64)
	}
	return false
}

// isTriple reports [3 x i64].
func isTriple(t types.Type) bool {
	arr, ok := t.(*types.ArrayType)
	return ok && arr.Len == 3 && types.Equal(arr.ElemType, types.I64)
}
