package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Entry counters recomputed: the reverse sweep tells a loop's first
// iteration from the others by the loop's linear counter on entry (see
// entryCount), a forward value of the loop around it. Cached, it costs 8
// bytes per iteration of that outer loop. Where the nest is rectangular
// enough, the reverse computes it instead. More generally, a counter
// snapshot, the value of a counter slot on entry to loop p (a loop's linear
// counter, or a hoisted cache group's fill level, hoist.go), is, in the
// current iteration of p's parent g,
//
//	snapshot(p) = snapshot(g) + (k_g - entry_g) · P
//
// where snapshot(g) is the same counter on entry to g (0 if g is entered
// once per call, else recomputed the same way or cached per iteration of
// the loop around g), k_g - entry_g is the number of the current iteration
// of g within its entry, and P is how far one entry of p advances the
// counter: the product of the header counts of the loops from the
// counter's loop out to p (the entries of a loop's child are its header
// count, or one less when the loop exits from its header; a hoisted
// group's over loop contributes no factor, its iterations share slots).
// This holds when every earlier iteration of the same entry of g entered p
// exactly once, and every entry of p advanced the counter by P: the loops
// from the counter's loop out to p run the same iterations in every
// iteration of g (hoist.go's chainInvariant, and p entered in every
// iteration of g or in none: enteredEveryIteration with g-invariant
// conditions), with exact header counts (cacheplan.ExactCount) computable in the
// reverse from values defined outside g. A loop's entry counter is the
// snapshot of its own counter on entry to it. Otherwise the snapshot stays
// cached.

// snapshot is a forward load of counter slot counter in the block entering
// loop at. The slot advances in the header of loop src; skip, when set, is
// a loop around src whose iterations do not advance it (a hoisted group's
// over loop).
type snapshot struct {
	counter       *ir.InstAlloca
	at, src, skip *irutil.Loop
}

// countFactor is one factor of P: a loop's header count, less one when
// it counts the entries of a child of a loop that exits from its header.
// Where nestChain's exact chain extends past the loop, guards are the
// branches that decide whether an iteration of its parent enters it
// (entrygrow.go): the count is used only where they all lead into it.
type countFactor struct {
	tc     *cacheplan.TripCount
	minus1 bool
	guards []entryGuard
}

// snapshotPlan is what the reverse needs to recompute a snapshot from the
// snapshot on entry to the loop around.
type snapshotPlan struct {
	factors  []countFactor
	gOutside *ir.Block // the block entering the loop around
}

// snapshotOf returns the snapshot forward value fv is, if it is one.
func (r *reverseGen) snapshotOf(fv value.Value) (snapshot, bool) {
	c0, ok := fv.(*ir.InstLoad)
	if !ok {
		return snapshot{}, false
	}
	r.initSnapshots()
	s, ok := r.snapOf[c0]
	return s, ok
}

// initSnapshots registers every loop's entry counter as a snapshot.
func (r *reverseGen) initSnapshots() {
	if r.snapOf != nil {
		return
	}
	r.snapOf = map[*ir.InstLoad]snapshot{}
	r.snapLoads = map[snapshot]*ir.InstLoad{}
	for h, c := range r.entryCount {
		l := r.cfg.LoopOf[h]
		r.addSnapshot(snapshot{counter: r.loops[l].counter, at: l, src: l}, c)
	}
}

func (r *reverseGen) addSnapshot(s snapshot, ld *ir.InstLoad) {
	r.initSnapshots()
	r.snapOf[ld] = s
	r.snapLoads[s] = ld
}

// snapshotLoad returns the forward load of snapshot s, emitting it at the
// end of the block entering s.at on first use.
func (r *reverseGen) snapshotLoad(s snapshot) (*ir.InstLoad, *ir.Block) {
	r.initSnapshots()
	outside, _, _ := r.primal().SimpleHeader(s.at.Header)
	if ld, ok := r.snapLoads[s]; ok {
		return ld, outside
	}
	ld := ir.NewLoad(types.I64, s.counter)
	tail := r.fwdTail[outside]
	tail.Insts = append(tail.Insts, ld)
	r.blockOf[ld] = outside
	r.addSnapshot(s, ld)
	return ld, outside
}

// planSnapshot returns (memoized) the plan recomputing snapshot s from the
// one on entry to the loop around s.at, or nil where the nest does not
// prove it.
func (r *reverseGen) planSnapshot(s snapshot) *snapshotPlan {
	if plan, ok := r.snapPlans[s]; ok {
		return plan
	}
	if r.snapPlans == nil {
		r.snapPlans = map[snapshot]*snapshotPlan{}
	}
	plan := r.proveSnapshot(s)
	r.snapPlans[s] = plan
	return plan
}

// proveSnapshot proves the formula above for snapshot s, or returns nil:
// the snapshot then stays a forward value, recorded per iteration of the
// loop around s.at (one record per execution of s.at). It assumes, and
// proves:
//   - every earlier iteration of the current entry of g entered s.at
//     exactly once (enteredEveryIteration, its guards invariant in g and
//     free of the chain's induction variables: strict);
//   - the loops from the counter's loop out to s.at run the same
//     iterations in every iteration of g (hoist.go's chainInvariant:
//     g-invariant starts and bounds, exits tested in every iteration);
//   - one entry of each of them advances the counter by its header count
//     (cacheplan.ExactCount proves the count; its start and bound are defined
//     outside g, so the reverse reads the values of the current entry of
//     g), and each iteration of a loop of the chain enters the next one
//     once (enteredEveryIteration, childEntries);
//   - g's entry counter is one the reverse knows (entryCount[g]: looked
//     up, recomputed or recorded in its turn).
func (r *reverseGen) proveSnapshot(s snapshot) *snapshotPlan {
	p := s.at
	g := p.Parent
	if g == nil {
		return nil
	}
	if _, _, ok := r.primal().SimpleHeader(p.Header); !ok {
		return nil
	}
	gOutside, gLatch, ok := r.primal().SimpleHeader(g.Header)
	if !ok {
		return nil
	}
	if _, ok := r.entryCount[g.Header]; !ok {
		return nil
	}
	// Guards deciding whether a loop of the chain is entered must decide
	// alike in every iteration of every loop up to g: invariant in g,
	// not depending on induction variables of the chain (strict).
	memo := map[value.Value]bool{}
	strict := func(v value.Value) bool { return r.invariantIn(v, g, g, memo) }
	if !r.enteredEveryIteration(p, gLatch, strict) {
		return nil // an iteration of g may skip p
	}
	if !r.chainInvariant(s.src, g, map[value.Value]bool{}) {
		return nil
	}
	plan := &snapshotPlan{gOutside: gOutside}
	var child *irutil.Loop
	for m := s.src; m != g; child, m = m, m.Parent {
		if m == s.skip {
			// Its iterations share slots: the group advances by the
			// same amount in each entry of it that enters the chain
			// (chainInvariant: alike in every iteration of g).
			continue
		}
		tc, ok := r.analyzeTripCount(m)
		if !ok || r.primal().DefinedIn(g, tc.Start) || r.primal().DefinedIn(g, tc.Bound) || !cacheplan.ExactCount(tc) {
			return nil
		}
		f := countFactor{tc: tc}
		if child != nil {
			// Every iteration of m enters child, or none of any entry of
			// m within an entry of g.
			_, mLatch, _ := r.primal().SimpleHeader(m.Header)
			if !r.enteredEveryIteration(child, mLatch, strict) {
				return nil
			}
			if f.minus1, ok = r.childEntries(m); !ok {
				return nil
			}
		}
		plan.factors = append(plan.factors, f)
	}
	return plan
}

// childEntries tells how many times an iteration-entered child of loop m
// is entered per entry of m: m's header count when m exits only from its
// latch (every iteration reaches it), one less (minus1) when m exits only
// from its header (the last header execution leaves at once).
func (r *reverseGen) childEntries(m *irutil.Loop) (minus1, ok bool) {
	_, latch, _ := r.primal().SimpleHeader(m.Header)
	onlyLatch, onlyHeader := true, true
	for b := range m.Blocks {
		for _, x := range irutil.Succs(b) {
			if !m.Contains(x) {
				onlyLatch = onlyLatch && b == latch
				onlyHeader = onlyHeader && b == m.Header
			}
		}
	}
	return !onlyLatch, onlyLatch || onlyHeader
}

// enteredOnce reports whether loop l is entered at most once per call: an
// outermost loop that cannot come back to the block entering it. Its
// counter on entry is 0, and so is the counter of every loop inside it.
func (r *reverseGen) enteredOnce(l *irutil.Loop) bool {
	outside, _, ok := r.primal().SimpleHeader(l.Header)
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
// holds (one invariant in p, as the zero-trip guards of rotated loops), or
// lies in a loop inside p that leaves to one block only (its branches
// decide how long that loop runs, not where the iteration goes after it):
// they then reach the same decided block, from which either every way to
// the latch enters l or none does.
func (r *reverseGen) enteredEveryIteration(l *irutil.Loop, pLatch *ir.Block, invariant func(value.Value) bool) bool {
	p := l.Parent
	if r.cfg.Dominates(l.Header, pLatch) {
		return true
	}
	enters := func(b *ir.Block) bool { return cacheplan.ReachesInIteration(p, b, l.Header, nil) }
	skips := func(b *ir.Block) bool { return cacheplan.ReachesInIteration(p, b, pLatch, l.Header) }
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
		if c := r.cfg.LoopOf[b]; c != p && cacheplan.OneExitTarget(c) {
			continue // it decides how long c runs: every way leaves c to one block
		}
		br, ok := b.Term.(*ir.TermCondBr)
		if !ok || !invariant(br.Cond) {
			return false
		}
	}
	return true
}

// recomputedEntryCount emits, in reverse block blk (the reverse of primal
// block at), forward value fv when it is a counter snapshot (a loop's entry
// counter, a hoisted group's fill level) that the formula above recomputes
// at at.
func (r *reverseGen) recomputedEntryCount(blk, at *ir.Block, fv value.Value, depth int) (value.Value, bool) {
	s, ok := r.snapshotOf(fv)
	if !ok || depth > rematDepth {
		return nil, false
	}
	if r.enteredOnce(s.at) {
		return constant.NewInt(types.I64, 0), true
	}
	g := s.at.Parent
	if g == nil || !g.Contains(at) {
		return nil, false
	}
	plan := r.planSnapshot(s)
	if plan == nil {
		return nil, false
	}
	var n value.Value = constant.NewInt(types.I64, 1)
	for _, f := range plan.factors {
		c, ok := r.reverseCount(blk, at, f.tc, depth)
		if !ok {
			return nil, false
		}
		if f.minus1 {
			c = blk.NewSub(c, constant.NewInt(types.I64, 1))
		}
		if len(plan.factors) == 1 {
			n = c
		} else {
			n = blk.NewMul(n, c)
		}
	}
	var base value.Value = constant.NewInt(types.I64, 0)
	if !r.enteredOnce(g) {
		outer, def := r.snapshotLoad(snapshot{counter: s.counter, at: g, src: s.src, skip: s.skip})
		base = r.lookupAt(blk, at, outer, def, depth+1)
	}
	cur := blk.NewLoad(types.I64, r.loops[g].counter)
	entry := r.lookupAt(blk, at, r.entryCount[g.Header], plan.gOutside, depth+1)
	r.relativeRead(g, cur, entry)
	k := blk.NewSub(cur, entry)
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
	t, f := cacheplan.PredsThrough(b, d, br.TargetTrue.(*ir.Block), preds), cacheplan.PredsThrough(b, d, br.TargetFalse.(*ir.Block), preds)
	if len(t) != 1 || len(f) != 1 || t[0] == f[0] {
		return nil, nil, nil, false
	}
	return t[0], f[0], br.Cond, true
}
