package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Trip counts (cacheplan.TripCount) size the forward sweep's loop buffers:
// the reservation below is made on entry to the outermost loop of a nest
// whose counts are known there.

// primal is the primal function as package cacheplan reads it.
func (r *reverseGen) primal() cacheplan.Primal {
	return cacheplan.Primal{F: r.f, CFG: r.cfg, BlockOf: r.blockOf}
}

// tripResult is analyzeTripCount's answer for one loop.
type tripResult struct {
	tc *cacheplan.TripCount
	ok bool
}

// analyzeTripCount finds the trip count of loop l, if every exit of l tests
// the same induction variable against the same invariant bound. It reads
// only the primal, which generating leaves alone, so the answer is kept per
// loop once generate has placed the primal's values in their blocks.
func (r *reverseGen) analyzeTripCount(l *irutil.Loop) (*cacheplan.TripCount, bool) {
	if res, ok := r.tripCounts[l]; ok {
		return res.tc, res.ok
	}
	tc, ok := r.primal().TripCount(l)
	if r.tripCounts != nil {
		r.tripCounts[l] = tripResult{tc, ok}
	}
	return tc, ok
}

// reservation emits, on entry to the outermost loop around l whose nest
// has trip counts known there, the capacity l's buffers need for that whole
// execution: the current counter plus the product of the header counts
// (an outer loop's less one where it exits from its header only: its last
// header execution enters nothing).
// It returns nil when l's own trip count is unknown.
func (r *reverseGen) reservation(l *irutil.Loop) value.Value {
	return r.reserve(l, nil, r.loops[l].counter)
}

// reserve is reservation for buffers filled up to counter, whose slots
// do not count the iterations of loop skip (hoist.go): skip's trip count
// is left out of the product.
func (r *reverseGen) reserve(l, skip *irutil.Loop, counter *ir.InstAlloca) value.Value {
	top, chain := r.nestChain(l, skip, false)
	if len(chain) == 0 && top != skip {
		return nil
	}
	outside, _, _ := r.primal().SimpleHeader(top.Header)
	blk := r.fwdTail[outside]
	limit := constant.NewInt(types.I64, cacheplan.ReserveLimit)
	var n value.Value = constant.NewInt(types.I64, 1)
	val := r.entryValue(blk, top)
	for _, f := range chain {
		n = blk.NewMul(n, emitFactor(blk, f, val, true))
		big := blk.NewICmp(enum.IPredUGT, n, limit)
		n = blk.NewSelect(big, constant.NewInt(types.I64, cacheplan.ReserveLimit+1), n)
	}
	c := blk.NewLoad(types.I64, counter)
	need := blk.NewAdd(c, n)
	tooBig := blk.NewICmp(enum.IPredUGT, n, limit)
	return blk.NewSelect(tooBig, constant.NewInt(types.I64, 0), need)
}

// emitFactor emits into blk the header count of f's loop, less one where
// f says so, with primal start and bound mapped by val, clamped as
// cacheplan.HeaderCount's clamp says.
func emitFactor(blk *ir.Block, f countFactor, val func(value.Value) value.Value, clamp bool) value.Value {
	c := cacheplan.HeaderCount(blk, f.tc, val, clamp)
	if f.minus1 {
		c = blk.NewSub(c, constant.NewInt(types.I64, 1))
	}
	return c
}

// nestChain returns the trip counts of l and of the loops around it, out
// to the outermost loop top whose entry knows them all: each is known
// (skip's is left out) and computed from values defined outside top (or,
// for a start, from merge phis of them: entryInvariant). An
// outer loop's factor is one less where it exits from its header only (its
// last header execution enters nothing). With exact set, only exact counts
// (cacheplan.ExactCount) extend the chain, and a loop's parent joins it only where
// the branches deciding whether an iteration of the parent enters the
// loop are known on entry to top (entryGuards): the loop's factor keeps
// them, as its count is meaningful only where it is entered.
func (r *reverseGen) nestChain(l, skip *irutil.Loop, exact bool) (top *irutil.Loop, chain []countFactor) {
	top = l
	for cur, child := l, (*irutil.Loop)(nil); cur != nil; child, cur = cur, cur.Parent {
		tc, ok := r.analyzeTripCount(cur)
		if cur == skip {
			tc, ok = nil, true
		}
		if !ok || (exact && tc != nil && !cacheplan.ExactCount(tc)) {
			break
		}
		var guards []entryGuard
		if exact && cur != l {
			// The child's count is meaningful only where it is entered
			// (a vector loop's count, where its guards skip it, is not).
			if guards, ok = r.entryGuards(child); !ok {
				break
			}
		}
		invariant := true
		for _, f := range chain {
			if !r.entryInvariant(cur, f.tc.Start, mergeDepth) || r.primal().DefinedIn(cur, f.tc.Bound) {
				invariant = false
			}
			for _, g := range f.guards {
				for _, c := range g.conds() {
					invariant = invariant && !r.primal().DefinedIn(cur, c)
				}
			}
		}
		for _, g := range guards {
			for _, c := range g.conds() {
				invariant = invariant && !r.primal().DefinedIn(cur, c)
			}
		}
		if tc != nil && (!r.entryInvariant(cur, tc.Start, mergeDepth) || r.primal().DefinedIn(cur, tc.Bound)) {
			invariant = false
		}
		if !invariant {
			break
		}
		if len(guards) > 0 {
			chain[len(chain)-1].guards = guards
		}
		if tc != nil {
			f := countFactor{tc: tc}
			if cur != l {
				// An outer loop exiting from its header enters the loop
				// inside it one time less than it runs its header.
				minus1, ok := r.childEntries(cur)
				f.minus1 = ok && minus1
			}
			chain = append(chain, f)
		}
		top = cur
	}
	return top, chain
}
