package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Floats that travel as integers: a fork passes its arguments through
// varargs as pointer-sized values, so clang passes a firstprivate double
// as the i64 of its bits (a float zero-extended from its i32). The
// outlined function's copy takes the float again (ompOutlinedCopy), and
// the round trips through integers inside it are folded away.

// floatFromInt returns the float of type ft that integer argument a
// carries: the float itself where a was made from it by bitcasts and a
// zero extension (clang's way of passing it through varargs), else the
// conversion, appended to pre.
func floatFromInt(f *ir.Func, a value.Value, ft types.Type, pre *[]ir.Instruction) value.Value {
	if x, ok := peelFloat(f, a); ok && types.Equal(x.Type(), ft) {
		return x
	}
	bits := intOfSize(ft)
	var v value.Value = a
	if !types.Equal(a.Type(), bits) {
		t := ir.NewTrunc(a, bits)
		*pre = append(*pre, t)
		v = t
	}
	bc := ir.NewBitCast(v, ft)
	*pre = append(*pre, bc)
	return bc
}

// peelFloat follows zext, bitcast and a reload of a stack slot back from
// an integer to the float whose bits it holds.
func peelFloat(f *ir.Func, v value.Value) (value.Value, bool) {
	for {
		switch x := irfacts.Unwrap(v).(type) {
		case *ir.InstZExt:
			v = x.From
		case *ir.InstBitCast:
			if irfacts.IsFloat(x.From.Type()) {
				return x.From, true
			}
			return nil, false
		case *ir.InstLoad:
			st := reachingStore(f, x)
			if st == nil || !irfacts.IsFloat(st.Src.Type()) {
				return nil, false
			}
			return irfacts.Unwrap(st.Src), true
		default:
			return nil, false
		}
	}
}

// reachingStore is the store whose value load ld reads back: the last
// store before it in its block to the same alloca (directly or through a
// bitcast), with only instructions that write no memory in between.
func reachingStore(f *ir.Func, ld *ir.InstLoad) *ir.InstStore {
	objs, known := underlyingObjects(ld.Src)
	if !known || len(objs) != 1 {
		return nil
	}
	a, ok := objs[0].(*ir.InstAlloca)
	if !ok {
		return nil
	}
	b, at := blockOfInst(f, ld)
	if b == nil {
		return nil
	}
	for i := at - 1; i >= 0; i-- {
		switch x := b.Insts[i].(type) {
		case *ir.InstStore:
			dobjs, dknown := underlyingObjects(x.Dst)
			if !dknown || len(dobjs) != 1 {
				return nil
			}
			if dobjs[0] != a {
				continue
			}
			if irutil.StripCasts(x.Dst) == irutil.StripCasts(ld.Src) {
				return x
			}
			return nil
		case *ir.InstCall:
			if !isDebugIntrinsic(x) && !strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime.") {
				return nil
			}
		case *ir.InstAtomicRMW, *ir.InstCmpXchg:
			return nil
		}
	}
	return nil
}

// intOfSize is the integer type with the bits of float type t.
func intOfSize(t types.Type) *types.IntType {
	switch t := t.(type) {
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return types.I16
		case types.FloatKindFloat:
			return types.I32
		}
	}
	return types.I64
}

// retypeParam makes parameter k of f, an integer holding a float's bits,
// a float of type ft; its uses read the bits from a conversion at entry.
func retypeParam(f *ir.Func, k int, ft types.Type) {
	p := f.Params[k]
	it := p.Typ.(*types.IntType)
	var insts []ir.Instruction
	bits := intOfSize(ft)
	bc := ir.NewBitCast(p, bits) // operand retyped below
	insts = append(insts, bc)
	var v value.Value = bc
	if it.BitSize != bits.BitSize {
		z := ir.NewZExt(bc, it)
		insts = append(insts, z)
		v = z
	}
	irutil.ReplaceAllUses(f, p, v)
	bc.From = p
	p.Typ = ft
	f.Sig.Params[k] = ft
	entry := f.Blocks[0]
	entry.Insts = append(insts, entry.Insts...)
}

// foldFloatBits undoes float-to-integer round trips: trunc(zext x) is x,
// bitcast(bitcast x) to x's type is x, and a store of a float's bits
// through a pointer cast from a float pointer stores the float.
func foldFloatBits(f *ir.Func) {
	folded := map[ir.Instruction]bool{}
	for changed := true; changed; {
		changed = false
		var casts []*ir.InstStore // stores of a float's bits to cast to float stores
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstTrunc:
					if z, ok := irfacts.Unwrap(x.From).(*ir.InstZExt); ok && types.Equal(z.From.Type(), x.To) && !folded[x] {
						irutil.ReplaceAllUses(f, x, z.From)
						folded[x], changed = true, true
					}
				case *ir.InstBitCast:
					if y, ok := irfacts.Unwrap(x.From).(*ir.InstBitCast); ok && types.Equal(y.From.Type(), x.To) && !types.IsPointer(x.To) && !folded[x] {
						irutil.ReplaceAllUses(f, x, y.From)
						folded[x], changed = true, true
					}
				case *ir.InstStore:
					y, ok := irfacts.Unwrap(x.Src).(*ir.InstBitCast)
					if !ok || !irfacts.IsFloat(y.From.Type()) {
						break
					}
					if pc, ok := irfacts.Unwrap(x.Dst).(*ir.InstBitCast); ok {
						if pt, ok := pc.From.Type().(*types.PointerType); ok && types.Equal(pt.ElemType, y.From.Type()) {
							x.Src, x.Dst = y.From, pc.From
							changed = true
							break
						}
					}
					casts = append(casts, x)
				}
			}
		}
		for _, st := range casts {
			// store iN (bitcast F x), iN* p  ->  store F x, F* (bitcast p)
			x := irfacts.Unwrap(st.Src).(*ir.InstBitCast).From
			pc := ir.NewBitCast(irfacts.Unwrap(st.Dst), types.NewPointer(x.Type()))
			insertBefore(f, st, pc)
			st.Src, st.Dst = x, pc
			changed = true
		}
	}
}

// insertBefore puts inst before at in f.
func insertBefore(f *ir.Func, at, inst ir.Instruction) {
	if b, i := blockOfInst(f, at); b != nil {
		b.Insts = append(b.Insts[:i], append([]ir.Instruction{inst}, b.Insts[i:]...)...)
	}
}

// blockOfInst finds inst in f: its block and index.
func blockOfInst(f *ir.Func, inst ir.Instruction) (*ir.Block, int) {
	for _, b := range f.Blocks {
		for i, x := range b.Insts {
			if x == inst {
				return b, i
			}
		}
	}
	return nil, -1
}
