package rules

import (
	"reflect"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// InstRule is the derivative of one instruction opcode: which operands a
// derivative flows through into the result (the activity analysis reads
// them), the tangent, and the adjoint. A nil Tangent or Adjoint is built by
// package ad, which needs its own state there (the cache plan for fdiv,
// adjoint slots of aggregates, partials of frem).
type InstRule struct {
	Operands func(inst ir.Instruction) []value.Value
	// Tangent builds the tangent of inst from ts, the tangents of
	// Operands(inst) in order; mv maps a primal value to the forward one.
	Tangent func(b *Builder, inst ir.Instruction, ts []value.Value, mv func(value.Value) value.Value) value.Value
	// Adjoint hands d, the adjoint of inst's result, to its operands.
	Adjoint func(b *Builder, inst ir.Instruction, d value.Value, e AdjointEnv)
}

// AdjointEnv is what an adjoint rule asks of the reverse sweep.
type AdjointEnv struct {
	Look   func(v value.Value) value.Value // primal v as the reverse sweep sees it
	Acc    func(x, delta value.Value)      // adds delta to the adjoint of x
	Active func(v value.Value) bool        // v carries a derivative
}

// InstRuleOf is the rule of inst's opcode, or nil.
func InstRuleOf(inst ir.Instruction) *InstRule { return instRules[reflect.TypeOf(inst)] }

func opcode(inst ir.Instruction) reflect.Type { return reflect.TypeOf(inst) }

func operands2(x, y value.Value) []value.Value { return []value.Value{x, y} }

var instRules = map[reflect.Type]*InstRule{
	opcode(&ir.InstFAdd{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstFAdd); return operands2(x.X, x.Y) },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewFAdd(t[0], t[1])
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x := i.(*ir.InstFAdd)
			e.Acc(x.X, d)
			e.Acc(x.Y, d)
		},
	},
	opcode(&ir.InstFSub{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstFSub); return operands2(x.X, x.Y) },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewFSub(t[0], t[1])
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x := i.(*ir.InstFSub)
			e.Acc(x.X, d)
			if e.Active(x.Y) {
				e.Acc(x.Y, b.FNeg(d))
			}
		},
	},
	opcode(&ir.InstFMul{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstFMul); return operands2(x.X, x.Y) },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			x, blk := i.(*ir.InstFMul), b.B
			switch {
			case ZeroTangent(t[1]):
				return blk.NewFMul(t[0], mv(x.Y))
			case ZeroTangent(t[0]):
				return blk.NewFMul(mv(x.X), t[1])
			}
			return blk.NewFAdd(blk.NewFMul(t[0], mv(x.Y)), blk.NewFMul(mv(x.X), t[1]))
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x := i.(*ir.InstFMul)
			if e.Active(x.X) {
				e.Acc(x.X, b.FMul(d, e.Look(x.Y)))
			}
			if e.Active(x.Y) {
				e.Acc(x.Y, b.FMul(d, e.Look(x.X)))
			}
		},
	},
	opcode(&ir.InstFDiv{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstFDiv); return operands2(x.X, x.Y) },
		// (dx - (x/y)·dy) / y
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			x, blk := i.(*ir.InstFDiv), b.B
			if ZeroTangent(t[1]) {
				return blk.NewFDiv(t[0], mv(x.Y))
			}
			return blk.NewFDiv(blk.NewFSub(t[0], blk.NewFMul(mv(x), t[1])), mv(x.Y))
		},
	},
	opcode(&ir.InstFRem{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstFRem); return operands2(x.X, x.Y) },
	},
	opcode(&ir.InstFNeg{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstFNeg).X} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewFNeg(t[0])
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			e.Acc(i.(*ir.InstFNeg).X, b.FNeg(d))
		},
	},
	opcode(&ir.InstFPExt{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstFPExt).From} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewFPExt(t[0], i.(*ir.InstFPExt).To)
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x := i.(*ir.InstFPExt)
			e.Acc(x.From, b.B.NewFPTrunc(d, x.From.Type()))
		},
	},
	opcode(&ir.InstFPTrunc{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstFPTrunc).From} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewFPTrunc(t[0], i.(*ir.InstFPTrunc).To)
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x := i.(*ir.InstFPTrunc)
			e.Acc(x.From, b.B.NewFPExt(d, x.From.Type()))
		},
	},
	opcode(&ir.InstFreeze{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstFreeze).X} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return t[0]
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			e.Acc(i.(*ir.InstFreeze).X, d)
		},
	},
	opcode(&ir.InstSelect{}): {
		Operands: func(i ir.Instruction) []value.Value {
			x := i.(*ir.InstSelect)
			return operands2(x.ValueTrue, x.ValueFalse)
		},
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewSelect(mv(i.(*ir.InstSelect).Cond), t[0], t[1])
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x, blk := i.(*ir.InstSelect), b.B
			c := e.Look(x.Cond)
			z := AdjZero(x.Type())
			if e.Active(x.ValueTrue) {
				e.Acc(x.ValueTrue, blk.NewSelect(c, d, z))
			}
			if e.Active(x.ValueFalse) {
				e.Acc(x.ValueFalse, blk.NewSelect(c, z, d))
			}
		},
	},
	opcode(&ir.InstPhi{}): {
		Operands: func(i ir.Instruction) []value.Value { return irfacts.IncomingValues(i.(*ir.InstPhi)) },
	},
	opcode(&ir.InstExtractValue{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstExtractValue).X} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewExtractValue(t[0], i.(*ir.InstExtractValue).Indices...)
		},
	},
	opcode(&ir.InstInsertValue{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstInsertValue); return operands2(x.X, x.Elem) },
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x, blk := i.(*ir.InstInsertValue), b.B
			if e.Active(x.Elem) {
				e.Acc(x.Elem, blk.NewExtractValue(d, x.Indices...))
			}
			if e.Active(x.X) {
				e.Acc(x.X, blk.NewInsertValue(d, AdjZero(x.Elem.Type()), x.Indices...))
			}
		},
	},
	opcode(&ir.InstExtractElement{}): {
		Operands: func(i ir.Instruction) []value.Value { return []value.Value{i.(*ir.InstExtractElement).X} },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewExtractElement(t[0], mv(i.(*ir.InstExtractElement).Index))
		},
	},
	opcode(&ir.InstInsertElement{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstInsertElement); return operands2(x.X, x.Elem) },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewInsertElement(t[0], t[1], mv(i.(*ir.InstInsertElement).Index))
		},
		Adjoint: func(b *Builder, i ir.Instruction, d value.Value, e AdjointEnv) {
			x, blk := i.(*ir.InstInsertElement), b.B
			idx := e.Look(x.Index)
			if e.Active(x.Elem) {
				e.Acc(x.Elem, blk.NewExtractElement(d, idx))
			}
			if e.Active(x.X) {
				e.Acc(x.X, blk.NewInsertElement(d, AdjZero(x.Elem.Type()), idx))
			}
		},
	},
	opcode(&ir.InstShuffleVector{}): {
		Operands: func(i ir.Instruction) []value.Value { x := i.(*ir.InstShuffleVector); return operands2(x.X, x.Y) },
		Tangent: func(b *Builder, i ir.Instruction, t []value.Value, mv func(value.Value) value.Value) value.Value {
			return b.B.NewShuffleVector(t[0], t[1], i.(*ir.InstShuffleVector).Mask)
		},
	},
}

// ZeroTangent reports whether tangent t is the constant zero of an operand
// that carries none: its term of a product or quotient is left out, not
// multiplied by the other operand (0·inf and 0·NaN are NaN, and the tangent
// of 3x at x = inf is 3 dx).
func ZeroTangent(t value.Value) bool {
	switch c := t.(type) {
	case *constant.Float:
		return !c.NaN && c.X != nil && c.X.Sign() == 0 && !c.X.Signbit()
	case *constant.ZeroInitializer:
		return true
	}
	return false
}
