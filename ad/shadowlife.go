package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Shadow lifetimes in a combined gradient follow the primal's. A shadow
// allocation is freed by the reverse of its allocation (the last use the
// gradient makes of it) only where the primal memory was freed during the
// gradient: memory the differentiated code allocates and keeps (a node it
// links into a list the user passed with a shadow) keeps its shadow too,
// linked into the user's shadow structure as the primal is into the primal
// one, and the user's own code frees both. Freeing it would leave the
// user's shadow pointing into freed memory.
//
// Which primal blocks were freed is known at run time: each free (or
// realloc) of a pointer with a shadow notes the shadow in a per-thread set
// (shadowset.go) in the forward sweep, where it runs or where it would
// have run when it is deferred to the exit; the reverse of the allocation
// frees the shadow where it takes it out of the set. A combined gradient
// opens a set of its own on entry and drops it on exit (shadows noted and
// never taken are those of memory allocated before the gradient: the
// user's, which gozyme never frees), and so does the pair of augmented
// forward and reverse an enzyme_primal_return call runs back to back.
// Outside those (split mode, whose augmented forward and reverse the user
// calls apart), and in the code of parallel regions and GPU kernels, no
// set is consulted: the reverse of an allocation frees its shadow, as it
// always did. A shadow that is its primal (run-time activity) is never
// noted. Derivatives of order d use a set of their own (shadowset.go).
//
// The set also holds the shadows of nodes linked into red-black trees
// (rbtree.go) until their primal is freed: a node still there when the
// derivative returns was linked into a tree that outlives it (a std::map
// the caller passed), whose shadow node holds no copy of its key (the
// key's bytes are integers or a std::string, whose copies the shadow does
// not receive), so the caller's shadow map could no longer be searched by
// key: the program stops with a message there. Forward-mode derivatives
// open a set around the root call for that check alone.

// tracksShadowLife reports whether r's reverse sweep frees allocations'
// shadows through the set.
func (r *reverseGen) tracksShadowLife() bool { return !r.d.gpu && !r.parallel }

// shadowRelease is the function the reverse of allocation x releases its
// shadow with: deallocator name (of signature void(i8*, params...)), or,
// where r tracks shadow lifetimes and its function may not free every
// block x allocates (pairedfree.go), the same behind the set's check.
func (r *reverseGen) shadowRelease(x *ir.InstCall, name string, params ...types.Type) *ir.Func {
	dealloc := rules.Declare(r.m, name, types.Void, append([]types.Type{types.I8Ptr}, params...)...)
	if !r.tracksShadowLife() || r.alwaysFreed(x) {
		return dealloc
	}
	level := r.d.shadowLevel(r.f)
	wrapper := shadowSetPrefix(level) + "release." + name
	for _, f := range r.m.Funcs {
		if f.Name() == wrapper {
			return f
		}
	}
	ps := []*ir.Param{ir.NewParam("p", types.I8Ptr)}
	for _, t := range params {
		ps = append(ps, ir.NewParam("", t))
	}
	f := r.m.NewFunc(wrapper, types.Void, ps...)
	f.Linkage = enum.LinkageInternal
	entry, free, done := f.NewBlock(""), f.NewBlock(""), f.NewBlock("")
	entry.NewCondBr(entry.NewCall(r.d.shadowSetRuntime(level).take, ps[0]), free, done)
	args := make([]value.Value, len(ps))
	for i, p := range ps {
		args[i] = p
	}
	free.NewCall(dealloc, args...)
	free.NewBr(done)
	done.NewRet(nil)
	return f
}

// noteShadowFree emits, for the primal free (or realloc) of pointer p in
// the forward sweep, the note that its shadow's primal is freed.
func (r *reverseGen) noteShadowFree(at interface{}, p value.Value) ([]ir.Instruction, error) {
	p = irfacts.Unwrap(p)
	if !r.tracksShadowLife() || !r.act.HasShadow(p) {
		return nil, nil
	}
	if c, ok := at.(*ir.InstCall); ok && isFree(c) && r.pairedAllocation(c) != nil {
		return nil, nil // its allocation's reverse frees the shadow anyway
	}
	s, err := r.shadowOf(at, p)
	if err != nil {
		return nil, err
	}
	var out []ir.Instruction
	sp, pp := bitCastTo(&out, s, types.I8Ptr), bitCastTo(&out, p, types.I8Ptr)
	return append(out, ir.NewCall(r.d.shadowSetRuntime(r.d.shadowLevel(r.f)).note, sp, pp)), nil
}

// forgetTreeNode emits forward mode's note that the primal of shadow s,
// freed with it, is no tree node that outlives the derivative.
func (fg *forwardGen) forgetTreeNode(blk *ir.Block, s value.Value) {
	if fg.d.gpu {
		return
	}
	blk.NewCall(fg.d.shadowSetRuntime(fg.d.shadowLevel(fg.f)).forget, blk.NewBitCast(s, types.I8Ptr))
}

// outlivesMessage is the run-time error of a tree node that outlives the
// derivative of f.
func (d *differ) outlivesMessage(f *ir.Func) value.Value {
	return d.message(nil, "gozyme: the derivative of "+f.Name()+" inserted a node into a std::map or std::set that outlives it (one the caller passed, or one kept elsewhere): the node's shadow holds no copy of its key, so the shadow map could no longer be searched by key; insert the keys into both maps before differentiating")
}

// scopeShadowSet opens a set for the combined gradient g of f on entry
// and drops it before each return.
func (d *differ) scopeShadowSet(f, g *ir.Func) {
	if d.gpu || len(g.Blocks) == 0 {
		return
	}
	rt := d.shadowSetRuntime(d.shadowLevel(f))
	entry := g.Blocks[0]
	save := ir.NewAlloca(types.NewArray(shadowSetWords, types.I64))
	raw := ir.NewBitCast(save, types.I8Ptr)
	head := 0
	for head < len(entry.Insts) {
		if _, ok := entry.Insts[head].(*ir.InstAlloca); !ok {
			break
		}
		head++
	}
	insts := append([]ir.Instruction{}, entry.Insts[:head]...)
	insts = append(insts, save, raw, ir.NewCall(rt.enter, raw))
	entry.Insts = append(insts, entry.Insts[head:]...)
	msg := d.outlivesMessage(f)
	for _, b := range g.Blocks {
		if _, ok := b.Term.(*ir.TermRet); ok {
			b.Insts = append(b.Insts, ir.NewCall(rt.leave, raw, msg))
		}
	}
}

// scopeShadowSetCalls opens a set, in the instructions pre replacing an
// entry-point call in caller, from before first to after last: around a
// forward-mode root's call, or the augmented forward and the reverse an
// enzyme_primal_return gradient calls back to back.
func (d *differ) scopeShadowSetCalls(caller, f *ir.Func, pre []ir.Instruction, first, last *ir.InstCall) []ir.Instruction {
	if d.gpu || len(caller.Blocks) == 0 {
		return pre
	}
	rt := d.shadowSetRuntime(d.shadowLevel(f))
	save := ir.NewAlloca(types.NewArray(shadowSetWords, types.I64))
	entry := caller.Blocks[0]
	entry.Insts = append([]ir.Instruction{save}, entry.Insts...)
	raw := ir.NewBitCast(save, types.I8Ptr)
	var out []ir.Instruction
	for _, inst := range pre {
		if inst == first {
			out = append(out, raw, ir.NewCall(rt.enter, raw))
		}
		out = append(out, inst)
		if inst == last {
			out = append(out, ir.NewCall(rt.leave, raw, d.outlivesMessage(f)))
		}
	}
	return out
}

// pairedAllocation returns the allocation free call f frees, where f's
// pointer points into that allocation's blocks only (or is null) and the
// function frees every block it allocates (pairedfree.go): its reverse
// frees the shadow without asking the set. Nil otherwise.
func (r *reverseGen) pairedAllocation(f *ir.InstCall) *ir.InstCall {
	objs, opaque, known := objectsOf(f.Args[0], true)
	if !known || opaque || len(objs) != 1 {
		return nil
	}
	a, ok := objs[0].(*ir.InstCall)
	if !ok || !r.alwaysFreed(a) {
		return nil
	}
	return a
}
