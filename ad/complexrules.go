package ad

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

// complexJacobian returns, for a complex runtime call's name, the builder
// of its Jacobian from the operands and the result's parts; nil for other
// names.
func complexJacobian(name string) func(b *builder, a operands, q0, q1 value.Value) [2][4]value.Value {
	if !strings.HasPrefix(name, "__") || !strings.HasSuffix(name, "c3") || len(name) != len("__muldc3") {
		return nil
	}
	switch name[2:5] {
	case "mul":
		// q = (ac - bd) + (ad + bc)i
		return func(b *builder, a operands, q0, q1 value.Value) [2][4]value.Value {
			return [2][4]value.Value{
				{a(2), b.fneg(a(3)), a(0), b.fneg(a(1))},
				{a(3), a(2), a(1), a(0)},
			}
		}
	case "div":
		// dq = (dz - q dw) / w, with 1/w = (c - di)/n, n = c² + d².
		return func(b *builder, a operands, q0, q1 value.Value) [2][4]value.Value {
			c, d := a(2), a(3)
			n := sumOfSquares(b, c, d)
			re := b.fdiv(b.fadd(b.fmul(q0, c), b.fmul(q1, d)), n) // re(q/w)
			im := b.fdiv(b.fsub(b.fmul(q1, c), b.fmul(q0, d)), n) // im(q/w)
			return [2][4]value.Value{
				{b.fdiv(c, n), b.fdiv(d, n), b.fneg(re), im},
				{b.fneg(b.fdiv(d, n)), b.fdiv(c, n), b.fneg(im), b.fneg(re)},
			}
		}
	}
	return nil
}

// complexPart extracts part k (0: re, 1: im) of a complex result value.
func complexPart(blk *ir.Block, v value.Value, k int) value.Value {
	if _, ok := v.Type().(*types.VectorType); ok {
		return blk.NewExtractElement(v, constant.NewInt(types.I32, int64(k)))
	}
	return blk.NewExtractValue(v, uint64(k))
}

// complexValue builds a complex value of type t from its parts.
func complexValue(blk *ir.Block, t types.Type, re, im value.Value) value.Value {
	var v value.Value = constant.NewUndef(t)
	if _, ok := t.(*types.VectorType); ok {
		v = blk.NewInsertElement(v, re, constant.NewInt(types.I32, 0))
		return blk.NewInsertElement(v, im, constant.NewInt(types.I32, 1))
	}
	v = blk.NewInsertValue(v, re, 0)
	return blk.NewInsertValue(v, im, 1)
}

// reverseComplex accumulates the adjoint d of complex call x into its
// active arguments; it reports false when x is no such call.
func (r *reverseGen) reverseComplex(b *builder, at *ir.Block, x *ir.InstCall, d value.Value) bool {
	jac := complexJacobian(calleeName(x))
	if jac == nil || len(x.Args) != 4 {
		return false
	}
	blk := b.b
	operand := func(i int) value.Value { return r.lookup(blk, at, x.Args[i]) }
	res := r.lookup(blk, at, x)
	j := jac(b, operand, complexPart(blk, res, 0), complexPart(blk, res, 1))
	d0, d1 := complexPart(blk, d, 0), complexPart(blk, d, 1)
	for i, a := range x.Args {
		if r.act.Active(a) {
			r.accumulate(blk, a, b.fadd(b.fmul(d0, j[0][i]), b.fmul(d1, j[1][i])))
		}
	}
	return true
}

// complexTangent is the tangent of complex call x (nil, nil when x is no
// such call).
func (fg *forwardGen) complexTangent(b *builder, x *ir.InstCall, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, error) {
	jac := complexJacobian(calleeName(x))
	if jac == nil || len(x.Args) != 4 {
		return nil, nil
	}
	blk := b.b
	res := mv(x)
	j := jac(b, func(i int) value.Value { return mv(x.Args[i]) }, complexPart(blk, res, 0), complexPart(blk, res, 1))
	var t [2]value.Value
	for i, a := range x.Args {
		a = unwrapArg(a)
		if !fg.act.Varied[a] {
			continue
		}
		ta, err := tg(a)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 2; k++ {
			term := b.fmul(j[k][i], ta)
			if t[k] == nil {
				t[k] = term
			} else {
				t[k] = b.fadd(t[k], term)
			}
		}
	}
	if t[0] == nil {
		return zeroOf(x.Typ), nil
	}
	return complexValue(blk, x.Typ, t[0], t[1]), nil
}
