package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Adjoint sums of loop-invariant loads (serial code). A loop that reads
// one element in every iteration (x[i] in the inner loop of y[j] += L[ij] *
// x[i]) adds into that element's shadow in every iteration of its reverse:
// a read, an add and a write of one address per iteration, a chain through
// memory the optimizer cannot keep in a register where other shadows are
// written in the same loop (it cannot tell them apart). Instead the
// reverse sums those adjoints in a slot of its own (a register once
// promoted) and adds the sum into the shadow once, leaving the loop's
// reverse (upward, through its header).
//
// Sound where nothing in the loop's reverse reads or clears that shadow
// before the sum is added: the reverse of a load only adds into its
// shadow, and additions commute (up to rounding), so only the reverse of
// a write to those bytes (a store, a copy, a free or a call writing them:
// it reads and clears the shadow) could see the difference; the loop has
// none (mayBeWrittenAnyType, with the callee summaries of writesum.go), and no
// call given a pointer with a shadow (a callee's or a custom rule's
// reverse may do what it likes with it) nor an atomic. The address must be
// defined outside the loop, where the sum is added. Under run-time
// activity (a shadow may be some primal memory) and on GPUs no load is
// summed so; parallel code has per-thread sums of its own (ompscalar.go,
// with atomics).

// findLoopSums returns the loads whose adjoints are summed per loop, each
// with its sum (partialList gets the sums).
func (r *reverseGen) findLoopSums() map[*ir.InstLoad]*scalarPartial {
	out := map[*ir.InstLoad]*scalarPartial{}
	unsafe := map[*irutil.Loop]bool{}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			if r.touchesShadows(inst) {
				for l := r.cfg.LoopOf[b]; l != nil; l = l.Parent {
					unsafe[l] = true
				}
			}
		}
	}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			x, ok := inst.(*ir.InstLoad)
			if !ok || x.Volatile || !irfacts.IsFloat(x.ElemType) || !r.act.Active(x) || !r.act.HasShadow(x.Src) || r.d.mayAliasPrimal(x.Src) {
				continue
			}
			var best *irutil.Loop
			for l := r.cfg.LoopOf[b]; l != nil && !unsafe[l] && r.definedOutside(x.Src, l); l = l.Parent {
				if r.mayBeWrittenAnyType(x, func(w memWriter) bool { return l.Contains(w.block) }) {
					break
				}
				best = l
			}
			if best == nil {
				continue
			}
			g := &scalarPartial{elem: x.ElemType, loop: best, load: x}
			r.partialSlot(g)
			r.partialList = append(r.partialList, g)
			out[x] = g
		}
	}
	return out
}

// touchesShadows reports a primal instruction whose reverse may read or
// clear shadows other than by the rules of loads and stores: an atomic, or
// a call given (or returning) a pointer with a shadow.
func (r *reverseGen) touchesShadows(inst ir.Instruction) bool {
	switch x := inst.(type) {
	case *ir.InstAtomicRMW, *ir.InstCmpXchg:
		return true
	case *ir.InstCall:
		name := irfacts.CalleeName(x)
		if strings.HasPrefix(name, "llvm.lifetime.") || strings.HasPrefix(name, "llvm.dbg.") {
			return false
		}
		if holdsPointers(x.Typ) && r.act.HasShadow(x) {
			return true
		}
		for _, a := range x.Args {
			if holdsPointers(irfacts.Unwrap(a).Type()) && r.act.HasShadow(a) {
				return true
			}
		}
	}
	return false
}

// definedOutside reports whether v is available outside loop l: not
// computed in it.
func (r *reverseGen) definedOutside(v value.Value, l *irutil.Loop) bool {
	b, ok := r.blockOf[irfacts.Unwrap(v)]
	return !ok || !l.Contains(b)
}

// flushLoopSums adds the sums of loop l into their shadows and clears
// them, in blk, on the reverse edge leaving l toward its predecessor p.
func (r *reverseGen) flushLoopSums(blk *ir.Block, l *irutil.Loop, p *ir.Block) error {
	for _, g := range r.partialList {
		if g.load == nil || g.loop != l {
			continue
		}
		sp, err := r.lookupShadow(blk, p, g.load, g.load.Src)
		if err != nil {
			return err
		}
		sum := blk.NewLoad(g.elem, g.slot)
		old := blk.NewLoad(g.elem, sp)
		old.Align = g.load.Align
		st := blk.NewStore(blk.NewFAdd(old, sum), sp)
		st.Align = g.load.Align
		blk.NewStore(rules.ZeroOf(g.elem), g.slot)
	}
	return nil
}

// loadSum is the sum load x's adjoint goes to in serial code, or nil.
func (r *reverseGen) loadSum(x *ir.InstLoad) *scalarPartial {
	if r.parallel {
		return nil
	}
	g := r.partials[x]
	if g == nil || g.load == nil {
		return nil
	}
	return g
}
