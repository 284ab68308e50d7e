package rules

import (
	"math"
	"strconv"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// AdjZero is the zero an adjoint starts from and is reset to in the reverse
// sweep: -0.0 for floats and float vectors, the additive identity (x + -0.0
// is x for every x, +0.0 included), so the optimizer folds the first
// accumulation into a cleared adjoint (x + +0.0 is not x for x = -0.0 and
// stays an fadd). ZeroOf for other types.
func AdjZero(t types.Type) constant.Constant {
	switch t := t.(type) {
	case *types.FloatType:
		return constant.NewFloat(t, math.Copysign(0, -1))
	case *types.VectorType:
		if _, ok := t.ElemType.(*types.FloatType); ok {
			return FloatConst(t, math.Copysign(0, -1))
		}
	}
	return ZeroOf(t)
}

// ZeroOf returns the zero constant of a derivative type.
func ZeroOf(t types.Type) constant.Constant {
	if ft, ok := t.(*types.FloatType); ok {
		return constant.NewFloat(ft, 0)
	}
	return constant.NewZeroInitializer(t)
}

// FloatConst returns the constant v of float type t, splatted for vectors.
func FloatConst(t types.Type, v float64) constant.Constant {
	switch t := t.(type) {
	case *types.FloatType:
		return constant.NewFloat(t, v)
	case *types.VectorType:
		elems := make([]constant.Constant, t.Len)
		for i := range elems {
			elems[i] = constant.NewFloat(t.ElemType.(*types.FloatType), v)
		}
		return constant.NewVector(t, elems...)
	}
	panic("FloatConst of non-float type " + t.String())
}

// ScalarOf returns the element type of a vector type, or t itself.
func ScalarOf(t types.Type) types.Type {
	if v, ok := t.(*types.VectorType); ok {
		return v.ElemType
	}
	return t
}

// TypeSuffix is the overload suffix LLVM intrinsics use for t: f64, v4f32, ...
func TypeSuffix(t types.Type) string {
	switch t := t.(type) {
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return "f16"
		case types.FloatKindFloat:
			return "f32"
		case types.FloatKindDouble:
			return "f64"
		case types.FloatKindX86_FP80:
			return "f80"
		case types.FloatKindFP128:
			return "f128"
		}
	case *types.VectorType:
		return "v" + strconv.FormatUint(t.Len, 10) + TypeSuffix(t.ElemType)
	case *types.IntType:
		return "i" + strconv.FormatUint(t.BitSize, 10)
	}
	return t.String()
}
