package ad

import (
	"fmt"

	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
)

// Retained caches: the per-loop cache buffers of a combined gradient are
// kept, per thread, from one call to the next instead of being freed on
// exit. Large buffers freed every call go back to the kernel (glibc maps
// and unmaps them, or trims the heap), so every call paid their page faults
// again; a gradient called in a loop (an optimizer) now reuses its buffers
// and grows them only when a call needs more.
//
// Each loop's capacity and buffers live in thread-local globals. On entry
// the gradient takes them over (leaving null and 0 behind, so a nested or
// recursive call allocates its own); on exit it keeps whichever set is
// larger, its own or one a nested call left, and frees the other. A thread
// retains at most the largest caches one call of the gradient needed, and
// frees them when it exits (a thread_local destructor registered on the
// thread's first call, as C++ registers those of thread_local objects; the
// main thread's run at exit).
//
// Gradients are generated freeing their buffers; once every root is done,
// those that nothing differentiated again (forward over reverse clones the
// gradient, and its derivative must free its own shadow buffers) switch to
// retaining them.

// retainable is what the switch needs of one combined gradient.
type retainable struct {
	g              *ir.Func
	allocas, exit  *ir.Block
	loops          []*loopCache
	frees          map[*ir.InstAlloca][]ir.Instruction // buffer slot -> its free on exit
	alreadyRetains bool
}

// noteRetainable records, for a combined gradient's real generation, the
// buffer frees finishExit emitted.
func (r *reverseGen) noteRetainable(frees map[*ir.InstAlloca][]ir.Instruction) {
	if r.split || r.requested != nil || len(frees) == 0 {
		return
	}
	rt := &retainable{g: r.g, allocas: r.allocas, exit: r.exit, frees: frees}
	for _, l := range r.cfg.Loops {
		if lc := r.loops[l]; lc.rec != nil && lc.owner == nil {
			rt.loops = append(rt.loops, lc)
		}
	}
	for _, h := range r.hoists {
		if h.lc.rec != nil {
			rt.loops = append(rt.loops, h.lc)
		}
	}
	r.d.retainables = append(r.d.retainables, rt)
}

// retainCaches switches the recorded gradients that were not differentiated
// themselves to retained buffers.
func (d *differ) retainCaches() {
	for _, rt := range d.retainables {
		if _, again := d.prep[rt.g]; again || rt.alreadyRetains {
			continue
		}
		rt.alreadyRetains = true
		drop := map[ir.Instruction]bool{}
		for _, insts := range rt.frees {
			for _, inst := range insts {
				drop[inst] = true
			}
		}
		kept := rt.exit.Insts[:0]
		for _, inst := range rt.exit.Insts {
			if !drop[inst] {
				kept = append(kept, inst)
			}
		}
		rt.exit.Insts = kept
		var homes []*ir.Global
		for i, lc := range rt.loops {
			homes = append(homes, d.retainLoop(rt, i, lc)...)
		}
		rt.allocas.NewCall(d.threadExitRegistration(rt.g, homes))
	}
}

// threadExitRegistration defines, for gradient g, a function that frees
// the buffers in homes (thread-local; capacities are reset along) and one,
// returned, that registers it once per thread with
// __cxa_thread_atexit_impl.
func (d *differ) threadExitRegistration(g *ir.Func, homes []*ir.Global) *ir.Func {
	release := d.m.NewFunc(g.Name()+".tape.release", types.Void, ir.NewParam("", types.I8Ptr))
	release.Linkage = enum.LinkageInternal
	b := release.NewBlock("")
	for _, h := range homes {
		t := h.ContentType
		if pt, ok := t.(*types.PointerType); ok {
			b.NewCall(rules.Declare(d.m, "free", types.Void, types.I8Ptr), b.NewBitCast(b.NewLoad(t, h), types.I8Ptr))
			b.NewStore(constant.NewNull(pt), h)
		} else {
			b.NewStore(constant.NewInt(types.I64, 0), h)
		}
	}
	b.NewRet(nil)

	flag := d.threadLocal(g, "registered", types.I64)
	register := d.m.NewFunc(g.Name()+".tape.register", types.Void)
	register.Linkage = enum.LinkageInternal
	entry, first, done := register.NewBlock(""), register.NewBlock(""), register.NewBlock("")
	isNew := entry.NewICmp(enum.IPredEQ, entry.NewLoad(types.I64, flag), constant.NewInt(types.I64, 0))
	entry.NewCondBr(isNew, first, done)
	dtor := types.NewPointer(release.Sig)
	atexit := rules.Declare(d.m, "__cxa_thread_atexit_impl", types.I32, dtor, types.I8Ptr, types.I8Ptr)
	first.NewCall(atexit, release, constant.NewNull(types.I8Ptr), d.dsoHandle())
	first.NewStore(constant.NewInt(types.I64, 1), flag)
	first.NewBr(done)
	done.NewRet(nil)
	return register
}

// dsoHandle declares (once) the hidden __dso_handle of the module's
// shared object, which thread_local destructors are registered against.
func (d *differ) dsoHandle() *ir.Global {
	for _, g := range d.m.Globals {
		if g.Name() == "__dso_handle" {
			return g
		}
	}
	g := d.m.NewGlobal("__dso_handle", types.I8)
	g.Linkage = enum.LinkageExternal
	g.Visibility = enum.VisibilityHidden
	return g
}

// retainLoop emits the take-over of loop lc's buffers on entry and their
// hand-back on exit: the larger of this call's set and the one in
// thread-local storage stays there, the other is freed (by selects).
func (d *differ) retainLoop(rt *retainable, i int, lc *loopCache) []*ir.Global {
	a, x := rt.allocas, rt.exit
	capG := d.threadLocal(rt.g, fmt.Sprintf("%d.cap", i), types.I64)
	homes := []*ir.Global{capG}
	a.NewStore(a.NewLoad(types.I64, capG), lc.cap)
	a.NewStore(constant.NewInt(types.I64, 0), capG)
	mine := x.NewLoad(types.I64, lc.cap)
	theirs := x.NewLoad(types.I64, capG)
	keep := x.NewICmp(enum.IPredUGT, mine, theirs)
	x.NewStore(x.NewSelect(keep, mine, theirs), capG)
	t := lc.slot.ElemType
	g := d.threadLocal(rt.g, fmt.Sprintf("%d.rec", i), t)
	homes = append(homes, g)
	a.NewStore(a.NewLoad(t, g), lc.slot)
	a.NewStore(constant.NewNull(t.(*types.PointerType)), g)
	pm := x.NewLoad(t, lc.slot)
	pt := x.NewLoad(t, g)
	x.NewStore(x.NewSelect(keep, pm, pt), g)
	x.NewCall(rules.Declare(d.m, "free", types.Void, types.I8Ptr), x.NewBitCast(x.NewSelect(keep, pt, pm), types.I8Ptr))
	return homes
}

// threadLocal defines a zero-initialized internal thread-local global of
// type t named after gradient g.
func (d *differ) threadLocal(g *ir.Func, suffix string, t types.Type) *ir.Global {
	var init constant.Constant = constant.NewInt(types.I64, 0)
	if pt, ok := t.(*types.PointerType); ok {
		init = constant.NewNull(pt)
	}
	v := d.m.NewGlobalDef(g.Name()+".tape."+suffix, init)
	v.Linkage = enum.LinkageInternal
	v.TLSModel = enum.TLSModelGeneric
	return v
}
