package ad

import (
	"strings"

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
func (d *differ) unknownMemoryCall(f *ir.Func, act *activity, c *ir.InstCall) error {
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if _, asm := c.Callee.(*ir.InlineAsm); !ok && !asm && act.callTouchesActiveMemory(c, d.passes) {
		// An indirect call: nothing says which function runs, or what
		// it does with the derivatives in that memory.
		return errorAt(f, c, "indirect call %s takes pointers to memory that carries derivatives: gozyme cannot tell which function it calls (call the function directly, or pass it as a constant down to this call)", describe(c))
	}
	if !ok || len(callee.Blocks) > 0 || d.inactive[callee] || d.custom[callee] != nil ||
		strings.HasPrefix(callee.Name(), "llvm.") || isFree(c) || isAllocation(c) || isRealloc(c) ||
		callee.Name() == "malloc_usable_size" {
		return nil
	}
	if rule, _ := lookupMathRule(callee.Name(), c.Typ); rule != nil {
		return nil
	}
	if !act.callTouchesActiveMemory(c, d.passes) {
		return nil
	}
	err := errorAt(f, c, "no derivative for call to '%s', which takes pointers to memory that carries derivatives (%s); give it a custom derivative, or list it in __enzyme_inactivefn if it has none",
		callee.Name(), describe(c))
	err.Callee = callee.Name()
	return err
}
