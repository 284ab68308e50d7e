package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Entry counters from the exit: the reverse sweep enters a loop's reverse
// only from below, on the reverse of an edge leaving the loop, where the
// loop's counter still holds its value at that exit: its value on entry
// plus the loop's header count (the forward header advances it once per
// execution). Where that count is exact (counters.go's exactCount, every
// exit testing the same induction variable) and computable there from
// values defined outside the loop around, the reverse subtracts it on
// that edge and keeps the entry counter in a slot of its own that the
// loop's reverse reads: no forward load, no cache per entry, and a count
// invariant in the loop around, which the optimizer after AD hoists.

// exitEntry reports whether the reverse of loop l recomputes l's entry
// counter on the edges entering it from below.
func (r *reverseGen) exitEntry(l *irutil.Loop) (*tripCount, bool) {
	if _, ok := r.entryCount[l.Header]; !ok {
		return nil, false
	}
	if _, _, ok := r.simpleHeader(l.Header); !ok {
		return nil, false
	}
	tc, ok := r.analyzeTripCount(l)
	if !ok || !exactCount(tc) {
		return nil, false
	}
	if g := l.Parent; g != nil && (!r.fromOutside(g, tc.start) || !r.fromOutside(g, tc.bound)) {
		return nil, false // the count changes between iterations of g
	}
	return tc, true
}

// fromOutside reports whether the reverse rebuilds primal value v,
// read in loop g, from values defined outside g: v is one of them, or a
// merge phi in g picking one of them by a branch condition defined outside
// g (the start of a vectorized loop's remainder, 0 or where the vector
// loop stopped; mergephi.go rebuilds it as a select).
func (r *reverseGen) fromOutside(g *irutil.Loop, v value.Value) bool {
	v = unwrapArg(v)
	if !r.definedIn(g, v) {
		return true
	}
	p, ok := v.(*ir.InstPhi)
	if !ok {
		return false
	}
	ops, byIndex, ok := r.mergeOperands(p)
	if !ok || byIndex {
		return false
	}
	for _, op := range ops {
		if r.definedIn(g, unwrapArg(op)) {
			return false
		}
	}
	return true
}

// exitEntrySlot returns the reverse slot holding l's entry counter,
// creating it on first use (the edges store it, finishExitEntries).
func (r *reverseGen) exitEntrySlot(l *irutil.Loop) *ir.InstAlloca {
	if s, ok := r.exitSlots[l]; ok {
		return s
	}
	if r.exitSlots == nil {
		r.exitSlots = map[*irutil.Loop]*ir.InstAlloca{}
	}
	s := r.newSlot(types.I64, nil)
	r.exitSlots[l] = s
	return s
}

// exitEntryLookup returns, for code emitted in the reverse of primal block
// at, forward value fv when it is the entry counter of a loop around at
// whose reverse recomputes it on entry (exitEntry).
func (r *reverseGen) exitEntryLookup(blk, at *ir.Block, fv value.Value) (value.Value, bool) {
	s, ok := r.snapshotOf(fv)
	if !ok || s.at != s.src || s.skip != nil || !s.at.Contains(at) {
		return nil, false
	}
	if _, ok := r.exitEntry(s.at); !ok {
		return nil, false
	}
	return blk.NewLoad(types.I64, r.exitEntrySlot(s.at)), true
}

// exitEdge is a reverse edge block entering loop l from below: the reverse
// of primal edge from (in l) to b (outside).
type exitEdge struct {
	e, b *ir.Block
	l    *irutil.Loop
}

// noteExitEdge remembers reverse edge block e (the reverse of the primal
// edge from p to b) for every loop it enters from below, before the edge
// steps their counters back.
func (r *reverseGen) noteExitEdge(e, p, b *ir.Block) {
	for l := r.cfg.LoopOf[p]; l != nil && !l.Contains(b); l = l.Parent {
		r.exitEdges = append(r.exitEdges, exitEdge{e, b, l})
	}
}

// finishExitEntries emits, for every loop whose reverse read its entry
// counter from its slot, the slot's value on each edge entering its
// reverse: counter - header count, in a block before the edge's own code
// (which steps the counter back).
func (r *reverseGen) finishExitEntries() {
	for _, x := range r.exitEdges {
		s, used := r.exitSlots[x.l]
		if !used {
			continue
		}
		tc, _ := r.exitEntry(x.l)
		pre := r.g.NewBlock("")
		for _, b := range r.g.Blocks {
			if b.Term != nil && b != pre {
				retarget(b.Term, x.e, pre)
			}
		}
		n := r.headerCount(pre, tc, func(v value.Value) value.Value {
			w, _ := r.operandInReverse(pre, x.b, r.mapValue(unwrapArg(v)), 1)
			return w
		}, false)
		c := pre.NewLoad(types.I64, r.loops[x.l].counter)
		pre.NewStore(pre.NewSub(c, n), s)
		pre.NewBr(x.e)
	}
}
