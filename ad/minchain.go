package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Running minima (and maxima) carried by a loop: best = select(c, x, best)
// with best a phi of loop J's header, as a nearest-centroid search keeps
// it. The adjoint of the select's result reaches the phi only where the
// select kept it (c false), so, walking J's iterations backward, the
// adjoint of the select of iteration j is zero by construction once a
// later iteration's select picked its new candidate: only the last
// candidate picked (the argmin) receives anything. The reverse tracks that
// in a flag per chain (the phi's): true on entering J's reverse from below
// (where uses after J deposit the adjoint), and at each select's reverse
// live' = live && !picked. A zero skip (zeroskip.go) of the loop computing
// x then runs only where picked && live: the losing candidates' reverse is
// skipped too, not only the candidates never picked. A loop computing the
// chain's first value, exiting into J's header with the phi its only user,
// is skipped where the flag is false once J's reverse is done (the phi's
// adjoint on the edge from that loop is then zero).
//
// Sound when nothing else gives the chain an adjoint inside J: the phi's
// incoming values from inside J are all the select, the phi's only users
// are the select (as the arm it keeps, not its condition) and comparisons,
// and the select's users inside J are the phi and comparisons (users after
// J are free: their adjoints arrive before J's reverse, flag true). The
// flag depends on the primal's conditions only, so forward mode over the
// gradient sees the same skips (the tangents of the skipped adjoints are
// zero by the same argument). Setting the flag true is always safe: it
// only keeps a reverse that might have been skipped.

// minChainSelect returns the select carrying phi p around its loop as a
// running minimum chain, or nil.
func (r *reverseGen) minChainSelect(p *ir.InstPhi) *ir.InstSelect {
	if r.parallel || r.d.gpu || !irfacts.CarriesFloat(p.Typ) {
		return nil
	}
	if s, ok := r.chainSel[p]; ok {
		return s
	}
	s := r.findMinChain(p)
	if r.chainSel == nil {
		r.chainSel = map[*ir.InstPhi]*ir.InstSelect{}
	}
	r.chainSel[p] = s
	return s
}

func (r *reverseGen) findMinChain(p *ir.InstPhi) *ir.InstSelect {
	h := r.blockOf[p]
	l := r.cfg.LoopOf[h]
	if l == nil || l.Header != h {
		return nil
	}
	var sel *ir.InstSelect
	for _, inc := range p.Incs {
		if !l.Contains(inc.Pred.(*ir.Block)) {
			continue
		}
		s, ok := irfacts.Unwrap(inc.X).(*ir.InstSelect)
		if !ok || (sel != nil && s != sel) {
			return nil
		}
		sel = s
	}
	if sel == nil || r.blockOf[sel] == nil || !l.Contains(r.blockOf[sel]) || !types.Equal(sel.Cond.Type(), types.I1) {
		return nil
	}
	t, f := irfacts.Unwrap(sel.ValueTrue) == p, irfacts.Unwrap(sel.ValueFalse) == p
	if t == f || irfacts.Unwrap(sel.Cond) == p {
		return nil
	}
	inLoop := map[interface{}]bool{}
	for _, b := range r.f.Blocks {
		if l.Contains(b) {
			for _, inst := range b.Insts {
				inLoop[inst] = true
			}
			inLoop[b.Term] = true
		}
	}
	quiet := func(u interface{}) bool {
		switch x := u.(type) {
		case *ir.InstICmp, *ir.InstFCmp:
			return true
		case *ir.InstCall:
			return isDebugIntrinsic(x)
		}
		return false
	}
	for _, u := range r.skipUsers()[p] {
		if !quiet(u) && u != interface{}(sel) {
			return nil
		}
	}
	for _, u := range r.skipUsers()[sel] {
		if inLoop[u] && !quiet(u) && u != interface{}(p) {
			return nil
		}
	}
	return sel
}

// chainFlag is the reverse's flag of the chain of phi p: whether the
// adjoint of its select may be nonzero (true on entry).
func (r *reverseGen) chainFlag(p *ir.InstPhi) *ir.InstAlloca {
	if a := r.chainLive[p]; a != nil {
		return a
	}
	if r.chainLive == nil {
		r.chainLive = map[*ir.InstPhi]*ir.InstAlloca{}
	}
	a := r.newSlot(types.I1, constant.True)
	r.chainLive[p] = a
	return a
}

// chainGuard narrows picked, the condition under which select sel (whose
// other arm is other) passes on the value of a skippable loop, by the
// chain's flag, and steps the flag past sel's reverse; emitted into blk.
func (r *reverseGen) chainGuard(blk *ir.Block, sel *ir.InstSelect, other value.Value, picked value.Value) value.Value {
	p, ok := irfacts.Unwrap(other).(*ir.InstPhi)
	if !ok || r.minChainSelect(p) != sel {
		return picked
	}
	if a, done := r.chainLive[p]; done && a == nil {
		return picked // the header's reverse, emitted, did not reset a flag
	}
	flag := r.chainFlag(p)
	live := blk.NewLoad(types.I1, flag)
	blk.NewStore(blk.NewAnd(live, blk.NewXor(picked, constant.True)), flag)
	return blk.NewAnd(picked, live)
}

// resetChainFlags sets, on edge block e leaving the reverse of loop header
// h toward the loop's outside, the flags of h's chains back to true. The
// reverse is emitted in reverse RPO, so the selects' reverses, inside the
// loop, have created the flags they use; a phi left without one gets none.
func (r *reverseGen) resetChainFlags(e, h *ir.Block) {
	for _, inst := range h.Insts {
		p, ok := inst.(*ir.InstPhi)
		if !ok {
			break
		}
		if a := r.chainLive[p]; a != nil {
			e.NewStore(constant.True, a)
			continue
		}
		if r.chainLive == nil {
			r.chainLive = map[*ir.InstPhi]*ir.InstAlloca{}
		}
		r.chainLive[p] = nil
	}
}
