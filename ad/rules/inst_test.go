package rules

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// TestInstRuleFMul: the product rule in both modes, and an inactive
// operand left out of the adjoint.
func TestInstRuleFMul(t *testing.T) {
	m := ir.NewModule()
	x, y := ir.NewParam("x", types.Double), ir.NewParam("y", types.Double)
	f := m.NewFunc("f", types.Double, x, y)
	blk := f.NewBlock("entry")
	mul := blk.NewFMul(x, y)
	rule := InstRuleOf(mul)
	if rule == nil || rule.Tangent == nil || rule.Adjoint == nil {
		t.Fatalf("fmul: rule %+v, want operands, tangent and adjoint", rule)
	}
	if ops := rule.Operands(mul); len(ops) != 2 || ops[0] != x || ops[1] != y {
		t.Errorf("fmul operands %v, want x, y", ops)
	}
	b := &Builder{M: m, B: blk}
	id := func(v value.Value) value.Value { return v }
	// A zero tangent of y leaves dy's term out: dx·y.
	dx := ir.NewParam("dx", types.Double)
	tan := rule.Tangent(b, mul, []value.Value{dx, constant.NewFloat(types.Double, 0)}, id)
	if got, ok := tan.(*ir.InstFMul); !ok || got.X != dx || got.Y != y {
		t.Errorf("tangent %v, want fmul dx, y", tan)
	}
	d := ir.NewParam("d", types.Double)
	acc := map[value.Value]value.Value{}
	rule.Adjoint(b, mul, d, AdjointEnv{
		Look:   id,
		Acc:    func(v, delta value.Value) { acc[v] = delta },
		Active: func(v value.Value) bool { return v == x },
	})
	if got, ok := acc[x].(*ir.InstFMul); !ok || got.X != d || got.Y != y {
		t.Errorf("adjoint of x %v, want fmul d, y", acc[x])
	}
	if _, ok := acc[y]; ok {
		t.Errorf("inactive y received an adjoint")
	}
}

// TestInstRuleOfUnknown: opcodes without a derivative have no rule.
func TestInstRuleOfUnknown(t *testing.T) {
	if r := InstRuleOf(ir.NewAdd(constant.NewInt(types.I64, 1), constant.NewInt(types.I64, 2))); r != nil {
		t.Errorf("add has rule %+v", r)
	}
}
