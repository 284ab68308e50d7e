package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// Merge phis recomputed: a phi of a block that is not a loop header (the
// start index of a vectorized loop's remainder, 0 or where the vector loop
// stopped; a value chosen by an if) is one of its incoming values, picked
// by the predecessor the forward sweep came from. The reverse sweep knows
// that predecessor as it knows it to hand back phi adjoints (reverseBlock):
// from a branch condition (often invariant, as a vectorizer's guards) or
// from the recorded predecessor index (a byte). The phi is then rebuilt
// as a select over its incoming values, where the plan (mincut.go) finds
// that cheaper than caching it.

// mergeDecision returns, for primal block b with two or more predecessors
// that is not a loop header, the branch condition telling which one the
// forward sweep came from (onTrue when it holds, onFalse otherwise), or
// byIndex when only the recorded predecessor index tells.
func (r *reverseGen) mergeDecision(b *ir.Block) (cond value.Value, onTrue, onFalse *ir.Block, byIndex, ok bool) {
	if len(r.cfg.Preds[b]) < 2 || r.isHeader(b) {
		return nil, nil, nil, false, false
	}
	if p, q, c, pOnTrue, ok := r.triangle(b); ok {
		if pOnTrue {
			return c, p, q, false, true
		}
		return c, q, p, false, true
	}
	if p, q, c, ok := r.diamond(b); ok {
		return c, p, q, false, true
	}
	if t, f, c, ok := r.decidingBranch(b); ok {
		return c, t, f, false, true
	}
	_, recorded := r.predIdx[b]
	return nil, nil, nil, true, recorded
}

// mergeOperands lists the primal values primal phi p is rebuilt from: its
// incoming values (each defined in a block dominating p's) and the
// deciding condition (none when byIndex).
func (r *reverseGen) mergeOperands(p *ir.InstPhi) (ops []value.Value, byIndex, ok bool) {
	b := r.blockOf[p]
	if b == nil || !r.distinctIncoming(p, b) {
		return nil, false, false
	}
	cond, _, _, byIndex, ok := r.mergeDecision(b)
	if !ok {
		return nil, false, false
	}
	for _, in := range p.Incs {
		// Read in the reverse wherever p is: its definition must
		// dominate p's block, not only the edge it comes in on.
		if d, isInst := r.blockOf[unwrapArg(in.X)]; isInst && !r.cfg.Dominates(d, b) {
			return nil, false, false
		}
		ops = append(ops, in.X)
	}
	if cond != nil {
		ops = append(ops, cond)
	}
	return ops, byIndex, true
}

// mergeInvariant reports whether primal phi p is rebuilt from values
// defined outside its block's loop, by a condition or, for values wider
// than the byte it costs, the predecessor index.
func (r *reverseGen) mergeInvariant(p *ir.InstPhi) bool {
	ops, byIndex, ok := r.mergeOperands(p)
	if !ok || (byIndex && typeBytes(p.Typ) <= 1) {
		return false
	}
	if l := r.cfg.LoopOf[r.blockOf[p]]; l != nil {
		for _, op := range ops {
			if r.definedIn(l, unwrapArg(op)) {
				return false
			}
		}
	}
	return true
}

// distinctIncoming reports whether phi has one incoming value per
// predecessor of its primal block b.
func (r *reverseGen) distinctIncoming(phi *ir.InstPhi, b *ir.Block) bool {
	preds := r.cfg.Preds[b]
	if len(phi.Incs) != len(preds) {
		return false
	}
	seen := map[*ir.Block]bool{}
	for _, p := range preds {
		if seen[p] {
			return false
		}
		seen[p] = true
	}
	return true
}

// mergeValue rebuilds forward phi fv (of a block that is not a loop
// header) in reverse block blk, when the plan recomputes it, or when the
// plan does not know it (a value read to recompute another, as the start
// of a remainder loop's induction variable) and rebuilding it reads only
// values defined outside its loop (cheaper than caching it per iteration).
func (r *reverseGen) mergeValue(blk, at *ir.Block, fv *ir.InstPhi, depth int) (value.Value, bool) {
	cached, recompute := r.planned(fv)
	p, ok := r.primalOf[fv].(*ir.InstPhi)
	if cached || !ok || (!recompute && !r.mergeInvariant(p)) {
		return nil, false
	}
	if _, _, ok := r.mergeOperands(p); !ok {
		return nil, false
	}
	b := r.blockOf[fv]
	cond, onTrue, onFalse, byIndex, _ := r.mergeDecision(b)
	// incoming returns, in the reverse, the value fv takes from primal
	// predecessor p (the forward phi's edges come from forward tails).
	incoming := func(p *ir.Block) (value.Value, bool) {
		for _, in := range fv.Incs {
			if in.Pred == r.fwdTail[p] {
				return r.operandInReverse(blk, at, in.X, depth+1)
			}
		}
		return nil, false
	}
	if !byIndex {
		t, ok1 := incoming(onTrue)
		f, ok2 := incoming(onFalse)
		c, ok3 := r.operandInReverse(blk, at, r.mapValue(cond), depth+1)
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		return blk.NewSelect(c, t, f), true
	}
	preds := r.cfg.Preds[b]
	vals := make([]value.Value, len(preds))
	for k, p := range preds {
		v, ok := incoming(p)
		if !ok {
			return nil, false
		}
		vals[k] = v
	}
	idx, ok := r.operandInReverse(blk, at, r.predIdx[b], depth+1)
	if !ok {
		return nil, false
	}
	v := vals[len(vals)-1]
	for k := len(vals) - 2; k >= 0; k-- {
		is := blk.NewICmp(enum.IPredEQ, idx, constant.NewInt(predIdxType(len(preds)), int64(k)))
		v = blk.NewSelect(is, vals[k], v)
	}
	return v, true
}
