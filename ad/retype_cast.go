package ad

// Casts of the body rewrite (retype_body.go): values as their float or
// pointer twins and back, constants converted, casts of casts folded and
// casts without uses removed.

import (
	"math"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// asCarrier is x as a value of type t (a float, float vector or pointer
// type holding the same bits): its twin, the float a bitcast made it
// from, a converted constant, or else a cast emitted before the use.
func (w *bodyRewrite) asCarrier(x value.Value, t types.Type, emit func(...ir.Instruction)) value.Value {
	x = irfacts.Unwrap(x)
	if types.Equal(x.Type(), t) {
		return x
	}
	if tw := w.twin[x]; tw != nil && types.Equal(tw.Type(), t) {
		return tw
	}
	switch y := x.(type) {
	case *ir.InstBitCast:
		if types.Equal(y.From.Type(), t) {
			return y.From
		}
	case *ir.InstPtrToInt:
		if types.IsPointer(t) {
			if types.Equal(y.From.Type(), t) {
				return y.From
			}
			c := ir.NewBitCast(y.From, t)
			w.added[c] = true
			emit(c)
			return c
		}
	case *ir.InstExtractElement:
		// A lane of a float vector cast to integer lanes (SROA's copy of
		// a struct of two floats): the float lane itself.
		if bc, ok := irfacts.Unwrap(y.X).(*ir.InstBitCast); ok {
			if vt, ok := bc.From.Type().(*types.VectorType); ok && types.Equal(vt.ElemType, t) && vt.Len == y.X.Type().(*types.VectorType).Len {
				e := ir.NewExtractElement(bc.From, y.Index)
				w.added[e] = true
				emit(e)
				return e
			}
		}
	case constant.Constant:
		return constCarrier(y, t)
	}
	c := castTo(x, t)
	if inst, ok := c.(ir.Instruction); ok {
		w.added[inst] = true
		emit(inst)
	}
	return c
}

// castPtr is pointer p cast to point to t.
func (w *bodyRewrite) castPtr(p value.Value, t types.Type, emit func(...ir.Instruction)) value.Value {
	p = irfacts.Unwrap(p)
	pt := types.NewPointer(t)
	if opt, ok := p.Type().(*types.PointerType); ok {
		pt.AddrSpace = opt.AddrSpace
	}
	if types.Equal(p.Type(), pt) {
		return p
	}
	if c, ok := p.(constant.Constant); ok {
		return constant.NewBitCast(c, pt)
	}
	if bc, ok := p.(*ir.InstBitCast); ok && types.Equal(bc.From.Type(), pt) {
		return bc.From
	}
	c := ir.NewBitCast(p, pt)
	w.added[c] = true
	emit(c)
	return c
}

// backCast is the integer of type t holding the bits of twin (a float or
// pointer value).
func backCast(twin value.Value, t types.Type) value.Value {
	if types.IsPointer(twin.Type()) {
		return ir.NewPtrToInt(twin, t)
	}
	return ir.NewBitCast(twin, t)
}

// castTo is integer x as a float (bitcast) or pointer (inttoptr) of type
// t; constants fold.
func castTo(x value.Value, t types.Type) value.Value {
	x = irfacts.Unwrap(x)
	if c, ok := x.(constant.Constant); ok {
		return constCarrier(c, t)
	}
	if types.IsPointer(t) {
		return ir.NewIntToPtr(x, t)
	}
	return ir.NewBitCast(x, t)
}

// constCarrier is integer constant c as type t: float constants for
// ordinary values, undef and zero as such, a constant cast otherwise.
func constCarrier(c constant.Constant, t types.Type) constant.Constant {
	switch k := c.(type) {
	case *constant.Undef:
		return constant.NewUndef(t)
	case *constant.Poison:
		return constant.NewPoison(t)
	case *constant.ZeroInitializer:
		if types.IsPointer(t) {
			return constant.NewNull(t.(*types.PointerType))
		}
		return rules.ZeroOf(t)
	case *constant.Int:
		if pt, ok := t.(*types.PointerType); ok {
			if k.X.Sign() == 0 {
				return constant.NewNull(pt)
			}
			return constant.NewIntToPtr(k, t)
		}
		if ft, ok := t.(*types.FloatType); ok {
			if f, ok := floatFromBits(k, ft); ok {
				return f
			}
		}
	case *constant.ExprPtrToInt:
		if types.IsPointer(t) {
			return constant.NewBitCast(k.From, t)
		}
	}
	if types.IsPointer(t) {
		return constant.NewIntToPtr(c, t)
	}
	return constant.NewBitCast(c, t)
}

// floatFromBits is the float constant with the bits of integer k, when it
// is a finite number (NaN payloads and infinities stay bit casts).
func floatFromBits(k *constant.Int, ft *types.FloatType) (constant.Constant, bool) {
	u := k.X.Uint64()
	if k.X.Sign() < 0 {
		u = uint64(k.X.Int64())
	}
	var f float64
	switch ft.Kind {
	case types.FloatKindDouble:
		f = math.Float64frombits(u)
	case types.FloatKindFloat:
		f = float64(math.Float32frombits(uint32(u)))
	default:
		return nil, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return constant.NewFloat(ft, f), true
}

func isFloatScalarOrVector(t types.Type) bool {
	if ft, ok := rules.ScalarOf(t).(*types.FloatType); ok {
		return ft.Kind == types.FloatKindDouble || ft.Kind == types.FloatKindFloat
	}
	return false
}

// accessMetadata keeps the attachments of a load or store that stay true
// of the same access with a float type (the access's memory, aliasing,
// loop and debug facts; not !range, !nonnull and the like, which are about
// integer or pointer values).
func accessMetadata(md ir.Metadata) ir.Metadata {
	var out ir.Metadata
	for _, a := range md {
		switch a.Name {
		case "tbaa", "tbaa.struct", "alias.scope", "noalias", "llvm.access.group", "dbg", "nontemporal",
			"invariant.load", "llvm.mem.parallel_loop_access":
			out = append(out, a)
		}
	}
	return out
}

// foldCasts replaces a cast of a cast by the first value where the second
// undoes the first (bitcast double to i64 to double; ptrtoint then
// inttoptr becomes a pointer bitcast), and a float vector cast from an
// integer vector built lane by lane from a float's bits by the vector
// built from the float (laneInsert), until none is left.
func (w *bodyRewrite) foldCasts() {
	for {
		repl := map[value.Value]value.Value{}
		before := map[ir.Instruction][]ir.Instruction{}
		for _, b := range w.f.Blocks {
			for i, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstBitCast:
					if in, ok := irfacts.Unwrap(x.From).(*ir.InstBitCast); ok && types.Equal(in.From.Type(), x.To) {
						repl[x] = in.From
					} else if ok && !types.IsPointer(x.To) && !types.IsPointer(in.From.Type()) {
						// A chain of value casts (float vector to <2 x i64>
						// to <4 x i32>, as SSE's casts are) is one cast.
						c := ir.NewBitCast(in.From, x.To)
						c.LocalIdent = x.LocalIdent
						b.Insts[i] = c
						repl[x] = c
					} else if cast, ins, ok := laneInsert(x); ok {
						if cast != nil {
							before[x] = append(before[x], cast)
						}
						before[x] = append(before[x], ins)
						repl[x] = ins
					}
				case *ir.InstIntToPtr:
					if in, ok := irfacts.Unwrap(x.From).(*ir.InstPtrToInt); ok {
						if types.Equal(in.From.Type(), x.To) {
							repl[x] = in.From
						} else {
							c := ir.NewBitCast(in.From, x.To)
							c.LocalIdent = x.LocalIdent
							b.Insts[i] = c
							repl[x] = c
						}
					}
				}
			}
		}
		if len(repl) == 0 {
			return
		}
		w.changed = true
		for _, b := range w.f.Blocks {
			var out []ir.Instruction
			for _, inst := range b.Insts {
				out = append(out, before[inst]...)
				out = append(out, inst)
			}
			b.Insts = out
		}
		remapFunc(w.f, func(v value.Value) value.Value {
			for {
				n, ok := repl[v]
				if !ok {
					return v
				}
				v = n
			}
		})
		// The folded casts have no uses left.
		for _, b := range w.f.Blocks {
			kept := b.Insts[:0]
			for _, inst := range b.Insts {
				if v, ok := inst.(value.Value); ok && repl[v] != nil {
					continue
				}
				kept = append(kept, inst)
			}
			b.Insts = kept
		}
	}
}

// laneInsert matches bitcast x of an integer vector to a float vector
// whose lanes are as wide as the integers, where the integer vector is
// insertelement(v, bitcast e to iN, k) of a float e of the lane type: x is
// then insertelement(bitcast v, e, k), bit for bit; laneInsert returns
// that cast of v (nil when v is a constant, made a float vector constant)
// and the insertelement (the cast folds further on the next round when v
// is built the same way). The vectorizer builds such vectors
// from the bits of a double passed as an integer (memcpy(&d, &bits, 8)).
func laneInsert(x *ir.InstBitCast) (*ir.InstBitCast, *ir.InstInsertElement, bool) {
	to, ok := x.To.(*types.VectorType)
	if !ok || !irfacts.IsFloat(to.ElemType) {
		return nil, nil, false
	}
	in, ok := irfacts.Unwrap(x.From).(*ir.InstInsertElement)
	if !ok {
		return nil, nil, false
	}
	from, ok := in.X.Type().(*types.VectorType)
	if !ok || from.Len != to.Len || !types.IsInt(from.ElemType) {
		return nil, nil, false
	}
	elem, ok := irfacts.Unwrap(in.Elem).(*ir.InstBitCast)
	if !ok || !types.Equal(elem.From.Type(), to.ElemType) {
		return nil, nil, false
	}
	if c, ok := in.X.(constant.Constant); ok {
		ins := ir.NewInsertElement(constCarrier(c, to), elem.From, in.Index)
		ins.Metadata = in.Metadata
		return nil, ins, true
	}
	cast := ir.NewBitCast(in.X, to)
	ins := ir.NewInsertElement(cast, elem.From, in.Index)
	ins.Metadata = in.Metadata
	return cast, ins, true
}

// removeDeadCasts removes casts (and loads the rewrite replaced) that
// nothing uses any more; metadata uses (llvm.dbg.value) count as uses.
func (w *bodyRewrite) removeDeadCasts() {
	for {
		used := map[value.Value]bool{}
		mark := func(x interface{}) {
			u, ok := x.(interface{ Operands() []*value.Value })
			if !ok {
				return
			}
			for _, op := range u.Operands() {
				v := *op
				if a, ok := v.(*ir.Arg); ok {
					v = a.Value
				}
				if mv, ok := v.(*metadata.Value); ok {
					if vv, ok := mv.Value.(value.Value); ok {
						used[vv] = true
					}
					continue
				}
				used[v] = true
			}
		}
		for _, b := range w.f.Blocks {
			for _, inst := range b.Insts {
				mark(inst)
			}
			mark(b.Term)
		}
		removed := false
		for _, b := range w.f.Blocks {
			kept := b.Insts[:0]
			for _, inst := range b.Insts {
				if isPureCast(inst) && !used[inst.(value.Value)] {
					removed = true
					continue
				}
				kept = append(kept, inst)
			}
			b.Insts = kept
		}
		if !removed {
			return
		}
		w.changed = true
	}
}

func isPureCast(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstBitCast, *ir.InstPtrToInt, *ir.InstIntToPtr,
		*ir.InstInsertElement: // the integer vectors laneInsert replaces
		return true
	}
	return false
}

// remapFunc maps every operand of f's instructions and terminators,
// including those wrapped as metadata (llvm.dbg.value) and phi incomings.
func remapFunc(f *ir.Func, remap func(value.Value) value.Value) {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			irutil.RemapOperands(inst, remap)
		}
		irutil.RemapOperands(b.Term, remap)
	}
}
