package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// builder emits derivative code (package rules).
type builder = rules.Builder

// Package rules's helpers under package ad's names.

func adjZero(t types.Type) constant.Constant               { return rules.AdjZero(t) }
func zeroOf(t types.Type) constant.Constant                { return rules.ZeroOf(t) }
func floatConst(t types.Type, v float64) constant.Constant { return rules.FloatConst(t, v) }
func scalarOf(t types.Type) types.Type                     { return rules.ScalarOf(t) }
func typeSuffix(t types.Type) string                       { return rules.TypeSuffix(t) }
func isGPUModule(m *ir.Module) bool                        { return rules.IsGPUModule(m) }
func deviceMathName(name string, t types.Type) string      { return rules.DeviceMathName(name, t) }
func constIntLike(x value.Value, v int64) value.Value      { return rules.ConstIntLike(x, v) }
func splatLike(b *builder, s, like value.Value) value.Value {
	return rules.SplatLike(b, s, like)
}
func declare(m *ir.Module, name string, ret types.Type, params ...types.Type) *ir.Func {
	return rules.Declare(m, name, ret, params...)
}
