package ad

import (
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Vector intrinsics of vectorized (-O3) code: horizontal reductions and
// masked memory operations.

func isMaskedLoad(c *ir.InstCall) bool { return strings.HasPrefix(calleeName(c), "llvm.masked.load.") }
func isMaskedStore(c *ir.InstCall) bool {
	return strings.HasPrefix(calleeName(c), "llvm.masked.store.")
}

// reverseReduction emits the adjoint of a vector reduction and reports
// whether call was one.
func (r *reverseGen) reverseReduction(blk *ir.Block, at *ir.Block, call *ir.InstCall, d value.Value) bool {
	name := calleeName(call)
	if !strings.HasPrefix(name, "llvm.vector.reduce.") {
		return false
	}
	op := strings.TrimPrefix(name, "llvm.vector.reduce.")
	op = op[:strings.IndexByte(op, '.')]
	args := make([]value.Value, len(call.Args))
	for i, a := range call.Args {
		args[i] = unwrapArg(a)
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
		var all value.Value = floatConst(start.Type(), 1)
		for _, l := range lanes {
			all = blk.NewFMul(all, l)
		}
		r.accumulate(blk, args[0], blk.NewFMul(d, all))
		var dv value.Value = zeroOf(vec.Type())
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
		n := vec.Type().(*types.VectorType).Len
		var dv value.Value = zeroOf(vec.Type())
		var found value.Value = constant.False
		for i := uint64(0); i < n; i++ {
			idx := constant.NewInt(types.I32, int64(i))
			hit := blk.NewAnd(blk.NewFCmp(enum.FPredOEQ, blk.NewExtractElement(vec, idx), res), blk.NewXor(found, constant.True))
			dv = blk.NewInsertElement(dv, blk.NewSelect(hit, d, zeroOf(d.Type())), idx)
			found = blk.NewOr(found, hit)
		}
		r.accumulate(blk, args[0], dv)
	default:
		return false
	}
	return true
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
	case isMaskedLoad(call): // (ptr, align, mask, passthru)
		if !r.act.active(call) {
			return true, nil
		}
		s := r.adjSlot(call)
		d := blk.NewLoad(call.Typ, s)
		blk.NewStore(zeroOf(call.Typ), s)
		mask := r.lookup(blk, at, call.Args[2])
		if r.act.hasShadow(call.Args[0]) {
			sp, err := r.lookupShadow(blk, at, call, call.Args[0])
			if err != nil {
				return true, err
			}
			align := unwrapArg(call.Args[1])
			old := r.maskedLoad(blk, sp, align, mask, call.Typ)
			r.maskedStore(blk, blk.NewFAdd(old, d), sp, align, mask)
		}
		r.accumulate(blk, call.Args[3], blk.NewSelect(mask, zeroOf(call.Typ), d))
		return true, nil
	case isMaskedStore(call): // (value, ptr, align, mask)
		if !r.act.hasShadow(call.Args[1]) {
			return true, nil
		}
		t := call.Args[0].Type()
		if !carriesFloat(t) {
			return true, nil
		}
		sp, err := r.lookupShadow(blk, at, call, call.Args[1])
		if err != nil {
			return true, err
		}
		mask := r.lookup(blk, at, call.Args[3])
		align := unwrapArg(call.Args[2])
		ds := r.maskedLoad(blk, sp, align, mask, t)
		r.maskedStore(blk, zeroOf(t), sp, align, mask)
		r.accumulate(blk, call.Args[0], ds)
		return true, nil
	}
	return false, nil
}

func (r *reverseGen) maskedLoad(blk *ir.Block, p, align, mask value.Value, t types.Type) value.Value {
	name := "llvm.masked.load." + typeSuffix(t) + ".p0" + typeSuffix(t)
	f := declare(r.m, name, t, p.Type(), types.I32, mask.Type(), t)
	return blk.NewCall(f, p, align, mask, zeroOf(t))
}

func (r *reverseGen) maskedStore(blk *ir.Block, v, p, align, mask value.Value) {
	t := v.Type()
	name := "llvm.masked.store." + typeSuffix(t) + ".p0" + typeSuffix(t)
	f := declare(r.m, name, types.Void, t, p.Type(), types.I32, mask.Type())
	blk.NewCall(f, v, p, align, mask)
}
