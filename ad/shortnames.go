package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The last short names for the leaf packages' functions, kept only for
// files changed in parallel with their removal (calls.go, blas*.go,
// lapackrules.go, calleetable.go and the tests of loop hints, records and
// frame tapes). The rest of package ad names the leaf packages; these go
// when those files do too.

type Activity = activity.Activity

const (
	Const = activity.Const
	Out   = activity.Out
	Dup   = activity.Dup
)

func isNullConstant(v value.Value) bool                    { return activity.IsNullConstant(v) }
func unwrapArg(v value.Value) value.Value                  { return irfacts.Unwrap(v) }
func carriesFloat(t types.Type) bool                       { return irfacts.CarriesFloat(t) }
func hasPointerField(t types.Type) bool                    { return irfacts.HasPointerField(t) }
func interposable(l enum.Linkage) bool                     { return irfacts.Interposable(l) }
func isFunctionLike(f *ir.Func) bool                       { return irfacts.IsFunctionLike(f) }
func calleeName(c *ir.InstCall) string                     { return irfacts.CalleeName(c) }
func isAllocation(c *ir.InstCall) bool                     { return irfacts.IsAllocation(c) }
func isMemTransfer(c *ir.InstCall) bool                    { return irfacts.IsMemTransfer(c) }
func isMemSet(c *ir.InstCall) bool                         { return irfacts.IsMemSet(c) }
func zeroOf(t types.Type) constant.Constant                { return rules.ZeroOf(t) }
func floatConst(t types.Type, v float64) constant.Constant { return rules.FloatConst(t, v) }
func declare(m *ir.Module, name string, ret types.Type, params ...types.Type) *ir.Func {
	return rules.Declare(m, name, ret, params...)
}
