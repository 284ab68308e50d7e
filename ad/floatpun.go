package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Floats moved as doubles. Clang passes a 16-byte union of __m128 and
// four floats (HandmadeMath's HMM_Vec4, HMM_Quat) as { double, double },
// and SROA then reads a <4 x float> as <2 x double> lanes and makes each
// double a <2 x float> again. A bitcast between float types of different
// widths has no derivative rule: the engine would see the doubles as
// constants and the derivative vanish. So, before AD, a pair of floats
// taken from a float vector through a double lane becomes a shuffle of
// the vector's lanes (unpunFloatPairs); a bitcast between float types of
// different widths that a derivative still reaches stops the link
// (checkFloatPuns): an adjoint summed as a double would be wrong.

// unpunFloatPairs rewrites, in f,
//
//	%d = bitcast <2k x float> %v to <k x double>
//	%e = extractelement <k x double> %d, i
//	%p = bitcast double %e to <2 x float>
//
// as %p = shufflevector %v, undef, <2i, 2i+1> (and <2 x double> lanes of
// <4 x double>, element width to twice the width, alike).
func unpunFloatPairs(f *ir.Func) {
	repl := map[value.Value]value.Value{}
	views := map[value.Value]value.Value{}
	after := map[ir.Instruction][]ir.Instruction{}
	stores := map[ir.Instruction][]ir.Instruction{} // a store (or trunc) and what replaces it
	for _, b := range f.Blocks {
		for i, inst := range b.Insts {
			if st, ok := inst.(*ir.InstStore); ok {
				if ns := unpunStore(st, views, after); ns != nil {
					stores[st] = ns
				}
				continue
			}
			if tr, ok := inst.(*ir.InstTrunc); ok {
				// A float's bits taken as an i32 from half a lane, used as
				// an integer (inserted into an <2 x i32> made a float
				// vector): the float lane's bits, which the retype
				// (retype_body.go) then follows as the float.
				if e := halfLane(tr, views, after); e != nil {
					c := ir.NewBitCast(e, tr.To)
					c.LocalIdent = tr.LocalIdent
					stores[tr] = []ir.Instruction{e, c}
					repl[tr] = c
				}
				continue
			}
			bc, ok := inst.(*ir.InstBitCast)
			if !ok {
				continue
			}
			if e := unpunHalf(bc, views, after); e != nil {
				e.LocalIdent = bc.LocalIdent
				b.Insts[i] = e
				repl[bc] = e
				continue
			}
			to, ok := bc.To.(*types.VectorType)
			if !ok || !irfacts.IsFloat(to.ElemType) {
				continue
			}
			from, k := floatLane(bc.From, uint64(to.Len)*laneBits(to.ElemType), to.ElemType, views, after)
			if from == nil {
				continue
			}
			vt := from.Type().(*types.VectorType)
			n := int64(to.Len)
			mask := make([]constant.Constant, n)
			for j := range mask {
				mask[j] = constant.NewInt(types.I32, k*n+int64(j))
			}
			sh := ir.NewShuffleVector(from, constant.NewUndef(vt), constant.NewVector(types.NewVector(uint64(n), types.I32), mask...))
			sh.LocalIdent = bc.LocalIdent
			b.Insts[i] = sh
			repl[bc] = sh
		}
	}
	if len(repl) == 0 && len(stores) == 0 {
		return
	}
	for _, b := range f.Blocks {
		var out []ir.Instruction
		for _, inst := range b.Insts {
			if r, ok := stores[inst]; ok {
				out = append(out, r...)
			} else {
				out = append(out, inst)
			}
			out = append(out, after[inst]...)
		}
		b.Insts = out
	}
	remapFunc(f, func(v value.Value) value.Value {
		if n, ok := repl[v]; ok {
			return n
		}
		return v
	})
	// The double lanes (and loads) nothing reads any more go (checkFloatPuns would
	// stop at their casts).
	for {
		used := map[value.Value]bool{}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				for _, op := range operandsOf(inst) {
					used[irfacts.Unwrap(op)] = true
				}
			}
			if u, ok := b.Term.(interface{ Operands() []*value.Value }); ok {
				for _, op := range u.Operands() {
					used[irfacts.Unwrap(*op)] = true
				}
			}
		}
		removed := false
		for _, b := range f.Blocks {
			kept := b.Insts[:0]
			for _, inst := range b.Insts {
				dead := false
				switch x := inst.(type) {
				case *ir.InstBitCast, *ir.InstExtractElement, *ir.InstTrunc, *ir.InstLShr:
					dead = !used[inst.(value.Value)]
				case *ir.InstLoad:
					dead = !used[x] && !x.Volatile && !x.Atomic
				}
				if dead {
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
	}
}

// unpunStore is store st of a double lane of a float vector's bits
// (store double (extractelement (bitcast <4 x float> %v), i), p) as the
// store of that lane's floats, <2 x float> through p cast: the shuffle,
// the cast and the store that replace st, nil when st stores something
// else.
func unpunStore(st *ir.InstStore, views map[value.Value]value.Value, after map[ir.Instruction][]ir.Instruction) []ir.Instruction {
	if st.Volatile || st.Atomic {
		return nil
	}
	from, k := floatLane(st.Src, 64, types.Float, views, after)
	if from == nil {
		return nil
	}
	pair := types.NewVector(2, types.Float)
	sh := ir.NewShuffleVector(from, constant.NewUndef(from.Type()), constant.NewVector(types.NewVector(2, types.I32),
		constant.NewInt(types.I32, 2*k), constant.NewInt(types.I32, 2*k+1)))
	pt := types.NewPointer(pair)
	if spt, ok := st.Dst.Type().(*types.PointerType); ok {
		pt.AddrSpace = spt.AddrSpace
	}
	p := ir.NewBitCast(st.Dst, pt)
	ns := ir.NewStore(sh, p)
	ns.Align, ns.Metadata = st.Align, accessMetadata(st.Metadata)
	return []ir.Instruction{sh, p, ns}
}

// unpunHalf is float bitcast bc of the low or high 32 bits of a 64-bit
// lane of a float vector's bits,
//
//	%l = extractelement <2 x i64> (bitcast <4 x float> %v to <2 x i64>), i
//	     (or bitcast double (extractelement <2 x double> ..., i) to i64)
//	%f = bitcast i32 (trunc i64 (lshr i64 %l, 32)) to float
//
// as extractelement %v, 2i+1 (2i without the shift); nil otherwise.
func unpunHalf(bc *ir.InstBitCast, views map[value.Value]value.Value, after map[ir.Instruction][]ir.Instruction) *ir.InstExtractElement {
	ft, ok := bc.To.(*types.FloatType)
	if !ok || ft.Kind != types.FloatKindFloat {
		return nil
	}
	tr, ok := irfacts.Unwrap(bc.From).(*ir.InstTrunc)
	if !ok {
		return nil
	}
	return halfLane(tr, views, after)
}

// halfLane is the float lane whose bits trunc tr takes from half a 64-bit
// lane of a float vector's bits (see unpunHalf), nil when it takes other
// bits.
func halfLane(tr *ir.InstTrunc, views map[value.Value]value.Value, after map[ir.Instruction][]ir.Instruction) *ir.InstExtractElement {
	if laneBits(tr.From.Type()) != 64 || laneBits(tr.To) != 32 {
		return nil
	}
	if _, ok := tr.To.(*types.IntType); !ok {
		return nil
	}
	lane, half := irfacts.Unwrap(tr.From), int64(0)
	if sh, ok := lane.(*ir.InstLShr); ok {
		if k, ok := intConstOf(sh.Y); !ok || k != 32 {
			return nil
		}
		lane, half = irfacts.Unwrap(sh.X), 1
	}
	if d, ok := lane.(*ir.InstBitCast); ok {
		lane = irfacts.Unwrap(d.From)
	}
	from, k := floatLane(lane, 64, types.Float, views, after)
	if from == nil {
		return nil
	}
	return ir.NewExtractElement(from, constant.NewInt(types.I64, 2*k+half))
}

// floatLane is v as lane k (a constant index) of bits bits extracted from
// a vector of doubles (or integers) that floatView sees as a vector of
// elem: that view and k; nil when v is something else.
func floatLane(v value.Value, bits uint64, elem types.Type, views map[value.Value]value.Value, after map[ir.Instruction][]ir.Instruction) (value.Value, int64) {
	ext, ok := irfacts.Unwrap(v).(*ir.InstExtractElement)
	if !ok || laneBits(ext.Typ) != bits {
		return nil, 0
	}
	k, ok := intConstOf(ext.Index)
	if !ok {
		return nil, 0
	}
	return floatView(ext.X, elem, views, after), k
}

// floatView is vector x of doubles as the vector of elem it was made
// from: the operand of a bitcast from one, or the same memory loaded as
// one (a load placed after x's, recorded in after); nil otherwise.
func floatView(x value.Value, elem types.Type, views map[value.Value]value.Value, after map[ir.Instruction][]ir.Instruction) value.Value {
	x = irfacts.Unwrap(x)
	if v, ok := views[x]; ok {
		return v
	}
	xt, ok := x.Type().(*types.VectorType)
	if !ok {
		return nil
	}
	n := xt.Len * laneBits(xt.ElemType) / laneBits(elem)
	var v value.Value
	switch y := x.(type) {
	case *ir.InstBitCast:
		if vt, ok := y.From.Type().(*types.VectorType); ok && types.Equal(vt.ElemType, elem) {
			v = y.From
		}
	case *ir.InstLoad:
		if y.Volatile || y.Atomic {
			return nil
		}
		ft := types.NewVector(n, elem)
		pt := types.NewPointer(ft)
		if spt, ok := y.Src.Type().(*types.PointerType); ok {
			pt.AddrSpace = spt.AddrSpace
		}
		p := ir.NewBitCast(y.Src, pt)
		ld := ir.NewLoad(ft, p)
		ld.Align, ld.Metadata = y.Align, accessMetadata(y.Metadata)
		after[y] = append(after[y], p, ld)
		v = ld
	}
	views[x] = v
	return v
}

// checkFloatPuns reports the first bitcast in f between float types of
// different element widths whose operand carries a derivative, or the
// first double carrying one that the type analysis found holding floats.
func (d *differ) checkFloatPuns(f *ir.Func, act *activity.Info) error {
	const why = "(floats moved as doubles, as a union of __m128 and floats passed by value is): a derivative cannot follow them, it would be lost (pass such unions by pointer)"
	var ta *typeanalysis.Analysis
	if d.bits != nil {
		ta = d.bits.ta
	}
	for _, p := range f.Params {
		if ta != nil && act.Varied[p] && ta.FloatsInDouble(p) {
			return errorAt(f, nil, "parameter %s holds floats as %s %s", p.Ident(), p.Typ.LLString(), why)
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			v, ok := inst.(value.Value)
			if !ok || !act.Varied[v] && !isPun(inst, act) {
				continue
			}
			if bc, ok := inst.(*ir.InstBitCast); ok && isPun(bc, act) {
				return errorAt(f, bc, "%s: the bits of %s read as %s %s", describe(bc), bc.From.Ident(), bc.To.LLString(), why)
			}
			if ta != nil && ta.FloatsInDouble(v) {
				return errorAt(f, inst, "%s: %s holds floats as %s %s", describe(inst), v.Ident(), v.Type().LLString(), why)
			}
		}
	}
	return nil
}

// isPun reports a bitcast between float types of different element
// widths of a value that carries a derivative.
func isPun(inst ir.Instruction, act *activity.Info) bool {
	bc, ok := inst.(*ir.InstBitCast)
	if !ok || !irfacts.CarriesFloat(bc.From.Type()) || !irfacts.CarriesFloat(bc.To) {
		return false
	}
	return laneBits(bc.From.Type()) != laneBits(bc.To) && act.Varied[irfacts.Unwrap(bc.From)]
}
