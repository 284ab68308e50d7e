// Package preopt is gozyme's optimization before AD: a light first pass of
// LLVM's simplifications, then function attributes LLVM 14 does not infer
// (inferred here on llir), then the user's -O pipeline, which can use them.
//
// The attribute that matters is argmemonly: LLVM 14 infers readonly for
// `double mag(const double *x, int n)` but not argmemonly, and LICM hoists a
// readonly call out of a loop that writes memory only when it knows the call
// reads nothing but its arguments' memory. Without it,
// `for (i) out[i] = in[i] / mag(in, n)` stays O(n^2), and so does its gradient.
package preopt

import (
	"sort"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// ArgMemOnly returns the names, sorted, of the functions defined in m that
// only access memory reachable from their pointer arguments (or their own
// stack slots) and are not marked argmemonly or readnone already. A function
// qualifies when each of its loads, stores and memory intrinsics addresses an
// argument or alloca (through GEPs, casts, phis and selects), and each call
// goes to a readnone function, or to an argmemonly one (qualifying
// functions included: recursion is a fixed point) with pointer arguments of
// the same kind. Only exact definitions (external, internal, private
// linkage) qualify: a weak or linkonce body may be replaced at link time.
func ArgMemOnly(m *ir.Module) []string {
	cand := map[*ir.Func]bool{}
	for _, f := range m.Funcs {
		if len(f.Blocks) > 0 && exact(f.Linkage) && !irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrArgMemOnly) && !irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrReadNone) {
			cand[f] = true
		}
	}
	// Optimistic fixed point: drop candidates until every remaining one
	// only calls functions that are argmemonly, readnone or candidates.
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if cand[f] && !argMemOnlyBody(f, cand) {
				delete(cand, f)
				changed = true
			}
		}
	}
	var names []string
	for f := range cand {
		names = append(names, f.Name())
	}
	sort.Strings(names)
	return names
}

func exact(l enum.Linkage) bool {
	return l == enum.LinkageNone || l == enum.LinkageExternal || l == enum.LinkageInternal || l == enum.LinkagePrivate
}

// argMemOnlyBody reports whether every memory access and call of f keeps
// to memory reachable from f's arguments or allocas.
func argMemOnlyBody(f *ir.Func, cand map[*ir.Func]bool) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if !instOK(inst, cand) {
				return false
			}
		}
		if _, ok := b.Term.(*ir.TermInvoke); ok {
			return false // calls with unwinding: not worth the cases
		}
		if _, ok := b.Term.(*ir.TermCallBr); ok {
			return false
		}
	}
	return true
}

// instOK reports whether one instruction keeps to memory reachable from
// its function's arguments or allocas (calls: see callOK).
func instOK(inst ir.Instruction, cand map[*ir.Func]bool) bool {
	switch x := inst.(type) {
	case *ir.InstLoad:
		return local(x.Src)
	case *ir.InstStore:
		return local(x.Dst)
	case *ir.InstAtomicRMW:
		return local(x.Dst)
	case *ir.InstCmpXchg:
		return local(x.Ptr)
	case *ir.InstFence, *ir.InstVAArg:
		return false
	case *ir.InstCall:
		return callOK(x, cand)
	}
	return true
}

// callOK reports whether a call touches no memory, or only memory its
// pointer arguments reach when those are local: a direct call to a
// readnone function, or to an argmemonly one or a candidate of the fixed
// point (cand).
func callOK(c *ir.InstCall, cand map[*ir.Func]bool) bool {
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false // indirect call or inline asm
	}
	name := callee.Name()
	switch irutil.BookkeepingIntrinsic(name) {
	case irutil.DebugInfo, irutil.Assumption:
		return true // lifetime and invariant markers: by their attributes below
	}
	attrs := append(append([]ir.FuncAttribute{}, callee.FuncAttrs...), c.FuncAttrs...)
	if irutil.HasFuncAttr(attrs, enum.FuncAttrReadNone) {
		return true
	}
	if !cand[callee] && !irutil.HasFuncAttr(attrs, enum.FuncAttrArgMemOnly) {
		return false
	}
	for _, a := range c.Args {
		a = irutil.StripCasts(a)
		if _, ok := a.Type().(*types.PointerType); ok && !local(a) {
			return false
		}
	}
	return true
}

// local reports whether every object p may point into is an argument or an
// alloca of the function.
func local(p value.Value) bool {
	seen := map[value.Value]bool{}
	var walk func(v value.Value) bool
	walk = func(v value.Value) bool {
		v = irutil.StripCasts(v)
		if seen[v] {
			return true
		}
		seen[v] = true
		switch x := v.(type) {
		case *ir.Param, *ir.InstAlloca:
			return true
		case *ir.InstGetElementPtr:
			return walk(x.Src)
		case *constant.ExprGetElementPtr:
			return walk(x.Src)
		case *ir.InstPhi:
			for _, inc := range x.Incs {
				if !walk(inc.X) {
					return false
				}
			}
			return true
		case *ir.InstSelect:
			return walk(x.ValueTrue) && walk(x.ValueFalse)
		}
		return false
	}
	return walk(p)
}
