package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Package irfacts's answers under package ad's names.

func unwrapArg(v value.Value) value.Value               { return irfacts.Unwrap(v) }
func isFloat(t types.Type) bool                         { return irfacts.IsFloat(t) }
func carriesFloat(t types.Type) bool                    { return irfacts.CarriesFloat(t) }
func hasPointerField(t types.Type) bool                 { return irfacts.HasPointerField(t) }
func containsPointer(t types.Type) bool                 { return irfacts.ContainsPointer(t) }
func containsFloatBytes(t types.Type) bool              { return irfacts.ContainsFloatBytes(t) }
func incomingValues(p *ir.InstPhi) []value.Value        { return irfacts.IncomingValues(p) }
func interposable(l enum.Linkage) bool                  { return irfacts.Interposable(l) }
func isSharedGlobal(g *ir.Global) bool                  { return irfacts.IsSharedGlobal(g) }
func sharedGlobalOf(c constant.Constant) *ir.Global     { return irfacts.SharedGlobalOf(c) }
func funcAttr(f *ir.Func, key string) string            { return irfacts.FuncAttr(f, key) }
func isFunctionLike(f *ir.Func) bool                    { return irfacts.IsFunctionLike(f) }
func isLLVMIntrinsic(f interface{ Name() string }) bool { return irfacts.IsLLVMIntrinsic(f) }
func calleeName(c *ir.InstCall) string                  { return irfacts.CalleeName(c) }
func isAllocation(c *ir.InstCall) bool                  { return irfacts.IsAllocation(c) }
func isRealloc(c *ir.InstCall) bool                     { return irfacts.IsRealloc(c) }
func isMemTransfer(c *ir.InstCall) bool                 { return irfacts.IsMemTransfer(c) }
func isMemSet(c *ir.InstCall) bool                      { return irfacts.IsMemSet(c) }
func isMaskedLoad(c *ir.InstCall) bool                  { return irfacts.IsMaskedLoad(c) }
func isMaskedStore(c *ir.InstCall) bool                 { return irfacts.IsMaskedStore(c) }
func isFloatAtomic(x *ir.InstAtomicRMW) bool            { return irfacts.IsFloatAtomic(x) }
