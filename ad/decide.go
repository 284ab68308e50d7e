package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Decision trees: decidingBranch, for a block of three or more
// predecessors. The reverse tells which predecessor the forward sweep came
// from by re-reading branch conditions instead of a record per iteration:
// b's immediate dominator d splits b's predecessors by its branch into
// those reached from its true successor and those reached from its false
// one (paths not passing d or b again); a group of two or more is split
// again at its nearest common dominator, which every path from d to them
// passes. Every condition must be defined outside b's innermost loop: the
// same in every visit of its branch in an iteration of that loop, and read
// back at no cost per iteration (as the zero-trip guards of rotated loops,
// which -O1 leaves merging with the loops they skip).

// decision is a node of the tree: a leaf names the predecessor, an inner
// node the condition and the subtrees for its two values.
type decision struct {
	pred            *ir.Block
	cond            value.Value
	onTrue, onFalse *decision
	path            bool                        // made by pathDecision: cond read by decisionCond
	phis            map[*ir.InstPhi]value.Value // path decisions: the phis the path to the node fixed
}

// maxDecisionDepth bounds the tree.
const maxDecisionDepth = 8

// decisionTree returns the tree telling b's predecessors apart, if the
// branches above b decide them.
func (r *reverseGen) decisionTree(b *ir.Block) (*decision, bool) {
	d := r.cfg.IDom[b]
	if d == nil || r.cfg.LoopOf[d] != r.cfg.LoopOf[b] {
		return nil, false
	}
	return r.decide(b, d, r.cfg.Preds[b], 0)
}

// decide splits preds (of b) at block d.
func (r *reverseGen) decide(b, d *ir.Block, preds []*ir.Block, depth int) (*decision, bool) {
	if len(preds) == 1 {
		return &decision{pred: preds[0]}, true
	}
	if depth > maxDecisionDepth {
		return nil, false
	}
	br, ok := d.Term.(*ir.TermCondBr)
	if !ok || br.TargetTrue == br.TargetFalse {
		return nil, false
	}
	if l := r.cfg.LoopOf[b]; l != nil && r.primal().DefinedIn(l, irfacts.Unwrap(br.Cond)) {
		return nil, false
	}
	if cb, ok := r.blockOf[irfacts.Unwrap(br.Cond)]; ok && !r.cfg.Dominates(cb, b) {
		// Defined in a loop b is not in, it is read at b as the loop's
		// exit value, a copy made at the end of b's forward block
		// (exitCopy): its definition must reach b on every path, not only
		// on this side. Elsewhere it is read through a cache slot.
		if m := r.cfg.LoopOf[cb]; m != nil && !m.Contains(b) {
			return nil, false
		}
	}
	t, f := cacheplan.PredsThrough(b, d, br.TargetTrue.(*ir.Block), preds), cacheplan.PredsThrough(b, d, br.TargetFalse.(*ir.Block), preds)
	if len(t) == 0 || len(f) == 0 || len(t)+len(f) != len(preds) {
		return nil, false // a predecessor reached both ways, or neither
	}
	node := &decision{cond: br.Cond}
	for _, side := range []struct {
		group []*ir.Block
		tree  **decision
	}{{t, &node.onTrue}, {f, &node.onFalse}} {
		next := d
		if len(side.group) > 1 {
			next = r.commonDominator(side.group)
			if next == nil || next == d || next == b || !r.cfg.Dominates(d, next) {
				return nil, false
			}
		}
		sub, ok := r.decide(b, next, side.group, depth+1)
		if !ok {
			return nil, false
		}
		*side.tree = sub
	}
	return node, true
}

// commonDominator is the nearest block dominating every block of bs.
func (r *reverseGen) commonDominator(bs []*ir.Block) *ir.Block {
	c := bs[0]
	for _, x := range bs[1:] {
		for c != nil && !r.cfg.Dominates(c, x) {
			c = r.cfg.IDom[c]
		}
	}
	return c
}

// emitDecision ends reverse block blk (the reverse of b) with the
// branches of tree, to edges (one per predecessor of b, in preds' order);
// a tree that is a leaf is a plain branch.
func (r *reverseGen) emitDecision(blk, b *ir.Block, tree *decision, preds, edges []*ir.Block) {
	target := func(t *decision) *ir.Block {
		if t.pred != nil {
			return edges[predIndex(preds, t.pred)]
		}
		nb := r.g.NewBlock("")
		r.emitDecision(nb, b, t, preds, edges)
		return nb
	}
	if tree.pred != nil {
		blk.NewBr(target(tree))
		return
	}
	var c value.Value
	if tree.path {
		c = r.decisionCond(blk, b, tree.cond, tree.phis)
	} else {
		c = r.lookup(blk, b, tree.cond)
	}
	blk.NewCondBr(c, target(tree.onTrue), target(tree.onFalse))
}
