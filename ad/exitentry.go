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
// reverse: counter + 1 - header count, in a block after the edge's own
// code, which steps the counter back to the loop's last iteration (so
// that the count's start and bound, read as in the reverse of p, come
// from that iteration's records, as rev(p) reads them). The blocks of one
// edge run in the order of exitEdges.
func (r *reverseGen) finishExitEntries() error {
	last := map[*ir.Block]*ir.Block{} // edge -> the block ending its chain
	for _, x := range r.exitEdges {
		s, used := r.exitSlots[x.l]
		if !used {
			continue
		}
		tc, _ := r.exitEntry(x.l)
		pre := r.g.NewBlock("")
		tail := x.e
		if prev, ok := last[x.e]; ok {
			tail = prev
		}
		br, ok := tail.Term.(*ir.TermBr)
		if !ok {
			return errorAt(r.f, x.p.Term, "internal error: a reverse edge entering a loop does not end in a branch")
		}
		target := br.Target.(*ir.Block)
		retarget(tail.Term, target, pre)
		last[x.e] = pre
		// Read as in the reverse of p: start and bound dominate it (not
		// always the exit block, which may be reached around the loop).
		n, ok := r.reverseCount(pre, x.p, tc, 0)
		if !ok {
			// Not expected: exitEntry admits only start and bound values
			// the reverse knows, and both dominate l's header (the start
			// enters it, the bound is invariant in it), so lookupAt
			// serves them. The slot is already read: no fallback.
			return errorAt(r.f, x.p.Term, "internal error: the reverse cannot count the loop's iterations on leaving it")
		}
		c := pre.NewLoad(types.I64, r.loops[x.l].counter)
		c1 := pre.NewAdd(c, constant.NewInt(types.I64, 1))
		st := pre.NewStore(pre.NewSub(c1, n), s)
		pre.NewBr(target)
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
	users := map[value.Value][]ir.Instruction{}
	loads := map[value.Value][]*ir.InstLoad{}
	for _, b := range r.g.Blocks {
		for _, inst := range b.Insts {
			if ld, ok := inst.(*ir.InstLoad); ok {
				loads[ld.Src] = append(loads[ld.Src], ld)
			}
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
	for _, l := range r.cfg.Loops {
		pres, ok := r.exitPres[l]
		lc := r.loops[l]
		if !ok || lc.rec != nil {
			continue
		}
		own := map[value.Value]bool{}
		for _, x := range pres {
			own[x.store.Src.(*ir.InstSub).X.(*ir.InstAdd).X] = true // removed below
		}
		restart := true
		for _, ld := range loads[lc.counter] {
			if own[ld] {
				continue
			}
			if !r.relReads[ld] && len(users[ld]) > 0 && !counterStep(ld, lc.counter, users) {
				restart = false
				break
			}
		}
		if !restart {
			continue
		}
		for _, x := range pres {
			// pre: ... n ...; c = load counter; c1 = add c, 1; d = sub c1, n;
			// store d, slot. After the edge stepped the counter back: the
			// counter restarts at n - 1 (the last iteration), entry 0.
			sub := x.store.Src.(*ir.InstSub)
			c1 := sub.X.(*ir.InstAdd)
			var keep []ir.Instruction
			for _, inst := range x.pre.Insts {
				switch inst {
				case x.store:
					dec := ir.NewSub(x.n, constant.NewInt(types.I64, 1))
					keep = append(keep, dec, ir.NewStore(dec, lc.counter), ir.NewStore(constant.NewInt(types.I64, 0), x.store.Dst))
				case ir.Instruction(sub), ir.Instruction(c1), c1.X.(ir.Instruction):
				default:
					keep = append(keep, inst)
				}
			}
			x.pre.Insts = keep
		}
	}
}

// counterStep reports whether ld's one use steps it by a constant into a
// store back to counter, and nothing else.
func counterStep(ld *ir.InstLoad, counter value.Value, users map[value.Value][]ir.Instruction) bool {
	if len(users[ld]) != 1 {
		return false
	}
	var x, y value.Value
	switch s := users[ld][0].(type) {
	case *ir.InstAdd:
		x, y = s.X, s.Y
	case *ir.InstSub:
		x, y = s.X, s.Y
	default:
		return false
	}
	if _, isConst := y.(*constant.Int); x != ld || !isConst {
		return false
	}
	step := users[ld][0].(value.Value)
	if len(users[step]) != 1 {
		return false
	}
	st, ok := users[step][0].(*ir.InstStore)
	return ok && st.Src == step && st.Dst == counter
}
