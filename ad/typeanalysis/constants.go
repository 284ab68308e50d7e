package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// smallInt bounds the constants taken for integers: a double's bits are
// never this small (they would be denormals below 1e-320), while sizes,
// counts and flags are.
const smallInt = 4096

// constTree is what a constant operand holds: floats for float constants,
// pointers (with the memory facts of the global they point into) for
// addresses, integers for small integer constants. Zero, undef and large
// integers say nothing (they may be 0.0, null or a float's bits).
func (a *Analysis) constTree(c constant.Constant) *Tree {
	if base, off, ok := globalBase(c); ok {
		out := a.get(base).shiftedPointee(-off)
		out.Insert(Pointer, 0)
		return out
	}
	switch x := c.(type) {
	case *ir.Func:
		return Of(Pointer, 0)
	case *constant.Int:
		if x.X.IsInt64() && x.X.Int64() != 0 && x.X.Int64() > -smallInt && x.X.Int64() < smallInt {
			return integers(x.Typ)
		}
		return NewTree()
	case *constant.ExprPtrToInt:
		return a.constTree(x.From)
	case *constant.ExprIntToPtr, *constant.Null:
		return Of(Pointer, 0)
	case *constant.Vector:
		out := NewTree()
		for i, e := range x.Elems {
			out.Join(a.constTree(e).Place(int64(i)*irutil.StoreSize(x.Typ.ElemType), irutil.StoreSize(x.Typ.ElemType)))
		}
		return out
	case *constant.Float:
		return certain(x.Typ)
	}
	if _, ok := c.Type().(*types.PointerType); ok {
		return Of(Pointer, 0)
	}
	return NewTree()
}

// globalBase resolves an address constant to the global it points into and
// the constant byte offset from the global's start: the global itself, and
// bitcasts, address-space casts and constant-index getelementptrs of it.
func globalBase(v value.Value) (*ir.Global, int64, bool) {
	off := int64(0)
	for {
		switch x := v.(type) {
		case *ir.Global:
			return x, off, true
		case *constant.ExprBitCast:
			v = x.From
		case *constant.ExprAddrSpaceCast:
			v = x.From
		case *constant.ExprGetElementPtr:
			idx := make([]value.Value, len(x.Indices))
			for i, c := range x.Indices {
				idx[i] = c
			}
			d, ok := constOffset(x.ElemType, idx)
			if !ok {
				return nil, 0, false
			}
			off += d
			v = x.Src
		default:
			return nil, 0, false
		}
	}
}

// constOffset is the byte offset of getelementptr indices over elem when
// they are all constant.
func constOffset(elem types.Type, indices []value.Value) (int64, bool) {
	off := int64(0)
	t := elem
	for i, idx := range indices {
		k, ok := intConst(idx)
		if !ok {
			return 0, false
		}
		if i == 0 {
			off += k * irutil.AllocSize(elem)
			continue
		}
		d, et := irutil.ElementOffset(t, k)
		if et == nil {
			return 0, false
		}
		off += d
		t = et
	}
	return off, true
}

// intConst is the value of an integer constant (a splat vector's element).
func intConst(v value.Value) (int64, bool) {
	switch x := unwrap(v).(type) {
	case *constant.Index:
		return intConst(x.Constant)
	case *constant.Int:
		if x.X.IsInt64() {
			return x.X.Int64(), true
		}
	case *constant.Vector:
		if len(x.Elems) > 0 {
			k, ok := intConst(x.Elems[0])
			for _, e := range x.Elems[1:] {
				if k2, ok2 := intConst(e); !ok2 || k2 != k {
					return 0, false
				}
			}
			return k, ok
		}
	case *constant.ZeroInitializer:
		return 0, true
	}
	return 0, false
}

// initializerFacts is the memory tree a global's initial contents give:
// float constants are floats where they are written and addresses are
// pointers, as a store of them would say; integers say nothing.
func initializerFacts(init constant.Constant) *Tree {
	out := NewTree()
	var walk func(c constant.Constant, off int64)
	walk = func(c constant.Constant, off int64) {
		if off > MaxOffset {
			return
		}
		switch x := c.(type) {
		case *constant.Float:
			out.put([]int64{off}, FromFloat(x.Typ))
		case *constant.Array:
			for i, e := range x.Elems {
				walk(e, off+int64(i)*irutil.AllocSize(x.Typ.ElemType))
			}
		case *constant.Struct:
			for i, e := range x.Fields {
				walk(e, off+irutil.FieldOffset(x.Typ, i))
			}
		case *constant.Vector:
			for i, e := range x.Elems {
				walk(e, off+int64(i)*irutil.StoreSize(x.Typ.ElemType))
			}
		case *constant.CharArray, *constant.Int, *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		default:
			if _, ok := c.Type().(*types.PointerType); ok {
				if _, null := c.(*constant.Null); !null {
					out.put([]int64{off}, Pointer)
				}
			}
		}
	}
	walk(init, 0)
	return out
}
