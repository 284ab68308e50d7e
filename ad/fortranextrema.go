package ad

import (
	"math"

	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// MAXVAL and MINVAL: the derivative is the chosen element's, the first
// in array element order strictly beyond all before it (from -inf for
// MAXVAL, +inf for MINVAL; NaNs never chosen), the element whose value the
// runtime's running extremum returns. The record is the address of that
// element's shadow (null: none, or no shadow).

// extFind returns (building once) the recursive helper (dims, k, p,
// best, bestp) that walks the elements below dimension k from p as walk
// does, keeping in *best the extremum so far and in *bestp its address.
func (h *fredHelpers) extFind() *ir.Func {
	t := h.red.elem
	kind := "max"
	pred := enum.FPredOGT
	if h.red.ext < 0 {
		kind, pred = "min", enum.FPredOLT
	}
	name := fortranReducePrefix + kind + "_" + rules.TypeSuffix(t)
	for _, f := range h.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	dims, k, p := ir.NewParam("dims", types.I8Ptr), ir.NewParam("k", types.I64), ir.NewParam("p", types.I8Ptr)
	best, bestp := ir.NewParam("best", types.NewPointer(t)), ir.NewParam("bestp", types.NewPointer(types.I8Ptr))
	f := h.m.NewFunc(name, types.Void, dims, k, p, best, bestp)
	f.Linkage = enum.LinkageInternal
	x := newFB(f)
	leaf, rec := f.NewBlock("leaf"), f.NewBlock("rec")
	x.b.NewCondBr(x.b.NewICmp(enum.IPredSLT, k, i64c(0)), leaf, rec)
	x.b = leaf
	v := x.load(t, p, i64c(0))
	x.ifThen(x.b.NewFCmp(pred, v, x.b.NewLoad(t, best)), func() {
		x.b.NewStore(v, best)
		x.b.NewStore(p, bestp)
	})
	x.b.NewRet(nil)
	x.b = rec
	off := x.b.NewMul(k, i64c(24))
	ext := x.load(types.I64, dims, x.b.NewAdd(off, i64c(8)))
	sm := x.load(types.I64, dims, x.b.NewAdd(off, i64c(16)))
	km1 := x.b.NewSub(k, i64c(1))
	x.loop(ext, func(i value.Value) {
		x.b.NewCall(f, dims, km1, x.at(p, x.b.NewMul(i, sm)), best, bestp)
	})
	x.b.NewRet(nil)
	return f
}

// extShadowElem is the address in shadow base sb (not null) of the
// element of descriptor a the runtime returns; null where none is chosen.
func (h *fredHelpers) extShadowElem(x *fb, a, sb value.Value) value.Value {
	t := h.red.elem
	inf := math.Inf(-h.red.ext)
	best := x.slot(t, rules.FloatConst(t, inf))
	bestp := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	pb := x.load(types.I8Ptr, a, i64c(0))
	x.b.NewCall(h.extFind(), x.at(a, i64c(24)), x.b.NewSub(x.rank(a), i64c(1)), pb, best, bestp)
	bp := x.b.NewLoad(types.I8Ptr, bestp)
	off := x.b.NewSub(x.b.NewPtrToInt(bp, types.I64), x.b.NewPtrToInt(pb, types.I64))
	found := x.b.NewICmp(enum.IPredNE, bp, constant.NewNull(types.I8Ptr))
	return x.b.NewSelect(found, x.at(sb, off), constant.NewNull(types.I8Ptr))
}

// extAug: (a, sa, ...) -> the chosen element's shadow address.
func (h *fredHelpers) extAug(f *ir.Func) {
	x := newFB(f)
	a, sa := f.Params[0], f.Params[1]
	h.checkType(x, a)
	sb := x.descShadowBase(a, sa)
	out := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	x.ifNonNull(sb, func() {
		x.b.NewStore(h.extShadowElem(x, a, sb), out)
	})
	x.b.NewRet(x.b.NewLoad(types.I8Ptr, out))
}

// extGrad: (..., d, record): the chosen element's shadow += d.
func (h *fredHelpers) extGrad(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	d, rec := f.Params[len(f.Params)-2], f.Params[len(f.Params)-1]
	x.ifNonNull(rec, func() {
		x.store(x.b.NewFAdd(x.load(t, rec, i64c(0)), d), rec, i64c(0))
	})
	x.b.NewRet(nil)
}

// extFwd: (a, ta, ...) -> the chosen element's tangent.
func (h *fredHelpers) extFwd(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	a, ta := f.Params[0], f.Params[1]
	h.checkType(x, a)
	tb := x.descShadowBase(a, ta)
	out := x.slot(t, rules.FloatConst(t, 0))
	x.ifNonNull(tb, func() {
		e := h.extShadowElem(x, a, tb)
		x.ifNonNull(e, func() {
			x.b.NewStore(x.load(t, e, i64c(0)), out)
		})
	})
	x.b.NewRet(x.b.NewLoad(t, out))
}
