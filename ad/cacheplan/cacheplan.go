// Package cacheplan holds the parts of reverse mode's cache and loop
// planning that read only the IR of the primal function: the trip counts
// and induction variables of its loops, paths through loop iterations, the
// cost of caching a value, and the minimum cut that chooses between
// caching and recomputing. Package ad asks it while it generates a
// gradient; it knows nothing of ad.
package cacheplan

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Primal is the function being differentiated as planning reads it: its
// control flow and the block of each of its instructions (a map its
// owner may still be filling; only what is in it counts as defined).
type Primal struct {
	F       *ir.Func
	CFG     *irutil.CFG
	BlockOf map[value.Value]*ir.Block
}

// IsHeader reports whether b is the header of a loop.
func (p Primal) IsHeader(b *ir.Block) bool {
	l := p.CFG.LoopOf[b]
	return l != nil && l.Header == b
}

// SimpleHeader reports whether b heads a loop entered from exactly one block
// outside it and continued from exactly one latch, returning both.
func (p Primal) SimpleHeader(b *ir.Block) (outside, latch *ir.Block, ok bool) {
	if !p.IsHeader(b) {
		return nil, nil, false
	}
	l := p.CFG.LoopOf[b]
	preds := p.CFG.Preds[b]
	if len(preds) != 2 || len(l.Latches) != 1 {
		return nil, nil, false
	}
	for _, q := range preds {
		if !l.Contains(q) {
			outside = q
		}
	}
	if outside == nil {
		return nil, nil, false
	}
	return outside, l.Latches[0], true
}

// DefinedIn reports whether primal value v is an instruction of loop l.
func (p Primal) DefinedIn(l *irutil.Loop, v value.Value) bool {
	b, ok := p.BlockOf[v]
	return ok && l.Contains(b)
}

// InductionOf recognizes x as a header phi of l, or such a phi plus a
// constant.
func (p Primal) InductionOf(l *irutil.Loop, x value.Value) (*ir.InstPhi, int64, bool) {
	isHeaderPhi := func(v value.Value) (*ir.InstPhi, bool) {
		q, ok := v.(*ir.InstPhi)
		return q, ok && p.BlockOf[q] == l.Header
	}
	if q, ok := isHeaderPhi(x); ok {
		return q, 0, true
	}
	if add, ok := x.(*ir.InstAdd); ok {
		if q, c, ok := PhiPlusConst(add); ok {
			if hq, ok := isHeaderPhi(q); ok {
				return hq, c, true
			}
		}
	}
	return nil, 0, false
}
