package rules

import (
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Complex multiplication and division that compilers leave to the runtime
// (__muldc3, __divdc3 and their float, long double and quad forms): the
// arguments are the parts a, b, c, d of z = a + bi and w = c + di, the
// result q = z·w or z/w, returned as {re, im} (a <2 x float> for float).
// Their rule is the 2x4 Jacobian of (re q, im q) by (a, b, c, d).

// ComplexJacobian returns, for a complex runtime call's name, the builder
// of its Jacobian from the operands and the result's parts; nil for other
// names.
func ComplexJacobian(name string) func(b *Builder, a Operands, q0, q1 value.Value) [2][4]value.Value {
	if !strings.HasPrefix(name, "__") || !strings.HasSuffix(name, "c3") || len(name) != len("__muldc3") {
		return nil
	}
	switch name[2:5] {
	case "mul":
		// q = (ac - bd) + (ad + bc)i
		return func(b *Builder, a Operands, q0, q1 value.Value) [2][4]value.Value {
			return [2][4]value.Value{
				{a(2), b.FNeg(a(3)), a(0), b.FNeg(a(1))},
				{a(3), a(2), a(1), a(0)},
			}
		}
	case "div":
		// dq = (dz - q dw) / w, with 1/w = (c - di)/n, n = c² + d².
		return func(b *Builder, a Operands, q0, q1 value.Value) [2][4]value.Value {
			c, d := a(2), a(3)
			n := sumOfSquares(b, c, d)
			re := b.FDiv(b.FAdd(b.FMul(q0, c), b.FMul(q1, d)), n) // re(q/w)
			im := b.FDiv(b.FSub(b.FMul(q1, c), b.FMul(q0, d)), n) // im(q/w)
			return [2][4]value.Value{
				{b.FDiv(c, n), b.FDiv(d, n), b.FNeg(re), im},
				{b.FNeg(b.FDiv(d, n)), b.FDiv(c, n), b.FNeg(im), b.FNeg(re)},
			}
		}
	}
	return nil
}

// ComplexPart extracts part k (0: re, 1: im) of a complex result value.
func ComplexPart(blk *ir.Block, v value.Value, k int) value.Value {
	if _, ok := v.Type().(*types.VectorType); ok {
		return blk.NewExtractElement(v, constant.NewInt(types.I32, int64(k)))
	}
	return blk.NewExtractValue(v, uint64(k))
}

// ComplexValue builds a complex value of type t from its parts.
func ComplexValue(blk *ir.Block, t types.Type, re, im value.Value) value.Value {
	var v value.Value = constant.NewUndef(t)
	if _, ok := t.(*types.VectorType); ok {
		v = blk.NewInsertElement(v, re, constant.NewInt(types.I32, 0))
		return blk.NewInsertElement(v, im, constant.NewInt(types.I32, 1))
	}
	v = blk.NewInsertValue(v, re, 0)
	return blk.NewInsertValue(v, im, 1)
}
