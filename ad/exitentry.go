package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
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
// execution). Where that count is exact (cacheplan.ExactCount, every
// exit testing the same induction variable against the same bound), the
// reverse computes it on that edge from the loop's start and bound (their
// forward values in the iteration of the loop around that the reverse is
// in), after the edge has stepped the counter back to the last iteration
// (counter + 1 - count), and keeps the entry counter in a reverse slot
// that the loop's reverse reads: no forward load and no cache per entry. Where start and bound are invariant in the loops around, the
// optimizer after AD hoists the count, and an entry costs one subtraction.
// Where they change (a triangular nest), they are looked up like any other
// forward value: recomputed, or cached in the loop around's records (often
// already, for other uses), in place of the entry counter.

// exitEntry reports whether the reverse of loop l recomputes l's entry
// counter on the edges entering it from below. It assumes, and proves:
//   - l's header count is exact (cacheplan.ExactCount: every exit tests the same
//     induction variable against the same bound in every iteration, and
//     the variable cannot wrap past it);
//   - its start and bound have forward values the reverse can look up
//     (both dominate every exiting block: the start enters the header,
//     the bound is an operand of the exit test); finishExitEntries reads
//     them in the state of the reverse of the exiting block;
//   - the reverse of l is entered only from below, on an edge
//     noteExitEdge knows, which stores the slot before l's reverse reads
//     it.
//
// Otherwise the entry counter stays a forward value: recomputed by
// counters.go where that is proven, else recorded per execution of l in
// the records of the loop around (or once, outside every loop).
func (r *reverseGen) exitEntry(l *irutil.Loop) (*cacheplan.TripCount, bool) {
	if _, ok := r.entryCount[l.Header]; !ok {
		return nil, false
	}
	if _, _, ok := r.primal().SimpleHeader(l.Header); !ok {
		return nil, false
	}
	tc, ok := r.analyzeTripCount(l)
	if !ok || !cacheplan.ExactCount(tc) {
		return nil, false
	}
	for _, v := range []value.Value{tc.Start, tc.Bound} {
		// The primal value and its forward copy (reverseCount looks the
		// copy up: a call's result in the augmented forward) must both be
		// values the reverse can look up.
		v = irfacts.Unwrap(v)
		fv := r.mapValue(v)
		for _, x := range []value.Value{v, fv} {
			if _, isInst := x.(ir.Instruction); isInst && r.blockOf[x] == nil {
				return nil, false
			}
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
// edge from p to b) for every loop it enters from below.
func (r *reverseGen) noteExitEdge(e, p, b *ir.Block) {
	for l := r.cfg.LoopOf[p]; l != nil && !l.Contains(b); l = l.Parent {
		r.exitEdges = append(r.exitEdges, exitEdge{e, p, l})
	}
}

// finishExitEntries emits, for every loop whose reverse read its entry
// counter from its slot, the slot's value on each edge entering its
// reverse, in a block after the edge's own code: the edge has stepped back
// the counter of every loop it enters (by one: the counter now indexes the
// loop's last iteration), so the blocks run in the state of the reverse of
// p, where lookups of the count's start and bound (records of the loops
// around p included) read what the forward sweep left in that iteration.
// Read before the step, a record of a loop the edge enters would be read
// one past its last iteration. The slot gets counter + 1 - header count.
// The blocks after one edge run in the order of exitEdges.
func (r *reverseGen) finishExitEntries() error {
	last := map[*ir.Block]*ir.Block{} // edge -> its last block after
	for _, x := range r.exitEdges {
		s, used := r.exitSlots[x.l]
		if !used {
			continue
		}
		tc, _ := r.exitEntry(x.l)
		pre := r.g.NewBlock("")
		prev, ok := last[x.e]
		if !ok {
			prev = x.e
		}
		retarget(prev.Term, r.rev[x.p], pre)
		last[x.e] = pre
		n, ok := r.reverseCount(pre, x.p, tc, 0)
		if !ok {
			// Not expected: exitEntry admits only start and bound values
			// the reverse knows, and both dominate l's header (the start
			// enters it, the bound is invariant in it), so lookupAt
			// serves them. The slot is already read: no fallback.
			return errorAt(r.f, x.p.Term, "internal error: the reverse cannot count the loop's iterations on leaving it")
		}
		c := pre.NewLoad(types.I64, r.loops[x.l].counter)
		d := pre.NewSub(pre.NewAdd(c, constant.NewInt(types.I64, 1)), n)
		st := pre.NewStore(d, s)
		pre.NewBr(r.rev[x.p])
		if r.exitPres == nil {
			r.exitPres = map[*irutil.Loop][]exitPre{}
		}
		r.exitPres[x.l] = append(r.exitPres[x.l], exitPre{pre, n, st})
	}
	return nil
}

// Counters restarted on entry. A loop without records (nothing cached per
// iteration) needs its counter only to count its reverse's iterations: where
// every read of it in the reverse is against the entry counter from the exit
// (a difference or a comparison), the reverse can as well restart it on each
// entry, at the header count, with entry counter 0. The forward sweep then
// reads it nowhere, and the optimizer after AD deletes its increments: the
// loops around carry one value less in both sweeps.

// exitPre is a block storing loop's entry counter on an edge entering its
// reverse (finishExitEntries): store counter + 1 - n into the exit slot.
type exitPre struct {
	pre   *ir.Block
	n     value.Value
	store *ir.InstStore
}

// relativeRead notes a reverse load cur of l's counter whose one use is a
// difference or comparison with entry, when entry is l's entry counter read
// from its exit slot.
func (r *reverseGen) relativeRead(l *irutil.Loop, cur *ir.InstLoad, entry value.Value) {
	ld, ok := entry.(*ir.InstLoad)
	if s, used := r.exitSlots[l]; !ok || !used || ld.Src != s {
		return
	}
	if r.relReads == nil {
		r.relReads = map[*ir.InstLoad]bool{}
	}
	r.relReads[cur] = true
}

// restartCounters restarts, on entry to their reverse, the counters of
// loops without records whose every load in g is a relative read, a step
// (loaded, stepped by a constant, stored back) or unused.
func (r *reverseGen) restartCounters() {
	if len(r.exitPres) == 0 {
		return
	}
	users := instUsers(r.g)
	loads := map[value.Value][]*ir.InstLoad{}
	for _, b := range r.g.Blocks {
		for _, inst := range b.Insts {
			if ld, ok := inst.(*ir.InstLoad); ok {
				loads[ld.Src] = append(loads[ld.Src], ld)
			}
		}
	}
	for _, l := range r.cfg.Loops {
		pres, ok := r.exitPres[l]
		lc := r.loops[l]
		if !ok || (lc.rec != nil && !r.countsFromZero(l)) {
			continue
		}
		own := map[value.Value]bool{}
		for _, x := range pres {
			own[x.counterLoad()] = true // removed below
		}
		// A loop counted from zero restarts at the very values its
		// counter holds there: its other reads need no proof.
		restart := true
		for _, ld := range loads[lc.counter] {
			if own[ld] || lc.rec != nil {
				continue
			}
			if !r.relReads[ld] && len(users[ld]) > 0 && counterStepStore(ld, lc.counter, users) == nil {
				restart = false
				break
			}
		}
		if !restart {
			continue
		}
		for _, x := range pres {
			// pre: ... n ...; c = load counter; c1 = add c, 1;
			// d = sub c1, n; store d, slot. Restarted: the counter
			// indexes the last iteration, n - 1, the entry counter is 0.
			sub := x.store.Src.(*ir.InstSub)
			add := sub.X.(*ir.InstAdd)
			var keep []ir.Instruction
			for _, inst := range x.pre.Insts {
				switch inst {
				case x.store:
					last := ir.NewSub(x.n, constant.NewInt(types.I64, 1))
					keep = append(keep, last, ir.NewStore(last, lc.counter), ir.NewStore(constant.NewInt(types.I64, 0), x.store.Dst))
				case ir.Instruction(sub), ir.Instruction(add), add.X.(ir.Instruction):
				default:
					keep = append(keep, inst)
				}
			}
			x.pre.Insts = keep
		}
	}
}

// Counters from zero. A loop with records reads its counter in the reverse
// as the index of the iteration's record, so a restart must give it the
// very value the forward left: counter + 1 - n at the exit, n the exact
// header count. Where l is in no loop, the CFG being reducible
// (irutil.NewCFG), its header is entered at most once per call, and its
// counter, 0 on entry to the function and advanced by l's header alone,
// is 0 on entry to l: the exit's value is n - 1, the entry counter 0,
// which is what the restart stores. The reverse then reads the forward's
// counter nowhere on the way into l's reverse, and a split pair's tape
// loses the field (a recursion's loop: 8 bytes a call).

// countsFromZero reports whether l's counter is certainly 0 on entry to l
// (and its records, if any, l's own).
func (r *reverseGen) countsFromZero(l *irutil.Loop) bool {
	lc := r.loops[l]
	return l.Parent == nil && lc.owner == nil && len(lc.sharers) == 0
}

// counterLoad is the load of the loop's counter in x's block.
func (x exitPre) counterLoad() value.Value {
	return x.store.Src.(*ir.InstSub).X.(*ir.InstAdd).X
}

// counterStepStore is, where ld's one use steps it by a constant into a
// store back to counter and nothing else, that store; nil otherwise.
func counterStepStore(ld *ir.InstLoad, counter value.Value, users map[value.Value][]ir.Instruction) *ir.InstStore {
	if len(users[ld]) != 1 {
		return nil
	}
	var x, y value.Value
	switch s := users[ld][0].(type) {
	case *ir.InstAdd:
		x, y = s.X, s.Y
	case *ir.InstSub:
		x, y = s.X, s.Y
	default:
		return nil
	}
	if _, isConst := y.(*constant.Int); x != ld || !isConst {
		return nil
	}
	step := users[ld][0].(value.Value)
	if len(users[step]) != 1 {
		return nil
	}
	st, ok := users[step][0].(*ir.InstStore)
	if !ok || st.Src != step || st.Dst != counter {
		return nil
	}
	return st
}

// instUsers maps each operand of g's instructions to the instructions
// using it, a terminator's uses as nil entries (counted, never a step).
func instUsers(g *ir.Func) map[value.Value][]ir.Instruction {
	users := map[value.Value][]ir.Instruction{}
	for _, b := range g.Blocks {
		for _, inst := range b.Insts {
			if u, ok := inst.(interface{ Operands() []*value.Value }); ok {
				for _, op := range u.Operands() {
					users[*op] = append(users[*op], inst)
				}
			}
		}
		if u, ok := b.Term.(interface{ Operands() []*value.Value }); ok {
			for _, op := range u.Operands() {
				users[*op] = append(users[*op], nil)
			}
		}
	}
	return users
}
