package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Entry points called with an unwind edge. C++ invokes __enzyme_autodiff
// where a handler or a destructor must run should it throw: a try block
// around it, a std::vector in scope. The function differentiated may throw
// (the derivatives are for runs that do not, but a run that does must
// reach the caller's handler as the primal's exception does). Before the
// roots are found, each such invoke becomes a call alone in a block of its
// own, ended by an invoke of llvm.donothing to the invoke's normal and
// unwind destinations: the root is lowered as a call there, and the landing
// pad stays reached meanwhile. After lowering, every call of the
// replacement that may unwind (the derivative's, the augmented forward's,
// the reverse's) becomes an invoke to that landing pad, and the placeholder
// a branch to the normal destination.

// invokedRoot is one entry-point invoke made a call (invokedRoots).
type invokedRoot struct {
	f      *ir.Func
	head   *ir.Block      // the block of the call, then of its replacement
	anchor *ir.TermInvoke // the placeholder: invoke of llvm.donothing
}

// invokedRoots makes each invoke of an entry point a call, as above, and
// returns them for reinvoke.
func invokedRoots(m *ir.Module) []*invokedRoot {
	var out []*invokedRoot
	for _, f := range m.Funcs {
		for i := 0; i < len(f.Blocks); i++ {
			b := f.Blocks[i]
			inv, ok := b.Term.(*ir.TermInvoke)
			if !ok {
				continue
			}
			callee, ok := irutil.StripCasts(inv.Invokee).(*ir.Func)
			if !ok {
				continue
			}
			if _, ok := EntryPointMode(callee.Name()); !ok && !isVirtualReverse(callee) && !isDenseViewName(callee.Name()) {
				continue
			}
			call := ir.NewCall(inv.Invokee, inv.Args...)
			call.LocalIdent, call.Typ = inv.LocalIdent, inv.Typ
			call.CallingConv, call.ReturnAttrs, call.FuncAttrs = inv.CallingConv, inv.ReturnAttrs, inv.FuncAttrs
			call.OperandBundles, call.Metadata = inv.OperandBundles, inv.Metadata
			normal, pad := inv.NormalRetTarget.(*ir.Block), inv.ExceptionRetTarget.(*ir.Block)
			donothing := rules.Declare(m, "llvm.donothing", types.Void)
			anchor := ir.NewInvoke(donothing, nil, normal, pad)
			head := insertBlockAfter(f, b)
			head.Insts = []ir.Instruction{call}
			head.Term = anchor
			b.Term = ir.NewBr(head)
			irutil.RenameIncoming(normal, b, head)
			irutil.RenameIncoming(pad, b, head)
			irutil.ReplaceAllUses(f, inv, call)
			out = append(out, &invokedRoot{f: f, head: head, anchor: anchor})
		}
	}
	return out
}

// reinvoke turns the calls that may unwind in the replacement of each
// invoked root into invokes to its landing pad, and its placeholder into a
// branch; a landing pad no longer reached goes (dropUnreachable).
func reinvoke(roots []*invokedRoot) {
	for _, iv := range roots {
		iv.reinvoke()
	}
	done := map[*ir.Func]bool{}
	for _, iv := range roots {
		if !done[iv.f] {
			done[iv.f] = true
			dropUnreachable(iv.f)
		}
	}
}

func (iv *invokedRoot) reinvoke() {
	f := iv.f
	normal, pad := iv.anchor.NormalRetTarget.(*ir.Block), iv.anchor.ExceptionRetTarget.(*ir.Block)
	// The replacement's blocks: those head reaches before the destinations.
	region := map[*ir.Block]bool{}
	stack := []*ir.Block{iv.head}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if region[b] || b == normal || b == pad {
			continue
		}
		region[b] = true
		stack = append(stack, irutil.Succs(b)...)
	}
	// The values the pad's phis take from the replacement: the ones they
	// took from the invoke, defined before it.
	padVals := map[*ir.InstPhi]value.Value{}
	for _, inst := range pad.Insts {
		phi, ok := inst.(*ir.InstPhi)
		if !ok {
			continue
		}
		var keep []*ir.Incoming
		for _, in := range phi.Incs {
			if region[in.Pred.(*ir.Block)] {
				padVals[phi] = in.X
				continue
			}
			keep = append(keep, in)
		}
		phi.Incs = keep
	}
	var blocks []*ir.Block
	for _, b := range f.Blocks {
		if region[b] {
			blocks = append(blocks, b)
		}
	}
	for _, b := range blocks {
		for i := 0; i < len(b.Insts); i++ {
			c, ok := b.Insts[i].(*ir.InstCall)
			if !ok || !mayUnwind(c) {
				continue
			}
			tail := insertBlockAfter(f, b)
			tail.Insts = append([]ir.Instruction(nil), b.Insts[i+1:]...)
			tail.Term = b.Term
			for _, s := range irutil.Succs(tail) {
				irutil.RenameIncoming(s, b, tail)
			}
			inv := ir.NewInvoke(c.Callee, c.Args, tail, pad)
			inv.LocalIdent, inv.Typ = c.LocalIdent, c.Typ
			inv.CallingConv, inv.ReturnAttrs, inv.FuncAttrs = c.CallingConv, c.ReturnAttrs, c.FuncAttrs
			inv.OperandBundles, inv.Metadata = c.OperandBundles, c.Metadata
			b.Insts = b.Insts[:i]
			b.Term = inv
			irutil.ReplaceAllUses(f, c, inv)
			for _, inst := range pad.Insts {
				if phi, ok := inst.(*ir.InstPhi); ok {
					phi.Incs = append(phi.Incs, ir.NewIncoming(padVals[phi], b))
				}
			}
			b, i = tail, -1
		}
		if b.Term == iv.anchor {
			b.Term = ir.NewBr(normal)
		}
	}
}

// mayUnwind reports whether call c may throw: a call of an intrinsic or of
// a function marked nounwind (at the call or on the function) does not.
func mayUnwind(c *ir.InstCall) bool {
	if _, ok := c.Callee.(*ir.InlineAsm); ok {
		return false
	}
	attrs := c.FuncAttrs
	if callee, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
		if irfacts.IsLLVMIntrinsic(callee) {
			return false
		}
		attrs = append(append([]ir.FuncAttribute{}, callee.FuncAttrs...), attrs...)
	}
	return !irutil.HasFuncAttr(attrs, enum.FuncAttrNoUnwind)
}

// insertBlockAfter adds an empty unnamed block to f right after b.
func insertBlockAfter(f *ir.Func, b *ir.Block) *ir.Block {
	nb := ir.NewBlock("")
	nb.Parent = f
	for i, x := range f.Blocks {
		if x == b {
			f.Blocks = append(f.Blocks[:i+1], append([]*ir.Block{nb}, f.Blocks[i+1:]...)...)
			return nb
		}
	}
	f.Blocks = append(f.Blocks, nb)
	return nb
}
