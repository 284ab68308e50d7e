package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Indirect calls by dispatch: a call through a function pointer (a
// callback parameter, a table indexed at run time, a C++ virtual call)
// whose target the IR does not fix becomes a chain of comparisons of the
// pointer with every function of the call's type whose address the
// program takes, each branch a direct call that AD differentiates, and a
// last branch keeping the indirect call for targets outside the module.
// gozyme links the whole program's bitcode, so every function of the
// module a pointer can hold has its address taken somewhere in it (an
// operand other than a callee: a store, an argument, a global's
// initializer such as a vtable); a target from a shared library reaches
// the last branch, where the derivative stops the program with a message
// naming the call: never a derivative that skips the callee's.
//
// The rewrite is made in the copy of a function AD prepares (prepared);
// the function the program runs keeps its indirect call.

// maxDispatch bounds the candidates one call is dispatched over.
const maxDispatch = 64

// addressTaken lists, once per module, the functions with a body (or a
// known declaration) whose address is used other than as a callee.
func (d *differ) addressTaken() map[*ir.Func]bool {
	if d.taken != nil {
		return d.taken
	}
	d.taken = map[*ir.Func]bool{}
	var visitConst func(c constant.Constant, depth int)
	visitConst = func(c constant.Constant, depth int) {
		if c == nil || depth > 64 {
			return
		}
		switch x := c.(type) {
		case *ir.Func:
			if len(x.Blocks) > 0 && (d.unparsed == nil || !d.unparsed(x)) || d.knownDeclaration(x) {
				d.taken[x] = true
			}
		case *constant.ExprBitCast:
			visitConst(x.From, depth+1)
		case *constant.ExprAddrSpaceCast:
			visitConst(x.From, depth+1)
		case *constant.ExprPtrToInt:
			visitConst(x.From, depth+1)
		case *constant.ExprGetElementPtr:
			visitConst(x.Src, depth+1)
		case *constant.Struct:
			for _, f := range x.Fields {
				visitConst(f, depth+1)
			}
		case *constant.Array:
			for _, e := range x.Elems {
				visitConst(e, depth+1)
			}
		case *constant.Vector:
			for _, e := range x.Elems {
				visitConst(e, depth+1)
			}
		}
	}
	for _, g := range d.m.Globals {
		visitConst(g.Init, 0)
	}
	for _, a := range d.m.Aliases {
		visitConst(a.Aliasee, 0)
	}
	for _, f := range d.m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				ops, ok := inst.(interface{ Operands() []*value.Value })
				if !ok {
					continue
				}
				var callee value.Value
				if c, ok := inst.(*ir.InstCall); ok {
					callee = c.Callee
				}
				for _, op := range ops.Operands() {
					if *op == callee {
						continue
					}
					if c, ok := irfacts.Unwrap(*op).(constant.Constant); ok {
						visitConst(c, 0)
					}
				}
			}
			if ops, ok := b.Term.(interface{ Operands() []*value.Value }); ok {
				var callee value.Value
				if inv, ok := b.Term.(*ir.TermInvoke); ok {
					callee = inv.Invokee
				}
				for _, op := range ops.Operands() {
					if *op == callee {
						continue
					}
					if c, ok := irfacts.Unwrap(*op).(constant.Constant); ok {
						visitConst(c, 0)
					}
				}
			}
		}
	}
	return d.taken
}

// knownDeclaration reports a function without a body whose calls AD
// knows: a math function with a derivative rule, a custom derivative, one
// that carries no derivative, or the C and C++ allocators and
// deallocators. Other declarations (a callback from a
// shared library) are left to the dispatch's last branch.
func (d *differ) knownDeclaration(f *ir.Func) bool {
	if d.custom[f] != nil || d.inactive[f] || isInactiveLibFunc(f.Name()) || isBlasFunc(f) {
		return true
	}
	if direct := (&ir.InstCall{Callee: f}); irfacts.IsAllocation(direct) || isFree(direct) || f.Name() == "realloc" {
		return true // an allocator through a pointer: its shadow allocation
	}
	rule, _ := rules.Lookup(f.Name(), f.Sig.RetType)
	return rule != nil
}

// dispatchCandidates lists, in module order, the address-taken functions
// with the type of call c's callee.
func (d *differ) dispatchCandidates(c *ir.InstCall) []*ir.Func {
	pt, ok := c.Callee.Type().(*types.PointerType)
	if !ok {
		return nil
	}
	ft, ok := pt.ElemType.(*types.FuncType)
	if !ok {
		return nil
	}
	taken := d.addressTaken()
	var out []*ir.Func
	for _, f := range d.m.Funcs {
		if taken[f] && callCompatible(f.Sig, ft) {
			out = append(out, f)
		}
	}
	return out
}

// callCompatible reports whether a function of type have can be called
// through a pointer of type want: the same return and parameter types, but
// for pointer parameters, whose pointee types may differ (a C++ virtual
// function's `this` is its own class; machine code passes every pointer
// alike).
func callCompatible(have, want *types.FuncType) bool {
	if have.Variadic != want.Variadic || len(have.Params) != len(want.Params) || !types.Equal(have.RetType, want.RetType) {
		return false
	}
	for i, p := range have.Params {
		q := want.Params[i]
		if types.Equal(p, q) {
			continue
		}
		pp, ok1 := p.(*types.PointerType)
		qp, ok2 := q.(*types.PointerType)
		if !ok1 || !ok2 || pp.AddrSpace != qp.AddrSpace {
			return false
		}
	}
	return true
}

// hasDispatchableCall reports an indirect call of f that
// dispatchIndirectCalls would rewrite.
func (d *differ) hasDispatchableCall(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok && d.dispatchable(c) != nil {
				return true
			}
		}
	}
	return false
}

// dispatchable is the candidates of an indirect call to dispatch over, or
// nil.
func (d *differ) dispatchable(c *ir.InstCall) []*ir.Func {
	switch irutil.StripCasts(c.Callee).(type) {
	case *ir.Func, *ir.InlineAsm:
		return nil
	}
	cands := d.dispatchCandidates(c)
	if len(cands) == 0 || len(cands) > maxDispatch {
		return nil
	}
	return cands
}

// dispatchIndirectCalls rewrites the indirect calls of f, a copy AD
// prepares (never a function the program runs), into dispatches.
func (d *differ) dispatchIndirectCalls(f *ir.Func) error {
	for i := 0; i < len(f.Blocks); i++ {
		b := f.Blocks[i]
		for j, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok {
				continue
			}
			if cands := d.dispatchable(c); cands != nil {
				d.splitDispatch(f, i, j, c, cands)
				break // b ends at the dispatch now; its rest is a later block
			}
		}
	}
	return irutil.Renumber(f)
}

// splitDispatch replaces call c, instruction j of block i of f, by the
// dispatch over cands: block i ends with the first comparison; each
// candidate gets a block with its direct call; the last block stops the
// program (a target from outside the module: no derivative to run); a
// join block takes the results (a phi) and the rest of block i.
func (d *differ) splitDispatch(f *ir.Func, i, j int, c *ir.InstCall, cands []*ir.Func) {
	b := f.Blocks[i]
	join := ir.NewBlock("")
	join.Parent = f
	join.Insts = append([]ir.Instruction(nil), b.Insts[j+1:]...)
	join.Term = b.Term
	b.Insts = b.Insts[:j]
	// Successors' phis now come from the join block.
	for _, s := range irutil.Succs(join) {
		irutil.RenameIncoming(s, b, join)
	}
	var blocks []*ir.Block
	newBlock := func() *ir.Block {
		nb := ir.NewBlock("")
		nb.Parent = f
		blocks = append(blocks, nb)
		return nb
	}
	var incs []*ir.Incoming
	fnPtr := c.Callee
	test := b
	for _, cand := range cands {
		var target value.Value = cand
		if !types.Equal(cand.Type(), fnPtr.Type()) {
			target = constant.NewBitCast(cand, fnPtr.Type())
		}
		eq := test.NewICmp(enum.IPredEQ, fnPtr, target)
		call := newBlock()
		next := newBlock()
		test.NewCondBr(eq, call, next)
		args := irutil.CloneArgs(c.Args)
		for k, p := range cand.Sig.Params {
			if !types.Equal(args[k].Type(), p) {
				cast := ir.NewBitCast(irfacts.Unwrap(args[k]), p)
				call.Insts = append(call.Insts, cast)
				args[k] = cast
			}
		}
		dc := ir.NewCall(cand, args...)
		dc.Typ = c.Typ
		dc.CallingConv = c.CallingConv
		dc.ReturnAttrs = c.ReturnAttrs
		dc.FuncAttrs = c.FuncAttrs
		dc.Metadata = c.Metadata
		call.Insts = append(call.Insts, dc)
		call.NewBr(join)
		incs = append(incs, ir.NewIncoming(dc, call))
		test = next
	}
	d.stopOutside(test, f, c).Metadata = c.Metadata // f is c's function
	test.NewUnreachable()
	blocks = append(blocks, join)
	out := append([]*ir.Block(nil), f.Blocks[:i+1]...)
	out = append(out, blocks...)
	f.Blocks = append(out, f.Blocks[i+1:]...)
	if !types.Equal(c.Typ, types.Void) {
		phi := ir.NewPhi(incs...)
		join.Insts = append([]ir.Instruction{phi}, join.Insts...)
		irutil.ReplaceAllUses(f, c, phi)
	}
}

// outsideOnly reports an indirect call that no function of the module can
// be the target of (no address-taken function has its type): where it
// runs, its target is outside the program's bitcode. Its derivative stops
// the program there, as the dispatch's last branch does, rather than the
// link stopping for a call that may never run: an interpreter's switch
// over callee arities, most of which no function of the program has.
func (d *differ) outsideOnly(c *ir.InstCall) bool {
	switch irutil.StripCasts(c.Callee).(type) {
	case *ir.Func, *ir.InlineAsm:
		return false
	}
	return len(d.dispatchCandidates(c)) == 0
}

// outsideStop is the run-time stop to put before call c of f when c is an
// indirect call that only a function from outside the program's bitcode can
// be the target of (outsideOnly) and it is given pointers to memory that
// carries derivatives (nil otherwise). Such a call is usually a callback
// that is null where the derivative runs (an optimizer's progress report
// guarded by a null test), so the link goes on; a call that does run stops
// the program before it can change that memory without a derivative.
func (d *differ) outsideStop(f *ir.Func, c *ir.InstCall, act *activity.Info) []ir.Instruction {
	if !d.outsideOnly(c) || !act.CallTouchesActiveMemory(c, d.passes) {
		return nil
	}
	return []ir.Instruction{ir.NewCall(d.unknownTargetStop(), d.message(c, "gozyme: the derivative of "+f.Name()+
		" reached an indirect call of a function from outside the program's bitcode, which it cannot differentiate"))}
}

// callStops is the run-time stops to put before call c of f in a derivative
// (hashInsertStop, outsideStop).
func (d *differ) callStops(f *ir.Func, c *ir.InstCall, act *activity.Info) []ir.Instruction {
	return append(d.hashInsertStop(f, c, act), d.outsideStop(f, c, act)...)
}

// stopOutside writes, at the end of blk, the run-time stop of call c of f
// (the dispatch's last branch, or a call outsideOnly reports); its message
// names c's source location.
func (d *differ) stopOutside(blk *ir.Block, f *ir.Func, c *ir.InstCall) *ir.InstCall {
	return blk.NewCall(d.unknownTargetStop(), d.message(c, "gozyme: the derivative of "+f.Name()+
		" reached an indirect call of a function from outside the program's bitcode, which it cannot differentiate"))
}

// unknownTargetStop is (created once per module) the function the
// dispatch's last branch calls: it writes its message to standard error
// and aborts.
func (d *differ) unknownTargetStop() *ir.Func {
	const name = "__gozyme_unknown_callee"
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	msg := ir.NewParam("msg", types.I8Ptr)
	f := d.m.NewFunc(name, types.Void, msg)
	f.Linkage = enum.LinkageInternal
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoReturn, enum.FuncAttrNoInline, enum.FuncAttrCold)
	entry := f.NewBlock("")
	strlen := rules.Declare(d.m, "strlen", types.I64, types.I8Ptr)
	write := rules.Declare(d.m, "write", types.I64, types.I32, types.I8Ptr, types.I64)
	abort := rules.Declare(d.m, "abort", types.Void)
	n := entry.NewCall(strlen, msg)
	entry.NewCall(write, constant.NewInt(types.I32, 2), msg, n)
	entry.NewCall(abort)
	entry.NewUnreachable()
	return f
}

// message is a constant C string for a run-time error at inst: text, with
// inst's source location when it has one, and a newline.
func (d *differ) message(inst interface{}, text string) value.Value {
	if loc := irutil.DebugLoc(inst); loc != "" {
		text = loc + ": " + text
	}
	data := constant.NewCharArrayFromString(text + "\n\x00")
	g := d.m.NewGlobalDef("", data)
	g.Linkage = enum.LinkagePrivate
	g.Immutable = true
	g.UnnamedAddr = enum.UnnamedAddrUnnamedAddr
	zero := constant.NewInt(types.I64, 0)
	return constant.NewGetElementPtr(data.Typ, g, zero, zero)
}
