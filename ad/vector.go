package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Vector intrinsics of vectorized (-O3) code: horizontal reductions and
// masked memory operations.

// reverseReduction emits the adjoint of a vector reduction and reports
// whether call was one.
func (r *reverseGen) reverseReduction(blk *ir.Block, at *ir.Block, call *ir.InstCall, d value.Value) bool {
	name := irfacts.CalleeName(call)
	if !strings.HasPrefix(name, "llvm.vector.reduce.") {
		return false
	}
	op := strings.TrimPrefix(name, "llvm.vector.reduce.")
	op = op[:strings.IndexByte(op, '.')]
	args := make([]value.Value, len(call.Args))
	for i, a := range call.Args {
		args[i] = irfacts.Unwrap(a)
	}
	switch op {
	case "fadd": // start + Σ v
		r.accumulate(blk, args[0], d)
		r.accumulate(blk, args[1], splat(blk, d, args[1].Type()))
	case "fmul": // start · Π v
		start, vec := r.lookup(blk, at, args[0]), r.lookup(blk, at, args[1])
		n := vec.Type().(*types.VectorType).Len
		lanes := make([]value.Value, n)
		for i := range lanes {
			lanes[i] = blk.NewExtractElement(vec, constant.NewInt(types.I32, int64(i)))
		}
		// ∂/∂start = Π v; ∂/∂v_i = start · Π_{j≠i} v_j.
		var all value.Value = rules.FloatConst(start.Type(), 1)
		for _, l := range lanes {
			all = blk.NewFMul(all, l)
		}
		r.accumulate(blk, args[0], blk.NewFMul(d, all))
		var dv value.Value = rules.AdjZero(vec.Type())
		for i := range lanes {
			p := start
			for j, l := range lanes {
				if j != i {
					p = blk.NewFMul(p, l)
				}
			}
			dv = blk.NewInsertElement(dv, blk.NewFMul(d, p), constant.NewInt(types.I32, int64(i)))
		}
		r.accumulate(blk, args[1], dv)
	case "fmax", "fmin", "fmaximum", "fminimum":
		// The derivative goes to the first lane holding the result.
		vec, res := r.lookup(blk, at, args[0]), r.lookup(blk, at, call)
		var dv value.Value = rules.AdjZero(vec.Type())
		for i, hit := range resultLane(blk, vec, res) {
			dv = blk.NewInsertElement(dv, blk.NewSelect(hit, d, rules.AdjZero(d.Type())), constant.NewInt(types.I32, int64(i)))
		}
		r.accumulate(blk, args[0], dv)
	default:
		return false
	}
	return true
}

// resultLane returns, per lane of vec, whether it is the first lane equal
// to res (the lane a max or min reduction returned).
func resultLane(blk *ir.Block, vec, res value.Value) []value.Value {
	n := vec.Type().(*types.VectorType).Len
	hits := make([]value.Value, n)
	var found value.Value = constant.False
	for i := range hits {
		idx := constant.NewInt(types.I32, int64(i))
		hits[i] = blk.NewAnd(blk.NewFCmp(enum.FPredOEQ, blk.NewExtractElement(vec, idx), res), blk.NewXor(found, constant.True))
		found = blk.NewOr(found, hits[i])
	}
	return hits
}

// tangentVectorOp emits the tangent of a vector reduction or the shadow
// effect of a masked load or store in forward mode, reporting whether call
// was one. mv maps primal operands to the forward function, tg gives
// tangents.
func tangentVectorOp(blk *ir.Block, call *ir.InstCall, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, bool, error) {
	name := irfacts.CalleeName(call)
	args := make([]value.Value, len(call.Args))
	for i, a := range call.Args {
		args[i] = irfacts.Unwrap(a)
	}
	switch {
	case irfacts.IsMaskedLoad(call): // (ptr, align, mask, passthru): masked lanes keep the passthru's tangent
		t, err := tangents(tg, args[0], args[3])
		if err != nil {
			return nil, true, err
		}
		return blk.NewCall(call.Callee, t[0], args[1], mv(args[2]), t[1]), true, nil
	case irfacts.IsMaskedStore(call): // (value, ptr, align, mask)
		if !irfacts.CarriesFloat(args[0].Type()) {
			return nil, true, nil
		}
		t, err := tangents(tg, args[0], args[1])
		if err != nil {
			return nil, true, err
		}
		blk.NewCall(call.Callee, t[0], t[1], args[2], mv(args[3]))
		return nil, true, nil
	case !strings.HasPrefix(name, "llvm.vector.reduce."):
		return nil, false, nil
	}
	op := strings.TrimPrefix(name, "llvm.vector.reduce.")
	op = op[:strings.IndexByte(op, '.')]
	switch op {
	case "fadd": // dstart + Σ dv
		t, err := tangents(tg, args[0], args[1])
		if err != nil {
			return nil, true, err
		}
		return blk.NewCall(call.Callee, t[0], t[1]), true, nil
	case "fmul": // dstart·Πv + start·Σ_i dv_i·Π_{j≠i} v_j
		t, err := tangents(tg, args[0], args[1])
		if err != nil {
			return nil, true, err
		}
		ds, dv := t[0], t[1]
		start, vec := mv(args[0]), mv(args[1])
		n := vec.Type().(*types.VectorType).Len
		lane := func(v value.Value, i uint64) value.Value {
			return blk.NewExtractElement(v, constant.NewInt(types.I32, int64(i)))
		}
		var all value.Value = rules.FloatConst(start.Type(), 1)
		for i := uint64(0); i < n; i++ {
			all = blk.NewFMul(all, lane(vec, i))
		}
		var sum value.Value = blk.NewFMul(ds, all)
		for i := uint64(0); i < n; i++ {
			p := blk.NewFMul(start, lane(dv, i))
			for j := uint64(0); j < n; j++ {
				if j != i {
					p = blk.NewFMul(p, lane(vec, j))
				}
			}
			sum = blk.NewFAdd(sum, p)
		}
		return sum, true, nil
	case "fmax", "fmin", "fmaximum", "fminimum": // the tangent of the lane returned
		dv, err := tg(args[0])
		if err != nil {
			return nil, true, err
		}
		var t value.Value = rules.ZeroOf(call.Typ)
		for i, hit := range resultLane(blk, mv(args[0]), mv(call)) {
			t = blk.NewSelect(hit, blk.NewExtractElement(dv, constant.NewInt(types.I32, int64(i))), t)
		}
		return t, true, nil
	}
	return nil, false, nil
}

// tangents returns the tangents of vs, in order.
func tangents(tg func(value.Value) (value.Value, error), vs ...value.Value) ([]value.Value, error) {
	out := make([]value.Value, len(vs))
	for i, v := range vs {
		t, err := tg(v)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// splat broadcasts scalar s to vector type t.
func splat(blk *ir.Block, s value.Value, t types.Type) value.Value {
	vt := t.(*types.VectorType)
	var v value.Value = constant.NewUndef(vt)
	for i := uint64(0); i < vt.Len; i++ {
		v = blk.NewInsertElement(v, s, constant.NewInt(types.I32, int64(i)))
	}
	return v
}

// reverseMasked emits the reverse of masked loads and stores (the lanes
// the mask leaves out neither read nor write the shadow).
func (r *reverseGen) reverseMasked(blk *ir.Block, at *ir.Block, call *ir.InstCall) (bool, error) {
	switch {
	case irfacts.IsMaskedLoad(call): // (ptr, align, mask, passthru)
		if !r.act.Active(call) {
			return true, nil
		}
		d := r.takeAdjoint(blk, call, call.Typ)
		mask := r.lookup(blk, at, call.Args[2])
		if r.act.HasShadow(call.Args[0]) {
			if err := r.sharedAccumulation(call, call.Args[0]); err != nil {
				return true, err
			}
			sp, err := r.lookupShadow(blk, at, call, call.Args[0])
			if err != nil {
				return true, err
			}
			align := irfacts.Unwrap(call.Args[1])
			old := maskedLoad(r.m, blk, sp, align, mask, call.Typ)
			maskedStore(r.m, blk, blk.NewFAdd(old, d), sp, align, mask)
		}
		r.accumulate(blk, call.Args[3], blk.NewSelect(mask, rules.AdjZero(call.Typ), d))
		return true, nil
	case irfacts.IsMaskedStore(call): // (value, ptr, align, mask)
		if !r.act.HasShadow(call.Args[1]) {
			return true, nil
		}
		t := call.Args[0].Type()
		if !irfacts.CarriesFloat(t) {
			return true, nil
		}
		sp, err := r.lookupShadow(blk, at, call, call.Args[1])
		if err != nil {
			return true, err
		}
		mask := r.lookup(blk, at, call.Args[3])
		align := irfacts.Unwrap(call.Args[2])
		ds := maskedLoad(r.m, blk, sp, align, mask, t)
		maskedStore(r.m, blk, rules.ZeroOf(t), sp, align, mask)
		r.accumulate(blk, call.Args[0], ds)
		return true, nil
	}
	return false, nil
}

func maskedLoad(m *ir.Module, blk *ir.Block, p, align, mask value.Value, t types.Type) value.Value {
	name := "llvm.masked.load." + rules.TypeSuffix(t) + ".p0" + rules.TypeSuffix(t)
	f := rules.Declare(m, name, t, p.Type(), types.I32, mask.Type(), t)
	return blk.NewCall(f, p, align, mask, rules.ZeroOf(t))
}

func maskedStore(m *ir.Module, blk *ir.Block, v, p, align, mask value.Value) {
	t := v.Type()
	name := "llvm.masked.store." + rules.TypeSuffix(t) + ".p0" + rules.TypeSuffix(t)
	f := rules.Declare(m, name, types.Void, t, p.Type(), types.I32, mask.Type())
	blk.NewCall(f, v, p, align, mask)
}
