// Package activity decides which values of a function carry derivatives
// and which pointers need shadows: the activity analysis, a fixed point
// over data flow and memory. What it needs to know of calls (which pass
// derivatives, what a differentiated callee writes through) it asks the
// differentiator through an Oracle. Package ad acts on the result:
// unmetError, reverseAtomic, shadowlessPointerStore and the other
// functions the comments here name are ad's.
package activity

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Activity of one parameter of a differentiated function.
type Activity int

const (
	Const     Activity = iota // not differentiated
	Out                       // float scalar whose derivative is returned
	Dup                       // pointer with a shadow (reverse: adjoints accumulate into it)
	DupNoNeed                 // as Dup; the primal result through it is not needed
)

func (a Activity) String() string {
	return [...]string{"const", "out", "dup", "dupnoneed"}[a]
}

// Oracle is what the analysis asks the differentiator about calls and
// constants.
type Oracle interface {
	// Passes reports a call derivatives may flow through.
	Passes(c *ir.InstCall) bool
	// CopiesPointers reports a memory transfer c in f that may copy
	// pointers.
	CopiesPointers(f *ir.Func, c *ir.InstCall) bool
	// Custom reports a function with a custom derivative.
	Custom(f *ir.Func) bool
	// EntryPoint reports the name of an Enzyme entry point
	// (__enzyme_autodiff...).
	EntryPoint(name string) bool
	// ConstShadowed reports a pointer constant with a shadow of its own.
	ConstShadowed(c constant.Constant) bool
	// CallSummary is what a call of f with activities acts does with
	// derivatives; retShadow: the call's result needs a shadow.
	CallSummary(f *ir.Func, acts []Activity, retShadow bool) *Summary
	// RuleOutputs reports a call differentiated by a rule for its name
	// (a BLAS routine) and the pointer arguments it writes, which need
	// shadows where any argument carries derivatives.
	RuleOutputs(c *ir.InstCall) (outputs []value.Value, ok bool)
}

// Summary is what a call of a function differentiated through its body
// does with derivatives, as its caller needs to know.
type Summary struct {
	// Needs lists the argument positions the callee writes derivatives
	// through (or returns pointers into) without a shadow from the call.
	Needs []bool
	// Hard marks the needs without which the callee's derivative cannot
	// be built (Unmet).
	Hard []bool
	// RetShadow reports a returned pointer into memory holding
	// derivatives: the call's result needs a shadow.
	RetShadow bool
}

// Info records which values of a function carry derivatives, found as
// fixed points over its data flow and memory:
//   - Varied: float values that depend on an active input;
//   - Useful: float values that influence an active output (the return, or
//     memory reachable from an active pointer);
//   - Shadowed: pointers that need a shadow, because the memory they point
//     into holds (or receives) derivatives;
//   - Unmet: the places that write derivatives (or shadow pointers) into
//     memory whose pointer cannot have a shadow (see Unmet).
//
// A pointer gets a shadow only where one can be built: from an allocation
// of the function, a parameter passed with one (enzyme_dup), a pointer
// loaded from shadowed memory, or a call that returns one. A pointer loaded
// from memory no derivative reaches (a struct passed enzyme_const holding
// pointers to constant arrays) is inactive and gets none.
type Info struct {
	Varied   map[value.Value]bool
	Useful   map[value.Value]bool
	Shadowed map[value.Value]bool
	Unmet    []Unmet
}

// Unmet is a write of derivatives into memory whose pointer has no
// shadow: At (a store, a copy, a call) needs a shadow of Base, a parameter
// passed without one, a global, a constant address or a pointer returned
// by an unknown function. A parameter's unmet need is its caller's to
// meet (Oracle.CallSummary); the others stop the differentiation.
//
// A hard need is one the derivative code cannot be built without: the
// shadow of a phi or select some of whose operands have shadows, or of a
// pointer a callee returns into its argument's memory. A soft one only
// loses derivatives written there (which unmetError allows where nothing
// reads them back).
type Unmet struct {
	Base value.Value
	At   ir.Instruction
	Hard bool
	// Lost: Base could have a shadow but is left without one, chosen
	// together with global memory (globalchoice.go).
	Lost bool
}

// Active reports whether a float value carries a derivative.
func (a *Info) Active(v value.Value) bool {
	v = irfacts.Unwrap(v)
	return a.Varied[v] && a.Useful[v]
}

// HasShadow reports whether a pointer value has a shadow.
// A constant pointer into a __shared__ variable has one where the
// variable has.
func (a *Info) HasShadow(v value.Value) bool {
	v = irfacts.Unwrap(v)
	if a.Shadowed[v] {
		return true
	}
	if c, ok := v.(constant.Constant); ok {
		if g := irfacts.SharedGlobalOf(c); g != nil {
			return a.Shadowed[g]
		}
	}
	return false
}

// CallTouchesActiveMemory reports a call that may move derivatives through
// memory: it passes derivatives and takes a shadowed pointer.
func (a *Info) CallTouchesActiveMemory(c *ir.InstCall, passes func(*ir.InstCall) bool) bool {
	if !passes(c) || irfacts.IsMemTransfer(c) || irfacts.IsMemSet(c) {
		return false
	}
	if types.IsPointer(c.Typ) && a.Shadowed[c] && !irfacts.IsAllocation(c) {
		return true // it returns memory that holds derivatives
	}
	for _, arg := range c.Args {
		if a.HasShadow(arg) {
			return true
		}
	}
	return false
}

// IsNullConstant reports null, undef, poison and zeroinitializer.
func IsNullConstant(v value.Value) bool {
	switch v.(type) {
	case *constant.Null, *constant.Undef, *constant.Poison, *constant.ZeroInitializer:
		return true
	}
	return false
}

// DerivOperands returns the operands of inst through which derivatives flow
// into its (float) result: the data operands, not conditions or indices.
func DerivOperands(inst ir.Instruction, passes func(*ir.InstCall) bool) []value.Value {
	if x, ok := inst.(*ir.InstCall); ok {
		if !passes(x) {
			return nil
		}
		ops := make([]value.Value, len(x.Args))
		for i, a := range x.Args {
			ops[i] = irfacts.Unwrap(a)
		}
		return ops
	}
	if rule := rules.InstRuleOf(inst); rule != nil {
		return rule.Operands(inst)
	}
	return nil
}

// PointerOperands returns the pointer operands a pointer-valued instruction
// is derived from (its shadow is derived the same way from theirs).
func PointerOperands(inst ir.Instruction) []value.Value {
	switch x := inst.(type) {
	case *ir.InstGetElementPtr:
		return []value.Value{x.Src}
	case *ir.InstBitCast:
		return []value.Value{x.From}
	case *ir.InstAddrSpaceCast:
		return []value.Value{x.From}
	case *ir.InstSelect:
		return []value.Value{x.ValueTrue, x.ValueFalse}
	case *ir.InstPhi:
		return irfacts.IncomingValues(x)
	}
	return nil
}

// PointerBases follows a pointer back through GEPs, casts, phis and selects
// (instructions and constant expressions) to what it is derived from:
// allocations and other calls, loads (a pointer read from memory),
// extractvalues (taken from an aggregate), parameters, globals, and other
// constants or instructions (inttoptr) that no shadow can be derived from.
func PointerBases(v value.Value, seen map[value.Value]bool, out *[]value.Value) {
	v = irfacts.Unwrap(v)
	if seen[v] {
		return
	}
	seen[v] = true
	switch x := v.(type) {
	case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstSelect, *ir.InstPhi:
		for _, p := range PointerOperands(x.(ir.Instruction)) {
			PointerBases(p, seen, out)
		}
	case *constant.ExprGetElementPtr:
		PointerBases(x.Src, seen, out)
	case *constant.ExprBitCast:
		PointerBases(x.From, seen, out)
	case *constant.ExprAddrSpaceCast:
		PointerBases(x.From, seen, out)
	default:
		*out = append(*out, v)
	}
}

// AllBases reports a pointer with at least one base (PointerBases), every
// one of which pred accepts.
func AllBases(p value.Value, pred func(value.Value) bool) bool {
	var bases []value.Value
	PointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		if !pred(b) {
			return false
		}
	}
	return len(bases) > 0
}

// OpaqueExternal reports a pointer returned by a function without a body
// that is no allocation (fopen, getenv): nothing gives it a shadow.
func OpaqueExternal(v value.Value) bool {
	c, ok := v.(*ir.InstCall)
	if !ok || irfacts.IsAllocation(c) || irfacts.CalleeName(c) == "realloc" || irfacts.RbTreeOpOf(c) != irfacts.RbNone {
		return false // a tree walk's result is a node of its argument's tree (ad/rbtree.go)
	}
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return !ok || len(f.Blocks) == 0
}
