package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Entry counters from the exit: the reverse sweep enters a loop's reverse
// only from below, on the reverse of an edge leaving the loop, where the
// loop's counter still holds its value at that exit: its value on entry
// plus the loop's header count (the forward header advances it once per
// execution). Where that count is exact (counters.go's exactCount, every
// exit testing the same induction variable against the same bound), the
// reverse computes it on that edge from the loop's start and bound (their
// forward values in the iteration of the loop around that the reverse is
// in), subtracts it from the counter, and keeps the entry counter in a
// reverse slot that the loop's reverse reads: no forward load and no cache
// per entry. Where start and bound are invariant in the loops around, the
// optimizer after AD hoists the count, and an entry costs one subtraction.
// Where they change (a triangular nest), they are looked up like any other
// forward value: recomputed, or cached in the loop around's records (often
// already, for other uses), in place of the entry counter.

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
	for _, v := range []value.Value{tc.start, tc.bound} {
		v = unwrapArg(v)
		if _, isInst := v.(ir.Instruction); isInst && r.blockOf[v] == nil {
			return nil, false // not a value the reverse can look up
		}
	}
	return tc, true
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
// of the primal edge from p (in l) to a block outside.
type exitEdge struct {
	e, p *ir.Block
	l    *irutil.Loop
}

// noteExitEdge remembers reverse edge block e (the reverse of the primal
// edge from p to b) for every loop it enters from below, before the edge
// steps their counters back.
func (r *reverseGen) noteExitEdge(e, p, b *ir.Block) {
	for l := r.cfg.LoopOf[p]; l != nil && !l.Contains(b); l = l.Parent {
		r.exitEdges = append(r.exitEdges, exitEdge{e, p, l})
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
			// Read as in the reverse of p: start and bound dominate it
			// (not always the exit block, which may be reached around
			// the loop).
			w, _ := r.operandInReverse(pre, x.p, r.mapValue(unwrapArg(v)), 1)
			return w
		}, false)
		if r.localCounter(x.l) {
			pre.NewStore(n, r.loops[x.l].counter)
			pre.NewStore(constant.NewInt(types.I64, 0), s)
		} else {
			c := pre.NewLoad(types.I64, r.loops[x.l].counter)
			pre.NewStore(pre.NewSub(c, n), s)
		}
		pre.NewBr(x.e)
	}
}

// localCounter reports whether the reverse of loop l (whose entry counter
// comes from its exits) may count its iterations from its header count
// down to 0 instead of from the forward counter down to its entry value:
// no reverse code reads the counter's forward value. Its reverse reads the
// counter only relative to the entry counter (its header's first
// iteration test, induction variables rebuilt inside it, the entry
// counters of the loops inside it); absolute reads are a record's index (l
// has no records), a hoisted group's slot (none over l's iterations), or
// an induction variable's value after the loop (remat.go notes those, in
// the reverse of code the reverse runs before it enters l's reverse, or
// after it left it, when the counter would hold another entry's count).
// The forward sweep's counter updates are then dead, and the optimizer
// after AD drops them with the entry counter's load: a short inner loop
// keeps no counter in a stack slot across its outer loop's iterations.
func (r *reverseGen) localCounter(l *irutil.Loop) bool {
	if r.loops[l].rec != nil || r.counterReadAfter[l] {
		return false
	}
	for _, h := range r.hoists {
		if h.inner == l {
			return false
		}
	}
	return true
}
