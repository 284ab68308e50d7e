package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Entry counters recomputed: the reverse sweep tells a loop's first
// iteration from the others by the loop's linear counter on entry (see
// entryCount), a forward value of the loop around it. Cached, it costs 8
// bytes per iteration of that outer loop. Where the nest is rectangular
// enough, the reverse computes it instead: for loop l inside loop p,
//
//	entry = base + (k_p - entry_p) · n_l
//
// where base is l's counter on entry to p (a forward value outside p,
// cached per iteration of the loop around p, if any), k_p - entry_p is the
// number of the current iteration of p within its entry, and n_l is l's
// header count on one entry, computed from its trip count. This holds when
// every earlier iteration of the same entry of p entered l exactly once
// (enteredEveryIteration) and ran n_l header executions (l's exits all test one induction variable
// against bounds invariant in p, in blocks every iteration reaches: the
// analysis of hoist.go's chainInvariant), and when n_l is exact (signed
// comparisons, or != on 64-bit induction variables, see exactCount) and
// computable in the reverse from values defined outside p. A loop entered
// at most once per call (enteredOnce) has entry counter 0. Otherwise the
// entry counter stays cached.

// entryPlan is what the reverse needs to recompute loop l's entry counter.
type entryPlan struct {
	tc       *tripCount
	pOutside *ir.Block    // the block entering l's parent loop
	base     *ir.InstLoad // forward: l's counter on entry to its parent loop (nil: 0, see enteredOnce)
}

// entryCountLoop returns the loop whose entry counter forward value fv is,
// or nil.
func (r *reverseGen) entryCountLoop(fv value.Value) *irutil.Loop {
	c0, ok := fv.(*ir.InstLoad)
	if !ok {
		return nil
	}
	if r.entryLoops == nil {
		r.entryLoops = map[*ir.InstLoad]*irutil.Loop{}
		for h, c := range r.entryCount {
			r.entryLoops[c] = r.cfg.LoopOf[h]
		}
	}
	return r.entryLoops[c0]
}

// planEntryCount returns (memoized) the plan recomputing l's entry counter,
// or nil where the nest does not prove it.
func (r *reverseGen) planEntryCount(l *irutil.Loop) *entryPlan {
	if plan, ok := r.entryPlans[l]; ok {
		return plan
	}
	if r.entryPlans == nil {
		r.entryPlans = map[*irutil.Loop]*entryPlan{}
	}
	plan := r.proveEntryCount(l)
	r.entryPlans[l] = plan
	return plan
}

func (r *reverseGen) proveEntryCount(l *irutil.Loop) *entryPlan {
	p := l.Parent
	if p == nil {
		return nil
	}
	if _, _, ok := r.simpleHeader(l.Header); !ok {
		return nil
	}
	pOutside, pLatch, ok := r.simpleHeader(p.Header)
	memo := map[value.Value]bool{}
	pInvariant := func(v value.Value) bool { return r.invariantIn(v, p, p, memo) }
	if !ok || !r.enteredEveryIteration(l, pLatch, pInvariant) {
		return nil // an iteration of p may skip l
	}
	if _, ok := r.entryCount[p.Header]; !ok {
		return nil
	}
	if !r.chainInvariant(l, p, map[value.Value]bool{}) {
		return nil
	}
	tc, ok := r.analyzeTripCount(l)
	if !ok || r.definedIn(p, tc.start) || r.definedIn(p, tc.bound) || !exactCount(tc) {
		return nil
	}
	plan := &entryPlan{tc: tc, pOutside: pOutside}
	if !r.enteredOnce(p) {
		plan.base = ir.NewLoad(types.I64, r.loops[l].counter)
		tail := r.fwdTail[pOutside]
		tail.Insts = append(tail.Insts, plan.base)
		r.blockOf[plan.base] = pOutside
	}
	return plan
}

// enteredOnce reports whether loop l is entered at most once per call: an
// outermost loop that cannot come back to the block entering it. Its
// counter on entry is 0, and so is the counter of every loop inside it.
func (r *reverseGen) enteredOnce(l *irutil.Loop) bool {
	outside, _, ok := r.simpleHeader(l.Header)
	return ok && l.Parent == nil && !r.reachable(l.Header)[outside]
}

// enteredEveryIteration reports whether every iteration of l's parent p
// that reaches p's latch enters l, or none of an entry of p does. Where
// one iteration entered l, then, all earlier ones of the same entry of p
// did. None enters l twice: that would need a cycle in p's body around l,
// a loop between l and p.
//
// A block of p outside l is undecided when from it the latch can be
// reached both through l's header and around it. Two iterations follow the same blocks
// while these are undecided if each undecided block with two successors
// that still reach the latch branches on a condition for which invariant
// holds (one invariant in p, as the zero-trip guards of rotated loops):
// they then reach the same decided block, from which either every way to
// the latch enters l or none does.
func (r *reverseGen) enteredEveryIteration(l *irutil.Loop, pLatch *ir.Block, invariant func(value.Value) bool) bool {
	p := l.Parent
	if r.cfg.Dominates(l.Header, pLatch) {
		return true
	}
	enters := func(b *ir.Block) bool { return r.reachesInIteration(p, b, l.Header, nil) }
	skips := func(b *ir.Block) bool { return r.reachesInIteration(p, b, pLatch, l.Header) }
	for b := range p.Blocks {
		if l.Contains(b) || !enters(b) || !skips(b) {
			continue
		}
		live := 0
		for _, s := range irutil.Succs(b) {
			if p.Contains(s) && s != p.Header && (enters(s) || skips(s)) {
				live++
			}
		}
		if live < 2 {
			continue
		}
		br, ok := b.Term.(*ir.TermCondBr)
		if !ok || !invariant(br.Cond) {
			return false
		}
	}
	return true
}

// reachesInIteration reports whether a path runs from block from to block
// to within one iteration of loop p (not back through p's header),
// avoiding block avoid.
func (r *reverseGen) reachesInIteration(p *irutil.Loop, from, to, avoid *ir.Block) bool {
	return from != avoid && reaches(from, to, func(b *ir.Block) bool { return b == avoid || b == p.Header || !p.Contains(b) })
}

// exactCount reports whether headerCount is the exact header count of a
// loop with trip count tc that terminates: the induction variable runs
// monotonically to the bound without wrapping (signed comparisons, whose
// overflow C leaves undefined), or it meets the bound exactly (!= on a
// 64-bit variable with a step of at most 16: missing the bound, or
// starting past it, it would wrap around, 2^59 iterations and more).
func exactCount(tc *tripCount) bool {
	switch tc.pred {
	case enum.IPredSLT, enum.IPredSLE, enum.IPredSGT, enum.IPredSGE:
		return true
	case enum.IPredNE:
		it, ok := tc.phi.Typ.(*types.IntType)
		return ok && it.BitSize == 64 && tc.step >= -16 && tc.step <= 16
	}
	return false
}

// recomputedEntryCount emits, in reverse block blk (the reverse of primal
// block at), forward value fv when it is the entry counter of a loop whose
// nest proves the formula above and at lies in that loop's parent.
func (r *reverseGen) recomputedEntryCount(blk, at *ir.Block, fv value.Value, depth int) (value.Value, bool) {
	if depth > rematDepth {
		return nil, false
	}
	l := r.entryCountLoop(fv)
	if l != nil && r.enteredOnce(l) {
		return constant.NewInt(types.I64, 0), true
	}
	if l == nil || l.Parent == nil || !l.Parent.Contains(at) {
		return nil, false
	}
	plan := r.planEntryCount(l)
	if plan == nil {
		return nil, false
	}
	start, ok1 := r.operandInReverse(blk, at, r.mapValue(unwrapArg(plan.tc.start)), depth+1)
	bound, ok2 := r.operandInReverse(blk, at, r.mapValue(unwrapArg(plan.tc.bound)), depth+1)
	if !ok1 || !ok2 {
		return nil, false
	}
	n := r.headerCount(blk, plan.tc, func(v value.Value) value.Value {
		if v == plan.tc.start {
			return start
		}
		return bound
	}, false)
	p := l.Parent
	var base value.Value = constant.NewInt(types.I64, 0)
	if plan.base != nil {
		base = r.lookupAt(blk, at, plan.base, plan.pOutside, depth+1)
	}
	c0p := r.entryCount[p.Header]
	k := blk.NewSub(blk.NewLoad(types.I64, r.loops[p].counter), r.lookupAt(blk, at, c0p, plan.pOutside, depth+1))
	return blk.NewAdd(base, blk.NewMul(k, n)), true
}

// decidingBranch recognizes a block b with two predecessors whose
// immediate dominator d, in b's loop, ends in a conditional branch that
// decides which of them the forward sweep came from: from d's true
// successor paths reach b (without passing d or b again) through one of
// them only, from the false one through the other only. The reverse reads
// d's condition (often invariant, as a rotated loop's zero-trip guard)
// instead of a predecessor record per iteration. triangle and diamond
// are its simplest shapes.
func (r *reverseGen) decidingBranch(b *ir.Block) (onTrue, onFalse *ir.Block, cond value.Value, ok bool) {
	preds := r.cfg.Preds[b]
	d := r.cfg.IDom[b]
	if len(preds) != 2 || d == nil || r.cfg.LoopOf[d] != r.cfg.LoopOf[b] {
		return nil, nil, nil, false
	}
	br, isCond := d.Term.(*ir.TermCondBr)
	if !isCond || br.TargetTrue == br.TargetFalse {
		return nil, nil, nil, false
	}
	// through returns the one predecessor paths from s reach b through.
	through := func(s *ir.Block) *ir.Block {
		if s == b {
			if d == preds[0] || d == preds[1] {
				return d
			}
			return nil
		}
		var found *ir.Block
		for _, p := range preds {
			if p != d && reaches(s, p, func(x *ir.Block) bool { return x == d || x == b }) {
				if found != nil {
					return nil
				}
				found = p
			}
		}
		return found
	}
	t, f := through(br.TargetTrue.(*ir.Block)), through(br.TargetFalse.(*ir.Block))
	if t == nil || f == nil || t == f {
		return nil, nil, nil, false
	}
	return t, f, br.Cond, true
}

// reaches reports whether a path runs from block from to block to through
// no block for which stop holds (from and to excepted).
func reaches(from, to *ir.Block, stop func(*ir.Block) bool) bool {
	if from == to {
		return true
	}
	seen := map[*ir.Block]bool{}
	stack := irutil.Succs(from)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if seen[x] || stop(x) {
			continue
		}
		seen[x] = true
		stack = append(stack, irutil.Succs(x)...)
	}
	return false
}
