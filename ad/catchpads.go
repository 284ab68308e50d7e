package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// Exceptions caught inside a function differentiated. The derivative is
// of the function as it runs when nothing throws (CloneWithoutUnwind): its
// landing pads are gone, so an exception thrown in its forward sweep
// leaves the derivative (and reaches the root's caller, invokedroot.go).
// That is the primal's own behavior where the function only cleans up
// (destructors), rethrows or terminates (noexcept) on the way out, but not
// where it catches and goes on after the handler: there the derivative
// would throw. Such a function stops the link.

// checkCatches returns an error naming f and the invoke where f catches an
// exception its callee may throw.
func checkCatches(f *ir.Func) error {
	for _, b := range f.Blocks {
		inv, ok := b.Term.(*ir.TermInvoke)
		if !ok || !catchingPad(inv.ExceptionRetTarget.(*ir.Block)) {
			continue
		}
		callee, ok := irutil.StripCasts(inv.Invokee).(*ir.Func)
		if ok && irutil.HasFuncAttr(inv.FuncAttrs, enum.FuncAttrNoUnwind) {
			continue
		}
		if ok && !mayThrow(callee, map[*ir.Func]bool{}) {
			continue
		}
		what := "a call through a pointer"
		if ok {
			what = "the call to '" + callee.Name() + "'"
		}
		return errorAt(f, inv, "'%s' catches an exception %s may throw (a try block with a handler): gozyme differentiates runs that do not throw, and its derivative has no handler, so a run that throws would leave it where '%s' goes on; move the try block out of the function differentiated or give the function a custom derivative", f.Name(), what, f.Name())
	}
	return nil
}

// catchingPad reports whether landing pad block b catches (a catch
// clause) and the function may go on after the handler: a return is
// reachable from b. A handler that rethrows (std::vector's catch (...)
// around its elements' construction), resumes or terminates (a noexcept
// function's pad) lets the exception out or ends the program, as the
// derivative does.
func catchingPad(b *ir.Block) bool {
	catches := false
	for _, inst := range b.Insts {
		if lp, ok := inst.(*ir.InstLandingPad); ok {
			for _, c := range lp.Clauses {
				if c.Type == enum.ClauseTypeCatch {
					catches = true
				}
			}
		}
	}
	if !catches {
		return false
	}
	seen := map[*ir.Block]bool{}
	stack := []*ir.Block{b}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		if _, ok := x.Term.(*ir.TermRet); ok {
			return true
		}
		stack = append(stack, irutil.Succs(x)...)
	}
	return false
}

// mayThrow reports whether a call of f may throw: f is a declaration not
// marked nounwind, or it resumes an exception or calls (not invokes) a
// function that may throw. An invoke's exception goes to its pad, which
// resumes or rethrows (a call of __cxa_rethrow) when it lets it out.
func mayThrow(f *ir.Func, seen map[*ir.Func]bool) bool {
	if irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrNoUnwind) || irfacts.IsLLVMIntrinsic(f) {
		return false
	}
	if len(f.Blocks) == 0 {
		return true
	}
	if seen[f] {
		return false
	}
	seen[f] = true
	for _, b := range f.Blocks {
		if _, ok := b.Term.(*ir.TermResume); ok {
			return true
		}
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok || !mayUnwind(c) {
				continue
			}
			callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
			if !ok || mayThrow(callee, seen) {
				return true
			}
		}
	}
	return false
}
