package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// reverseInst emits the adjoint of one primal instruction of block at into
// blk and returns the block where emission continues.
func (r *reverseGen) reverseInst(blk *ir.Block, at *ir.Block, inst ir.Instruction) (*ir.Block, error) {
	if isDebugIntrinsic(inst) {
		return blk, nil
	}
	if c, ok := inst.(*ir.InstCall); ok && isBarrier(c) {
		r.mirrorBarrier(blk, at, c) // gpubarrier.go
		return blk, nil
	}
	if call, ok := inst.(*ir.InstCall); ok {
		if next, runtime := r.ompReverseRuntime(blk, at, call); runtime {
			return next, nil
		}
	}
	if st, ok := inst.(*ir.InstStore); ok && r.parallel && len(r.partialList) > 0 && r.act.HasShadow(st.Dst) && irfacts.CarriesFloat(st.Src.Type()) {
		sp, err := r.lookupShadow(blk, at, st, st.Dst)
		if err != nil {
			return blk, err
		}
		blk = r.flushOverlapping(blk, at, st, sp)
	}
	if handled, err := r.reverseMemory(blk, at, inst); handled || err != nil {
		return blk, err
	}
	if call, ok := inst.(*ir.InstCall); ok {
		// A call with a rule (BLAS, a custom derivative) takes the result's
		// adjoint, nil where the result is inactive.
		blas := isBlasCall(call)
		rule, custom := r.customRule(call)
		if (blas || custom) && r.customCallActive(call) {
			var d value.Value
			if r.act.Active(call) {
				d = r.takeAdjoint(blk, call, call.Typ)
			}
			if blas {
				return r.reverseBlas(blk, at, call, d)
			}
			return blk, r.reverseCustom(blk, at, call, rule, d)
		}
	}
	if call, ok := inst.(*ir.InstCall); ok && r.callsDerivative(call) && !r.act.Active(call) {
		// Only memory carries this call's derivatives.
		return blk, r.reverseCall(blk, at, call, nil)
	}
	v, isValue := inst.(value.Value)
	if !isValue || !r.act.Active(v) {
		return blk, r.checkInactive(inst)
	}
	// d: the adjoint of the result, consumed here.
	d := r.takeAdjoint(blk, v, v.Type())
	b := &rules.Builder{M: r.m, B: blk}
	look := func(x value.Value) value.Value { return r.lookup(blk, at, x) }
	acc := func(x, delta value.Value) { r.accumulate(blk, x, delta) }

	if rule := rules.InstRuleOf(inst); rule != nil && rule.Adjoint != nil {
		rule.Adjoint(b, inst, d, rules.AdjointEnv{Look: look, Acc: acc, Active: r.act.Active})
		return blk, nil
	}
	switch x := inst.(type) {
	case *ir.InstFDiv:
		if r.act.Active(x.X) || r.act.Active(x.Y) {
			r.reverseFDiv(b, x, d, look, acc)
		}
	case *ir.InstFRem:
		r.applyPartials(b, at, rules.Fmod, []value.Value{x.X, x.Y}, x, d)
	case *ir.InstExtractValue:
		if r.act.Active(x.X) {
			agg := r.adjSlot(irfacts.Unwrap(x.X))
			old := blk.NewLoad(x.X.Type(), agg)
			cur := blk.NewExtractValue(old, x.Indices...)
			blk.NewStore(blk.NewInsertValue(old, blk.NewFAdd(cur, d), x.Indices...), agg)
		}
	case *ir.InstExtractElement:
		if r.act.Active(x.X) {
			idx := r.lookup(blk, at, x.Index)
			s := r.adjSlot(irfacts.Unwrap(x.X))
			old := blk.NewLoad(x.X.Type(), s)
			lane := blk.NewExtractElement(old, idx)
			blk.NewStore(blk.NewInsertElement(old, blk.NewFAdd(lane, d), idx), s)
		}
	case *ir.InstShuffleVector:
		if err := r.reverseShuffle(blk, x, d); err != nil {
			return blk, err
		}
	case *ir.InstCall:
		if r.callsDerivative(x) {
			return blk, r.reverseCall(blk, at, x, d)
		}
		if r.reverseReduction(blk, at, x, d) {
			break
		}
		callee, _ := x.Callee.(*ir.Func)
		if callee == nil {
			if !r.d.outsideOnly(x) {
				return blk, indirectCallError(r.f, x)
			}
			r.d.stopOutside(blk, r.f, x)
			break
		}
		if r.reverseComplex(b, at, x, d) {
			break
		}
		rule := mathRuleOf(callee, v.Type())
		if rule == nil {
			err := errorAt(r.f, inst, noRuleMsg, callee.Name())
			err.Callee = callee.Name()
			return blk, err
		}
		b.Picked = r.pickedValue(blk, at, x)
		b.Sibling = func(name string) value.Value {
			if s := r.mathSibling(at, x, name); s != nil {
				return r.lookup(blk, at, s)
			}
			return nil
		}
		r.applyPartials(b, at, rule, x.Args, x, d)
	default:
		return blk, errorAt(r.f, inst, "no derivative rule for %s", describe(inst))
	}
	return blk, nil
}

// applyPartials accumulates d·∂f/∂arg_i into every active argument.
func (r *reverseGen) applyPartials(b *rules.Builder, at *ir.Block, rule *rules.Rule, args []value.Value, result value.Value, d value.Value) {
	looked := make([]value.Value, len(args))
	operand := func(i int) value.Value {
		if looked[i] == nil {
			looked[i] = r.lookup(b.B, at, args[i])
		}
		return looked[i]
	}
	var res value.Value
	resultOf := func() value.Value {
		if res == nil {
			res = r.lookup(b.B, at, result)
		}
		return res
	}
	for i, a := range args {
		if !rule.Differentiable(i) || !r.act.Active(a) {
			continue
		}
		b.Arg = irfacts.Unwrap(a).Type()
		r.accumulate(b.B, a, rule.Term(b, operand, resultOf, i, d))
	}
}

// addAggregate returns x + y for aggregates of float fields (non-float
// fields keep x's value).
func addAggregate(blk *ir.Block, x, y value.Value, t types.Type, idx []uint64) value.Value {
	switch t := t.(type) {
	case *types.StructType:
		out := x
		for i, ft := range t.Fields {
			if !irfacts.CarriesFloat(ft) {
				continue
			}
			out = addField(blk, out, y, ft, append(idx, uint64(i)))
		}
		return out
	case *types.ArrayType:
		out := x
		for i := uint64(0); i < t.Len; i++ {
			out = addField(blk, out, y, t.ElemType, append(idx, i))
		}
		return out
	}
	return blk.NewFAdd(x, y)
}

func addField(blk *ir.Block, agg, y value.Value, ft types.Type, idx []uint64) value.Value {
	if _, ok := ft.(*types.StructType); ok {
		return addAggregate(blk, agg, y, ft, idx)
	}
	if _, ok := ft.(*types.ArrayType); ok {
		return addAggregate(blk, agg, y, ft, idx)
	}
	a := blk.NewExtractValue(agg, idx...)
	c := blk.NewExtractValue(y, idx...)
	return blk.NewInsertValue(agg, blk.NewFAdd(a, c), idx...)
}

// checkInactive fails on inactive instructions that would still need
// derivatives we cannot give yet: active values stored to memory.
func (r *reverseGen) checkInactive(inst ir.Instruction) error {
	switch x := inst.(type) {
	case *ir.InstStore:
		if r.act.Active(x.Src) {
			return errorAt(r.f, inst, "storing an active value to memory (%s) is not supported yet", describe(inst))
		}
	case *ir.InstCall:
		return r.d.unknownMemoryCall(r.f, r.act, x)
	}
	return nil
}

// reverseShuffle routes each lane of the result adjoint back to the input
// lane the (constant) mask took it from.
func (r *reverseGen) reverseShuffle(blk *ir.Block, x *ir.InstShuffleVector, d value.Value) error {
	n := int64(x.X.Type().(*types.VectorType).Len)
	out := int64(x.Typ.Len)
	mask := make([]int64, out)
	switch m := x.Mask.(type) {
	case *constant.Vector:
		for i, e := range m.Elems {
			if c, ok := e.(*constant.Int); ok {
				mask[i] = c.X.Int64()
			} else {
				mask[i] = -1
			}
		}
	case *constant.ZeroInitializer:
	case *constant.Undef, *constant.Poison:
		return nil
	default:
		return errorAt(r.f, x, "shufflevector with a non-constant mask")
	}
	for _, src := range []struct {
		v      value.Value
		offset int64
	}{{x.X, 0}, {x.Y, n}} {
		if !r.act.Active(src.v) {
			continue
		}
		var delta value.Value = rules.AdjZero(src.v.Type())
		for i, m := range mask {
			if m < src.offset || m >= src.offset+n {
				continue
			}
			lane := constant.NewInt(types.I32, m-src.offset)
			cur := blk.NewExtractElement(delta, lane)
			add := blk.NewFAdd(cur, blk.NewExtractElement(d, constant.NewInt(types.I32, int64(i))))
			delta = blk.NewInsertElement(delta, add, lane)
		}
		r.accumulate(blk, src.v, delta)
	}
	return nil
}

// reverseFDiv accumulates the partials of q = x/y: d/y into x and
// -(d/y)·q into y, dividing once. Where the plan recomputes q in the
// reverse sweep (itself a division) and y is active, r = 1/y is computed instead and both
// partials and q = x·r come from it: d·r and x·r are within an ulp of d/y
// and x/y (exact for x = ±1, the sigmoid's 1/(1+e), where q = r and the
// optimizer merges r with any other recomputation of q). Elsewhere q is
// the forward quotient, read (cached or at hand) as the sweep reads any
// value, and the partials are those of dividing twice, bit for bit.
func (r *reverseGen) reverseFDiv(b *rules.Builder, x *ir.InstFDiv, d value.Value, look func(value.Value) value.Value, acc func(x, delta value.Value)) {
	if _, recompute := r.planned(r.mapValue(x)); recompute && r.act.Active(x.Y) {
		inv := b.FDiv(b.Konst(d, 1), look(x.Y))
		dx := b.FMul(d, inv)
		acc(x.X, dx)
		acc(x.Y, b.FNeg(b.FMul(dx, b.FMul(look(x.X), inv))))
		return
	}
	dx := b.FDiv(d, look(x.Y))
	acc(x.X, dx)
	if r.act.Active(x.Y) {
		acc(x.Y, b.FNeg(b.FMul(dx, look(x))))
	}
}
