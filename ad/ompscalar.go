package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Per-thread partial adjoints of shared scalars. A loop of a parallel
// region that reads a shared scalar (a parameter's memory: a shared
// variable) in its iterations would add into the scalar's shadow
// atomically in every iteration of its reverse, all threads at the same
// address. Instead each thread sums those adjoints in a private slot and
// adds the sum into the shadow once (atomically) where the deferred adds
// could matter:
//   - leaving the loop's reverse (upward, through its header);
//   - before the reverse of a store in the loop whose shadow overlaps the
//     scalar's (tested at run time: the addresses are not known to
//     differ; the reverse of a store reads and clears the shadow);
//   - before the mirror of a barrier, lock or unlock (another thread may
//     read the shadow after it).
// Other threads cannot read or clear the scalar's shadow while the loop's
// reverse runs: that would be a store of the scalar racing with the reads
// in the primal. Loops that call functions with shadowed memory, copy it,
// or update it atomically keep the atomic adds.

// scalarPartial is the private sum of the adjoints of a shared scalar's
// loads in one loop.
type scalarPartial struct {
	param *ir.Param      // the shared scalar's memory
	elem  types.Type     // its float type
	slot  *ir.InstAlloca // the thread's partial sum (reverse side)
	loop  *irutil.Loop   // the outermost loop reading it
	load  *ir.InstLoad   // serial code: the load whose adjoints it sums (loopsum.go)
}

// partialOf returns the partial sum load x adds into, or nil.
func (r *reverseGen) partialOf(x *ir.InstLoad) *scalarPartial {
	return r.partials[x]
}

// preparePartials finds the partial sums of a parallel region's reverse
// before any of it is emitted (stores' reverses test them all).
func (r *reverseGen) preparePartials() {
	if r.parallel {
		r.partials = r.findPartials()
	} else if !r.d.gpu && !r.d.runtimeActivity {
		r.partials = r.findLoopSums()
	}
}

// findPartials lists the loads of shared scalars (a float at a shadowed
// parameter, not an element an iteration owns) in outermost loops that
// allow deferring their adds (see above), grouped by scalar and loop.
func (r *reverseGen) findPartials() map[*ir.InstLoad]*scalarPartial {
	out := map[*ir.InstLoad]*scalarPartial{}
	type key struct {
		p *ir.Param
		l *irutil.Loop
	}
	groups := map[key]*scalarPartial{}
	unsafe := map[*irutil.Loop]bool{}
	for _, b := range r.f.Blocks {
		l := r.outermostLoop(b)
		if l == nil {
			continue
		}
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstCall:
				if irfacts.IsMemTransfer(x) || irfacts.IsMemSet(x) || irfacts.IsMaskedLoad(x) || irfacts.IsMaskedStore(x) || !r.callLeavesShadowsAlone(x) {
					unsafe[l] = true
				}
			case *ir.InstAtomicRMW, *ir.InstCmpXchg:
				unsafe[l] = true
			}
		}
	}
	for _, b := range r.f.Blocks {
		l := r.outermostLoop(b)
		if l == nil || unsafe[l] {
			continue
		}
		for _, inst := range b.Insts {
			x, ok := inst.(*ir.InstLoad)
			if !ok || !irfacts.IsFloat(x.ElemType) || !r.act.Active(x) || r.ownedLoads()[x] {
				continue
			}
			p, ok := stripPointerCasts(x.Src).(*ir.Param)
			if !ok || !r.act.HasShadow(p) {
				continue
			}
			k := key{p, l}
			g := groups[k]
			if g == nil {
				g = &scalarPartial{param: p, elem: x.ElemType, loop: l}
				groups[k] = g
				r.partialList = append(r.partialList, g)
			}
			if !types.Equal(g.elem, x.ElemType) {
				continue // read as two types: keep the atomics
			}
			r.partialSlot(g) // before any reverse code: stores test it
			out[x] = g
		}
	}
	return out
}

// outermostLoop is the outermost loop holding b, nil outside loops.
func (r *reverseGen) outermostLoop(b *ir.Block) *irutil.Loop {
	l := r.cfg.LoopOf[b]
	for l != nil && l.Parent != nil {
		l = l.Parent
	}
	return l
}

// stripPointerCasts follows bitcasts back.
func stripPointerCasts(v value.Value) value.Value {
	v = irfacts.Unwrap(v)
	for {
		bc, ok := v.(*ir.InstBitCast)
		if !ok {
			return v
		}
		v = irfacts.Unwrap(bc.From)
	}
}

// partialSlot returns g's slot, creating it zeroed.
func (r *reverseGen) partialSlot(g *scalarPartial) *ir.InstAlloca {
	if g.slot == nil {
		g.slot = r.newSlot(g.elem, rules.ZeroOf(g.elem))
	}
	return g.slot
}

// addToPartial is the reverse of a shared scalar's load: d into the
// thread's partial sum.
func (r *reverseGen) addToPartial(blk *ir.Block, g *scalarPartial, d value.Value) {
	s := r.partialSlot(g)
	blk.NewStore(blk.NewFAdd(blk.NewLoad(g.elem, s), d), s)
}

// flushPartial adds g's partial sum, where not zero, into the scalar's
// shadow (atomically) and clears it; it returns the block after.
func (r *reverseGen) flushPartial(blk *ir.Block, g *scalarPartial) *ir.Block {
	sum := blk.NewLoad(g.elem, g.slot)
	add, next := r.g.NewBlock(""), r.g.NewBlock("")
	blk.NewCondBr(blk.NewFCmp(enum.FPredUNE, sum, rules.ZeroOf(g.elem)), add, next)
	dst := add.NewBitCast(r.shadow[g.param], types.NewPointer(g.elem))
	atomicAddScalars(add, dst, sum)
	add.NewStore(rules.ZeroOf(g.elem), g.slot)
	add.NewBr(next)
	return next
}

// flushPartials flushes every partial sum (before a mirrored barrier or
// lock), or those of loop l when l is not nil (leaving its reverse); it
// returns the block after.
func (r *reverseGen) flushPartials(blk *ir.Block, l *irutil.Loop) *ir.Block {
	for _, g := range r.partialList {
		if g.load == nil && (l == nil || g.loop == l) {
			blk = r.flushPartial(blk, g)
		}
	}
	return blk
}

// flushOverlapping emits, before the reverse of store x (in a loop with
// partial sums), the flush of the partial sums whose scalar's shadow the
// store's shadow sp overlaps; it returns the block emission goes on in.
func (r *reverseGen) flushOverlapping(blk, at *ir.Block, x *ir.InstStore, sp value.Value) *ir.Block {
	if !r.parallel || len(r.partialList) == 0 {
		return blk
	}
	l := r.outermostLoop(at)
	size, _, ok := abiLayout(x.Src.Type())
	for _, g := range r.partialList {
		if g.loop != l {
			continue
		}
		gsize, _, _ := abiLayout(g.elem)
		if !ok {
			blk = r.flushIf(blk, g, constant.True)
			continue
		}
		// [sp, sp+size) and [dS, dS+gsize) overlap.
		lo := blk.NewPtrToInt(sp, types.I64)
		hi := blk.NewAdd(lo, constant.NewInt(types.I64, int64(size)))
		slo := blk.NewPtrToInt(r.shadow[g.param], types.I64)
		shi := blk.NewAdd(slo, constant.NewInt(types.I64, int64(gsize)))
		overlap := blk.NewAnd(blk.NewICmp(enum.IPredULT, lo, shi), blk.NewICmp(enum.IPredULT, slo, hi))
		blk = r.flushIf(blk, g, overlap)
	}
	return blk
}

// flushIf flushes g where cond holds, returning the block after.
func (r *reverseGen) flushIf(blk *ir.Block, g *scalarPartial, cond value.Value) *ir.Block {
	flush, next := r.g.NewBlock(""), r.g.NewBlock("")
	blk.NewCondBr(cond, flush, next)
	r.flushPartial(flush, g).NewBr(next)
	return next
}
