package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// unknownMemoryCall returns the error for a call that would otherwise be
// skipped silently: a function with no body, no derivative rule, no custom
// derivative and no known meaning (allocation, realloc, free,
// malloc_usable_size) that is given
// pointers into memory holding derivatives, such as a Fortran runtime
// routine (_FortranAMatmul) reading an active array. Nil when the call is
// none of these.
func (d *differ) unknownMemoryCall(f *ir.Func, act *activity.Info, c *ir.InstCall) error {
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		// An indirect call dispatch could not resolve (no function of its
		// type has its address taken here), or inline assembly.
		if !act.CallTouchesActiveMemory(c, d.passes) || d.outsideOnly(c) {
			return nil // outsideOnly: a run-time stop before the call (outsideStop)
		}
		what := describe(c) // a call through a function pointer
		if _, asm := irutil.StripCasts(c.Callee).(*ir.InlineAsm); asm {
			what = "inline assembly"
		}
		return errorAt(f, c, "%s takes pointers to memory that carries derivatives and has no derivative", what)
	}
	if len(callee.Blocks) == 0 && !d.inactive[callee] && isInactiveLibWriter(callee.Name()) {
		return inactiveWriterCall(f, act, c, callee)
	}
	if len(callee.Blocks) > 0 || d.inactive[callee] || d.custom[callee] != nil || isBlasCall(c) ||
		strings.HasPrefix(callee.Name(), "llvm.") || isFree(c) || irfacts.IsAllocation(c) || irfacts.IsRealloc(c) || isMemAlign(c) ||
		callee.Name() == "malloc_usable_size" || rbTreeOpOf(c) != rbNone {
		return nil
	}
	if rule := mathRuleOf(callee, c.Typ); rule != nil {
		return nil
	}
	if !act.CallTouchesActiveMemory(c, d.passes) {
		return nil
	}
	err := errorAt(f, c, "no derivative for the call to '%s', which takes pointers to memory that carries derivatives and has no body in this link; give it a custom derivative, or list it in __enzyme_inactivefn if it carries none", callee.Name())
	err.Callee = callee.Name()
	return err
}

// inactiveWriterCall is the error for a call of an input routine
// (isInactiveLibWriter) given a pointer into memory that holds
// derivatives: the value it overwrites would keep its derivative. Nil
// when every pointer it gets is to memory without derivatives.
func inactiveWriterCall(f *ir.Func, act *activity.Info, c *ir.InstCall, callee *ir.Func) error {
	for _, arg := range c.Args {
		if act.HasShadow(arg) {
			err := errorAt(f, c, "'%s' reads input into memory that carries derivatives, whose derivative it would leave behind; read into a variable that carries none and assign from it", callee.Name())
			err.Callee = callee.Name()
			return err
		}
	}
	return nil
}
