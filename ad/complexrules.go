package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// reverseComplex accumulates the adjoint d of complex call x into its
// active arguments; it reports false when x is no such call.
func (r *reverseGen) reverseComplex(b *rules.Builder, at *ir.Block, x *ir.InstCall, d value.Value) bool {
	jac := rules.ComplexJacobian(irfacts.CalleeName(x))
	if jac == nil || len(x.Args) != 4 {
		return false
	}
	blk := b.B
	operand := func(i int) value.Value { return r.lookup(blk, at, x.Args[i]) }
	res := r.lookup(blk, at, x)
	j := jac(b, operand, rules.ComplexPart(blk, res, 0), rules.ComplexPart(blk, res, 1))
	d0, d1 := rules.ComplexPart(blk, d, 0), rules.ComplexPart(blk, d, 1)
	for i, a := range x.Args {
		if r.act.Active(a) {
			r.accumulate(blk, a, b.FAdd(b.FMul(d0, j[0][i]), b.FMul(d1, j[1][i])))
		}
	}
	return true
}

// complexTangent is the tangent of complex call x (nil, nil when x is no
// such call).
func (fg *forwardGen) complexTangent(b *rules.Builder, x *ir.InstCall, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, error) {
	jac := rules.ComplexJacobian(irfacts.CalleeName(x))
	if jac == nil || len(x.Args) != 4 {
		return nil, nil
	}
	blk := b.B
	res := mv(x)
	j := jac(b, func(i int) value.Value { return mv(x.Args[i]) }, rules.ComplexPart(blk, res, 0), rules.ComplexPart(blk, res, 1))
	var t [2]value.Value
	for i, a := range x.Args {
		a = irfacts.Unwrap(a)
		if !fg.act.Varied[a] {
			continue
		}
		ta, err := tg(a)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 2; k++ {
			term := b.FMul(j[k][i], ta)
			if t[k] == nil {
				t[k] = term
			} else {
				t[k] = b.FAdd(t[k], term)
			}
		}
	}
	if t[0] == nil {
		return rules.ZeroOf(x.Typ), nil
	}
	return rules.ComplexValue(blk, x.Typ, t[0], t[1]), nil
}
