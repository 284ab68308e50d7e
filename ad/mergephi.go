package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
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
	if len(r.cfg.Preds[b]) < 2 || r.primal().IsHeader(b) {
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

// mergeRebuild is how a merge phi is rebuilt: the primal values it is
// rebuilt from, and its block's decision (mergeDecision).
type mergeRebuild struct {
	ops             []value.Value // the incoming values, then cond where there is one
	cond            value.Value
	onTrue, onFalse *ir.Block
	byIndex         bool
}

// mergeOperands tells how primal phi p is rebuilt: from its incoming
// values (each defined in a block dominating p's, or an edge value) and the
// deciding condition (none when byIndex).
func (r *reverseGen) mergeOperands(p *ir.InstPhi) (mergeRebuild, bool) {
	b := r.blockOf[p]
	if b == nil || !r.distinctIncoming(p, b) {
		return mergeRebuild{}, false
	}
	cond, onTrue, onFalse, byIndex, ok := r.mergeDecision(b)
	if !ok {
		return mergeRebuild{}, false
	}
	m := mergeRebuild{cond: cond, onTrue: onTrue, onFalse: onFalse, byIndex: byIndex}
	for _, in := range p.Incs {
		// Read in the reverse wherever p is: its definition must
		// dominate p's block, not only the edge it comes in on, or it
		// must be rebuilt there from values that do.
		if r.edgeIncoming(in.X, b) && !r.edgeValue(in.X, b, rematDepth) {
			return mergeRebuild{}, false
		}
		m.ops = append(m.ops, in.X)
	}
	if cond != nil {
		m.ops = append(m.ops, cond)
	}
	return m, true
}

// edgeIncoming reports whether v, an incoming value of a merge phi of
// primal block b, is an instruction whose block does not dominate b: it is
// computed on the way in from one predecessor only.
func (r *reverseGen) edgeIncoming(v value.Value, b *ir.Block) bool {
	d, isInst := r.blockOf[irfacts.Unwrap(v)]
	return isInst && !r.cfg.Dominates(d, b)
}

// edgeValue reports whether v (an incoming value of a merge phi of primal
// block b, or an operand of one) can be rebuilt in the reverse sweep
// wherever the phi is read: defined in a block dominating b, or not an
// instruction, or an operation of b's own loop that cannot trap (pure
// arithmetic, comparisons, casts, address arithmetic; no loads, divisions
// or calls with effects) of such values, depth levels deep. Where the
// forward sweep came from another predecessor it is computed from defined
// values all the same and the select discards it, so it is never cached (a
// cache written on one path only would be read stale on the others). A
// value of a loop b is outside of is its last iteration's, which the
// reverse cannot rebuild from values dominating b: not an edge value.
func (r *reverseGen) edgeValue(v value.Value, b *ir.Block, depth int) bool {
	v = irfacts.Unwrap(v)
	d, isInst := r.blockOf[v]
	if !isInst {
		_, unknown := v.(ir.Instruction)
		return !unknown
	}
	if r.cfg.Dominates(d, b) {
		return true
	}
	if phi, _, tc, ok := r.exitInduction(v, b); ok && depth > 0 {
		// Its loop's exit value, from values outside the loop (exitvalue.go).
		for _, op := range r.exitOperands(phi, tc) {
			if !r.edgeValue(op, b, depth-1) {
				return false
			}
		}
		return true
	}
	inst, _ := v.(ir.Instruction)
	if depth == 0 || r.cfg.LoopOf[d] != r.cfg.LoopOf[b] || !cannotTrap(inst) {
		return false
	}
	for _, op := range operandsOf(inst) {
		if !r.edgeValue(op, b, depth-1) {
			return false
		}
	}
	return true
}

// cannotTrap reports pure instructions the reverse sweep may compute on a
// path the forward sweep did not take: pureOp's (floating point, compares,
// selects, conversions, math without side effects but errno) and integer
// and address arithmetic that yields poison, never undefined behaviour.
func cannotTrap(inst ir.Instruction) bool {
	return addressArith(inst) || pureOp(inst)
}

// hasEdgeIncoming reports whether merge phi p has an edge incoming value.
func (r *reverseGen) hasEdgeIncoming(p *ir.InstPhi) bool {
	b := r.blockOf[p]
	for _, in := range p.Incs {
		if r.edgeIncoming(in.X, b) {
			return true
		}
	}
	return false
}

// mergeInvariant reports whether primal phi p, rebuilt as m says, is
// rebuilt from values defined outside its block's loop, by a condition or,
// for values wider than the byte it costs, the predecessor index. Edge
// incoming values are rebuilt only where the plan says (it never caches
// them).
func (r *reverseGen) mergeInvariant(p *ir.InstPhi, m mergeRebuild) bool {
	if (m.byIndex && cacheplan.TypeBytes(p.Typ) <= 1) || r.hasEdgeIncoming(p) {
		return false
	}
	if l := r.cfg.LoopOf[r.blockOf[p]]; l != nil {
		for _, op := range m.ops {
			if r.primal().DefinedIn(l, irfacts.Unwrap(op)) {
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
	if cached || !ok {
		return nil, false
	}
	m, ok := r.mergeOperands(p)
	if !ok || (!recompute && !r.mergeInvariant(p, m)) {
		return nil, false
	}
	b := r.blockOf[fv]
	if l := r.cfg.LoopOf[b]; l != nil && !l.Contains(at) && r.hasEdgeIncoming(p) {
		// Read after its loop: an edge value would be read there as
		// its last iteration's, where the forward may not have computed it.
		return nil, false
	}
	// incoming returns, in the reverse, the value fv takes from primal
	// predecessor p (the forward phi's edges come from forward tails).
	incoming := func(p *ir.Block) (value.Value, bool) {
		x, ok := irfacts.IncomingFrom(fv, r.fwdTail[p])
		if !ok {
			return nil, false
		}
		return r.operandInReverse(blk, at, x, depth+1)
	}
	if !m.byIndex {
		t, ok1 := incoming(m.onTrue)
		f, ok2 := incoming(m.onFalse)
		c, ok3 := r.operandInReverse(blk, at, r.mapValue(m.cond), depth+1)
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
