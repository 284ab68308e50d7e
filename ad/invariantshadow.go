package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Loop-invariant shadow loads: the forward's shadow of a pointer load in a
// loop (a std::vector's shadow data pointer, read again in every iteration
// because the primal's load stays in the loop past a call) is cached once
// per iteration of the loop around, or once per call outside loops, instead
// of once per iteration, when it is the same in every iteration:
//
//   - its address is computed outside the loop (a parameter's shadow, a
//     getelementptr of one), and
//   - nothing the loop's forward runs writes shadow memory: no store,
//     atomic, memcpy or memset into memory with a shadow, no allocation
//     with a shadow (its zeroing), and every call either writes no memory
//     or is a defined function whose own forward, for the activities the
//     call passes, writes no shadow memory by the same rules (recursion
//     assumed to, as a greatest fixed point: a write happens at some
//     finite depth).
//
// The proof asks nothing of the primal's writes and nothing of how shadows
// overlap: shadow memory keeps its value while no shadow is written, even
// where two arguments share one shadow. It needs no statement about the
// reverse either, as the value is read from the cache: every iteration
// loaded the same bytes, so the one kept is each iteration's.

// invariantShadowLoad reports whether forward value fv, a shadow load in
// loop l, is the same in every iteration of l (see above).
func (r *reverseGen) invariantShadowLoad(fv value.Value, l *irutil.Loop) bool {
	if l == nil || r.parallel || r.d.gpu || r.d.runtimeActivity {
		// Run-time activity makes inactive pointers their own shadows:
		// primal stores then write shadow memory too.
		return false
	}
	ld, ok := fv.(*ir.InstLoad)
	if !ok || ld.Volatile || ld.Atomic {
		return false
	}
	if _, primal := r.primalOf[fv]; primal {
		return false
	}
	if def, isInst := r.blockOf[irfacts.Unwrap(ld.Src)]; isInst && l.Contains(def) {
		return false
	} else if !isInst {
		if _, inst := irfacts.Unwrap(ld.Src).(ir.Instruction); inst {
			return false // a value gozyme knows not the origin of
		}
	}
	if r.shadowFreeLoops == nil {
		r.shadowFreeLoops = map[*irutil.Loop]bool{}
	}
	free, ok := r.shadowFreeLoops[l]
	if !ok {
		free = r.loopWritesNoShadow(l)
		r.shadowFreeLoops[l] = free
	}
	// Last: isShadowValue scans every shadow, and most loops fail the
	// (memoized) loop test.
	return free && r.isShadowValue(fv)
}

// isShadowValue reports whether fv is the forward shadow of a primal value.
func (r *reverseGen) isShadowValue(fv value.Value) bool {
	for _, s := range r.shadow {
		if s == fv {
			return true
		}
	}
	return false
}

// loopWritesNoShadow reports whether nothing the forward of loop l runs
// writes shadow memory.
func (r *reverseGen) loopWritesNoShadow(l *irutil.Loop) bool {
	visiting := map[string]bool{}
	for _, b := range r.f.Blocks {
		if !l.Contains(b) {
			continue
		}
		if !r.d.blockWritesNoShadow(b, r.act, visiting) {
			return false
		}
	}
	return true
}

// blockWritesNoShadow is loopWritesNoShadow's rule for one block of a
// function whose activity is a.
func (d *differ) blockWritesNoShadow(b *ir.Block, a *activity.Info, visiting map[string]bool) bool {
	if _, ok := b.Term.(*ir.TermInvoke); ok {
		return false
	}
	for _, inst := range b.Insts {
		switch x := inst.(type) {
		case *ir.InstStore:
			if a.HasShadow(x.Dst) {
				return false
			}
		case *ir.InstAtomicRMW:
			if a.HasShadow(x.Dst) {
				return false
			}
		case *ir.InstCmpXchg:
			if a.HasShadow(x.Ptr) {
				return false
			}
		case *ir.InstAlloca:
			if a.HasShadow(x) {
				return false // a zeroed shadow
			}
		case *ir.InstCall:
			if !d.callWritesNoShadow(x, a, visiting) {
				return false
			}
		}
	}
	return true
}

// callWritesNoShadow is blockWritesNoShadow's rule for a call.
func (d *differ) callWritesNoShadow(c *ir.InstCall, a *activity.Info, visiting map[string]bool) bool {
	if irfacts.IsMemTransfer(c) || irfacts.IsMemSet(c) {
		return !a.HasShadow(c.Args[0])
	}
	if irfacts.IsAllocation(c) {
		return !a.HasShadow(c)
	}
	if rbTreeOpOf(c) != rbNone || isBlasCall(c) || isFree(c) {
		return false
	}
	if writesNoMemory(c) {
		return true
	}
	f, ok := c.Callee.(*ir.Func)
	if !ok || len(f.Blocks) == 0 || f.Sig.Variadic || strings.HasPrefix(f.Name(), "llvm.") || irfacts.IsFunctionLike(f) {
		return false
	}
	if rule, custom := d.custom[f]; custom && rule != nil {
		return false
	}
	acts := calleeActsBy(a, c)
	retShadow := holdsPointers(f.Sig.RetType) && a.HasShadow(c)
	key := fmt.Sprintf("%s %v %v %v", f.Name(), acts, a.Active(c), retShadow)
	if done, ok := visiting[key]; ok {
		return done // in progress (recursion) or answered
	}
	visiting[key] = true
	pf, err := d.prepared(f)
	if err != nil {
		visiting[key] = false
		return false
	}
	ca := d.analyzeActivity(pf, acts, a.Active(c), retShadow)
	for _, b := range pf.Blocks {
		if !d.blockWritesNoShadow(b, ca, visiting) {
			visiting[key] = false
			return false
		}
	}
	return true
}
