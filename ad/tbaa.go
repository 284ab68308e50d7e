package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Type evidence for bulk copies between i8* pointers (loop-idiom's memcpy
// of a copy loop), as Enzyme finds it: the copy carries the TBAA access tag
// of the loads and stores it replaced, whose scalar type names what its
// bytes hold; without TBAA (-fno-strict-aliasing), the types the same
// pointers are cast to elsewhere in the function.

// tbaaScalar is the type a TBAA access tag's scalar type name stands for:
// a float type, i8* for pointers, i64 for integers; nil when the tag says
// nothing ("omnipotent char", unknown names, no tag).
func tbaaScalar(inst ir.Instruction) types.Type {
	if tag := tbaaTagOf(inst); tag != nil { // tbaaalias.go
		return tbaaType(tag)
	}
	return nil
}

// tbaaType is the type a TBAA access tag stands for (the type analysis's
// reading of clang's scalar names, typeanalysis.TBAAConcrete): a float
// type, i8* for pointers, i64 for integers; nil when the tag says nothing.
func tbaaType(tag metadata.MDNode) types.Type {
	switch c := typeanalysis.TBAAConcrete(tag); {
	case c.IsFloat():
		return c.FloatType()
	case c == typeanalysis.Pointer:
		return types.I8Ptr
	case c == typeanalysis.Integer:
		return types.I64
	}
	return nil
}

// untypedCopy is what the bytes of a bulk copy between untyped (i8*)
// pointers hold, by the evidence at hand: its TBAA tag, else the types the
// rest of f casts the same pointers to. A float type, i8* for pointers,
// i64 for integers; nil when unknown or contradictory.
func untypedCopy(f *ir.Func, x *ir.InstCall) types.Type {
	if t := tbaaScalar(x); t != nil {
		return t
	}
	var found types.Type
	for _, p := range x.Args[:2] {
		t := castEvidence(f, p)
		switch {
		case t == nil:
		case found != nil && !types.Equal(found, t):
			return nil
		default:
			found = t
		}
	}
	return found
}

// castEvidence is the element the other casts of an untyped pointer (say,
// a malloc'd buffer also used as double*) agree it is made of: a float
// type or i8* for pointers; nil when there are none, or they disagree, or
// they say integers or mixed data.
//
// Byte offsets from the pointer (i8 getelementptr) count as the same
// pointer: a record's pointer field cast at offset 8 contradicts its
// double fields.
func castEvidence(f *ir.Func, p value.Value) types.Type {
	same := map[value.Value]bool{irutil.StripCasts(p): true}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				g, ok := inst.(*ir.InstGetElementPtr)
				if ok && types.Equal(g.ElemType, types.I8) && same[irutil.StripCasts(g.Src)] && !same[g] {
					same[g] = true
					changed = true
				}
			}
		}
	}
	var found types.Type
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstBitCast)
			if !ok || !same[irutil.StripCasts(c.From)] {
				continue
			}
			pt, ok := c.To.(*types.PointerType)
			if !ok || types.Equal(pt.ElemType, types.I8) {
				continue
			}
			var t types.Type
			switch e := floatElement(pt.ElemType); {
			case e != nil:
				t = e
			case types.IsPointer(pt.ElemType):
				t = types.I8Ptr
			default:
				return nil
			}
			if found != nil && !types.Equal(found, t) {
				return nil
			}
			found = t
		}
	}
	return found
}

// tbaaStructLayout is the layout a bulk copy's !tbaa.struct (clang's
// {offset, size, tag} per field of a struct assignment) gives bytes that
// nothing else types: a packed struct of the fields, padded with i8 arrays
// to the copy's constant length. Nil when absent, for variable lengths, and
// when a field is unknown or overlaps another (unions).
func tbaaStructLayout(x *ir.InstCall) types.Type {
	n, ok := irfacts.Unwrap(x.Args[2]).(*constant.Int)
	if !ok {
		return nil
	}
	var node *metadata.Tuple
	for _, a := range x.Metadata {
		if t, ok := a.Node.(*metadata.Tuple); ok && a.Name == "tbaa.struct" {
			node = t
		}
	}
	if node == nil || len(node.Fields) == 0 || len(node.Fields)%3 != 0 {
		return nil
	}
	var fields []types.Type
	cur := int64(0)
	for i := 0; i < len(node.Fields); i += 3 {
		off, size := mdInt(node.Fields[i]), mdInt(node.Fields[i+1])
		tag, ok := node.Fields[i+2].(*metadata.Tuple)
		if !ok || off < cur || size <= 0 {
			return nil
		}
		if off > cur {
			fields = append(fields, types.NewArray(uint64(off-cur), types.I8))
		}
		t := tbaaType(tag)
		switch {
		case t == nil:
			return nil
		case types.Equal(t, types.Double) && size == 8, types.Equal(t, types.Float) && size == 4:
		case types.IsPointer(t) && size == 8:
		case types.Equal(t, types.I64):
			t = types.NewInt(uint64(size) * 8)
		default:
			return nil // long double and odd sizes
		}
		fields = append(fields, t)
		cur = off + size
	}
	switch total := n.X.Int64(); {
	case cur > total:
		return nil
	case cur < total:
		fields = append(fields, types.NewArray(uint64(total-cur), types.I8))
	}
	st := types.NewStruct(fields...)
	st.Packed = true
	return st
}

// mdInt is the value of an integer metadata field (-1 otherwise).
func mdInt(f metadata.Field) int64 {
	if c, ok := f.(*constant.Int); ok {
		return c.X.Int64()
	}
	return -1
}
