package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Growth on entry to the nest: when loop l and the loops around it out to
// some loop top have exact header counts (tripcount.go, exact in the sense
// of counters.go's exactCount, which the recomputed entry counters rely on
// already) computable on entry to top, the records l writes during one
// execution of top number at most the product of those counts. The buffer
// then grows, once, on the forward edge into top's header, instead of
// testing its capacity in every iteration of l: the loop's forward body
// has no call left, so the optimizer after AD can vectorize and unroll it
// like the primal's, and a short inner loop pays no check at all.

// entryGrowth returns the loop on whose entry l's buffer grows and the
// trip counts whose product bounds l's records per entry of it; ok is
// false where l's buffer keeps the check in its header.
func (r *reverseGen) entryGrowth(l *irutil.Loop) (top *irutil.Loop, chain []countFactor, ok bool) {
	top, chain = r.nestChain(l, nil, true)
	if len(chain) == 0 || chain[0].tc.phi == nil || r.cfg.LoopOf[r.blockOf[chain[0].tc.phi]] != l {
		return nil, nil, false
	}
	outside, _, _ := r.simpleHeader(top.Header)
	edges := 0
	for _, s := range irutil.Succs(outside) {
		if s == top.Header {
			edges++
		}
	}
	return top, chain, edges == 1
}

// growOnEntry emits, on the forward edge into loop top's header, the
// growth check of lc's buffer for the records of one execution of top:
// the buffer's counter plus the product of the factors of chain. It
// grows to need as well, when not nil (the reservation for a larger nest).
func (r *reverseGen) growOnEntry(top *irutil.Loop, chain []countFactor, lc *loopCache, need value.Value) {
	header := r.fwdHead[top.Header]
	pre, ok := r.entryEdge[top]
	if !ok {
		outside, _, _ := r.simpleHeader(top.Header)
		pre = r.fwdTail[outside]
	}
	check, join := r.g.NewBlock(""), r.g.NewBlock("")
	retarget(pre.Term, header, check)
	for _, inst := range header.Insts {
		if phi, ok := inst.(*ir.InstPhi); ok {
			for _, inc := range phi.Incs {
				if inc.Pred == pre {
					inc.Pred = join
				}
			}
		}
	}
	if r.entryEdge == nil {
		r.entryEdge = map[*irutil.Loop]*ir.Block{}
	}
	r.entryEdge[top] = join
	// The product saturates at 2^62 (growRecords asks for more than
	// memory holds beyond 2^48 records).
	limit := constant.NewInt(types.I64, 1<<31)
	val := r.entryValue(check, top)
	n := r.headerCount(check, chain[0].tc, val, false)
	for _, f := range chain[1:] {
		c := r.headerCount(check, f.tc, val, false)
		if f.minus1 {
			c = check.NewSub(c, constant.NewInt(types.I64, 1))
		}
		over := check.NewOr(check.NewICmp(enum.IPredUGT, n, limit), check.NewICmp(enum.IPredUGT, c, limit))
		n = check.NewSelect(over, constant.NewInt(types.I64, 1<<62), check.NewMul(n, c))
	}
	end := check.NewAdd(check.NewLoad(types.I64, lc.counter), n) // one past the last record of this execution
	want := value.Value(end)
	if need != nil {
		// What the trip counts say the loop nest needs, where they reach
		// further out than the exact ones (tripcount.go).
		want = check.NewSelect(check.NewICmp(enum.IPredUGT, need, end), need, end)
	}
	r.growRecords(check, lc, func(b *ir.Block, capv value.Value) value.Value { return b.NewICmp(enum.IPredUGT, end, capv) }, want, join)
	join.NewBr(header)
}

// mergeDepth bounds the merge phis entryInvariant looks through.
const mergeDepth = 4

// entryInvariant reports whether primal value v takes, wherever loop l
// reads it, one value computable on entry to l: it is defined outside l,
// or it is a merge phi in l (a block with two predecessors that is not a
// loop header: the start of a vectorized loop's scalar remainder, 0 or
// where the vector loop stopped) whose predecessor is told by a branch
// condition defined outside l (mergeDecision: a vectorizer's guards) and
// whose incoming values are such values, depth merges deep. Every time
// the forward sweep passes the phi it then holds the select of its
// incoming values by that condition, which entryValue computes on entry.
func (r *reverseGen) entryInvariant(l *irutil.Loop, v value.Value, depth int) bool {
	v = unwrapArg(v)
	if !r.definedIn(l, v) {
		return true
	}
	p, ok := v.(*ir.InstPhi)
	if !ok || depth == 0 {
		return false
	}
	cond, onTrue, onFalse, byIndex, ok := r.mergeDecision(r.blockOf[p])
	if !ok || byIndex || r.definedIn(l, unwrapArg(cond)) || !r.distinctIncoming(p, r.blockOf[p]) {
		return false
	}
	for _, pred := range []*ir.Block{onTrue, onFalse} {
		x, ok := incomingFrom(p, pred)
		if !ok || !r.entryInvariant(l, x, depth-1) {
			return false
		}
	}
	return true
}

// entryValue returns the map of primal values to their forward values in
// blk, on the edge into loop top: entryInvariant merge phis of top are
// emitted there as selects.
func (r *reverseGen) entryValue(blk *ir.Block, top *irutil.Loop) func(value.Value) value.Value {
	var val func(value.Value) value.Value
	val = func(v value.Value) value.Value {
		p, ok := unwrapArg(v).(*ir.InstPhi)
		if !ok || !r.definedIn(top, p) {
			return r.mapValue(v)
		}
		cond, onTrue, onFalse, _, _ := r.mergeDecision(r.blockOf[p])
		t, _ := incomingFrom(p, onTrue)
		f, _ := incomingFrom(p, onFalse)
		return blk.NewSelect(val(cond), val(t), val(f))
	}
	return val
}

// incomingFrom returns phi p's incoming value from block pred.
func incomingFrom(p *ir.InstPhi, pred *ir.Block) (value.Value, bool) {
	for _, in := range p.Incs {
		if in.Pred == pred {
			return in.X, true
		}
	}
	return nil, false
}

// retarget makes terminator term branch to to wherever it branched to from.
func retarget(term ir.Terminator, from, to *ir.Block) {
	switch t := term.(type) {
	case *ir.TermBr:
		if t.Target == from {
			t.Target = to
		}
	case *ir.TermCondBr:
		if t.TargetTrue == from {
			t.TargetTrue = to
		}
		if t.TargetFalse == from {
			t.TargetFalse = to
		}
	case *ir.TermSwitch:
		if t.TargetDefault == from {
			t.TargetDefault = to
		}
		for _, c := range t.Cases {
			if c.Target == from {
				c.Target = to
			}
		}
	}
}
