package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Undefined lanes before differentiation.
//
// Vectorizers leave lanes nobody reads undefined: a scalar put into lane 0
// of a poison vector, a shuffle whose mask says undef for a lane, a
// constant vector with undef elements. The primal never reads them, but a
// reverse rule runs over whole vectors: the adjoint of fmul %a, %b is
// d·%b in every lane, and in a dead lane that is 0·undef, which LLVM may
// fold to NaN; a shuffle's adjoint then sums that lane into a live one
// (the adjoint of a splat adds all lanes). Forward mode multiplies tangent
// lanes by the same undefined values.
//
// refineUndef removes the undefined values that such rules can meet, so
// that every lane of every floating-point computation is defined:
//   - an undef or poison operand of floating-point or vector type becomes
//     zero (constant vectors: each undef or poison element);
//   - a shuffle-mask element undef selects a zero lane instead.
//
// Replacing undef or poison by a chosen value is a refinement LLVM itself
// makes freely: the function's defined behaviour is unchanged, and the
// optimizer after differentiation may reintroduce undefined lanes where no
// computation, the derivative's included, reads them. Zero, not any
// defined value, because a dead lane's adjoint (zero) multiplies it: 0·0
// is 0 where 0·∞ would be NaN.
func refineUndef(f *ir.Func) error {
	inserted := false
	for _, b := range f.Blocks {
		insts := make([]ir.Instruction, 0, len(b.Insts))
		for _, inst := range b.Insts {
			refineOperands(inst)
			if sv, ok := inst.(*ir.InstShuffleVector); ok {
				if inner := refineShuffleMask(sv); inner != nil {
					insts = append(insts, inner)
					inserted = true
				}
			}
			insts = append(insts, inst)
		}
		b.Insts = insts
		refineOperands(b.Term)
	}
	if inserted {
		return irutil.Renumber(f)
	}
	return nil
}

// refineOperands replaces the undefined operands of an instruction or
// terminator (not a shuffle's mask, not metadata) by zeros.
func refineOperands(x interface{}) {
	u, ok := x.(interface{ Operands() []*value.Value })
	if !ok {
		return
	}
	var mask *value.Value
	if sv, ok := x.(*ir.InstShuffleVector); ok {
		mask = &sv.Mask
	}
	for _, op := range u.Operands() {
		if op == mask {
			continue
		}
		if a, ok := (*op).(*ir.Arg); ok {
			if c, ok := a.Value.(constant.Constant); ok {
				if r := refinedConst(c); r != nil {
					a.Value = r
				}
			}
			continue
		}
		if c, ok := (*op).(constant.Constant); ok {
			if r := refinedConst(c); r != nil {
				*op = r
			}
		}
	}
}

// refinedConst returns c with its undefined parts made zero, or nil when
// c has none (or is of a type no derivative passes through).
func refinedConst(c constant.Constant) constant.Constant {
	switch t := c.Type().(type) {
	case *types.FloatType:
		if isUndefConst(c) {
			return constant.NewFloat(t, 0)
		}
	case *types.VectorType:
		if isUndefConst(c) {
			return constant.NewZeroInitializer(t)
		}
		v, ok := c.(*constant.Vector)
		if !ok {
			return nil
		}
		var elems []constant.Constant
		for i, e := range v.Elems {
			if !isUndefConst(e) {
				continue
			}
			if elems == nil {
				elems = append([]constant.Constant(nil), v.Elems...)
			}
			elems[i] = zeroElem(t.ElemType)
		}
		if elems != nil {
			return constant.NewVector(t, elems...)
		}
	}
	return nil
}

func isUndefConst(c value.Value) bool {
	switch c.(type) {
	case *constant.Undef, *constant.Poison:
		return true
	}
	return false
}

// zeroElem is the zero of a vector element type.
func zeroElem(t types.Type) constant.Constant {
	switch t := t.(type) {
	case *types.FloatType:
		return constant.NewFloat(t, 0)
	case *types.IntType:
		return constant.NewInt(t, 0)
	case *types.PointerType:
		return constant.NewNull(t)
	}
	return constant.NewZeroInitializer(t)
}

// refineShuffleMask makes each undef element of sv's mask select a zero
// lane: one of an operand that is a constant with a zero element, else of
// a zero vector shuffled in by a second step. In that case sv becomes the
// second step and the shuffle it reads (returned, to be inserted before
// sv) is sv's own with the undef elements selecting lane 0.
func refineShuffleMask(sv *ir.InstShuffleVector) *ir.InstShuffleVector {
	n := int64(sv.X.Type().(*types.VectorType).Len)
	out := sv.Typ.Len
	mask, ok := irutil.ShuffleMask(sv)
	if !ok {
		return nil
	}
	undef := false
	for _, m := range mask {
		undef = undef || m < 0
	}
	if !undef {
		return nil
	}
	zero, ok := zeroLane(sv.X, 0)
	if !ok {
		zero, ok = zeroLane(sv.Y, n)
	}
	if ok {
		sv.Mask = shuffleMask(mask, zero)
		return nil
	}
	inner := ir.NewShuffleVector(sv.X, sv.Y, shuffleMask(mask, 0))
	sv.X, sv.Y = inner, constant.NewZeroInitializer(inner.Typ)
	for i := range mask {
		if mask[i] >= 0 {
			mask[i] = int64(i)
		}
	}
	sv.Mask = shuffleMask(mask, int64(out))
	return inner
}

// zeroLane returns the mask index (offset + lane) of a zero lane of
// vector constant v.
func zeroLane(v value.Value, offset int64) (int64, bool) {
	switch c := v.(type) {
	case *constant.ZeroInitializer:
		return offset, true
	case *constant.Vector:
		for i, e := range c.Elems {
			if isZeroConst(e) {
				return offset + int64(i), true
			}
		}
	}
	return 0, false
}

// isZeroConst reports a zero scalar: +0.0, integer 0 or null.
func isZeroConst(c constant.Constant) bool {
	switch c := c.(type) {
	case *constant.Float:
		return !c.NaN && c.X != nil && c.X.Sign() == 0 && !c.X.Signbit()
	case *constant.Int:
		return c.X.Sign() == 0
	case *constant.Null, *constant.ZeroInitializer:
		return true
	}
	return false
}

// shuffleMask is the i32 mask vector of mask, with -1 (undef) as fill.
func shuffleMask(mask []int64, fill int64) constant.Constant {
	elems := make([]constant.Constant, len(mask))
	for i, m := range mask {
		if m < 0 {
			m = fill
		}
		elems[i] = constant.NewInt(types.I32, m)
	}
	return constant.NewVector(types.NewVector(uint64(len(mask)), types.I32), elems...)
}
