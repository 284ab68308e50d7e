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

// Exit values of inductions: the value an induction variable of loop m
// (plus a constant) had when m was left is start + step·(n-1) + c, n being
// m's exact header count on that entry (tripcount.go), computed from m's
// start and bound. The reverse sweep rebuilds it so where m's header does
// not dominate the reader: a merge phi after an unrolled vector loop, 0
// when the loop was skipped and where it stopped otherwise (mergephi.go).
// On the path that skipped m the rebuilt value is meaningless (a count of
// values the forward did not compute) and the merge's select discards it;
// it is computed from pure integer operations, never a load, so no path
// traps. Where m's header dominates the reader, inductionValue rebuilds the
// same value from m's counter instead.

// affineOf is cacheplan.AffineHeader for header phi p, primal or forward.
func (r *reverseGen) affineOf(p *ir.InstPhi) (value.Value, int64, bool) {
	outside, latch, ok := r.primal().SimpleHeader(r.blockOf[p])
	if !ok {
		return nil, 0, false
	}
	if _, fwd := r.primalOf[p]; fwd {
		outside, latch = r.fwdTail[outside], r.fwdTail[latch]
	}
	return cacheplan.AffineHeader(p, outside, latch)
}

// exitInduction recognises v (primal or forward), read in primal block at,
// as the value on leaving its loop m of an induction variable of m plus a
// constant c, where m does not contain at and m's header does not dominate
// it: v is computed in every iteration before m may exit (its block
// dominates every exiting block of m), and m's header count is exact
// (cacheplan.ExactCount, which proves it from the IR). Otherwise the value is
// recorded where it is read (the caller caches).
func (r *reverseGen) exitInduction(v value.Value, at *ir.Block) (phi *ir.InstPhi, c int64, tc *cacheplan.TripCount, ok bool) {
	def, isInst := r.blockOf[v]
	if !isInst {
		return nil, 0, nil, false
	}
	m := r.cfg.LoopOf[def]
	if m == nil || m.Contains(at) || r.cfg.Dominates(m.Header, at) {
		return nil, 0, nil, false
	}
	phi, c, ok = r.primal().InductionOf(m, v)
	if !ok {
		return nil, 0, nil, false
	}
	if _, _, ok := r.affineOf(phi); !ok {
		return nil, 0, nil, false
	}
	for b := range m.Blocks {
		for _, s := range irutil.Succs(b) {
			if !m.Contains(s) && !r.cfg.Dominates(def, b) {
				return nil, 0, nil, false
			}
		}
	}
	tc, ok = r.analyzeTripCount(m)
	if !ok || !cacheplan.ExactCount(tc) {
		return nil, 0, nil, false
	}
	return phi, c, tc, true
}

// exitOperands lists the primal values exitInduction's value is rebuilt
// from: the induction variable's start, the count's start and bound.
func (r *reverseGen) exitOperands(phi *ir.InstPhi, tc *cacheplan.TripCount) []value.Value {
	start, _, _ := r.affineOf(phi)
	if p, ok := r.primalOf[start]; ok {
		start = p
	}
	return []value.Value{irfacts.Unwrap(start), irfacts.Unwrap(tc.Start), irfacts.Unwrap(tc.Bound)}
}

// exitInductionValue rebuilds forward value fv, read in the reverse of
// primal block at, when exitInduction recognises it.
func (r *reverseGen) exitInductionValue(blk, at *ir.Block, fv value.Value, depth int) (value.Value, bool) {
	phi, c, tc, ok := r.exitInduction(fv, at)
	if !ok {
		return nil, false
	}
	start, step, _ := r.affineOf(phi)
	s, ok := r.operandInReverse(blk, at, start, depth+1)
	if !ok {
		return nil, false
	}
	n, ok := r.reverseCount(blk, at, tc, depth)
	if !ok {
		return nil, false
	}
	k := value.Value(blk.NewSub(n, constant.NewInt(types.I64, 1)))
	it := phi.Typ.(*types.IntType)
	if it.BitSize < 64 {
		k = blk.NewTrunc(k, it)
	} else if it.BitSize > 64 {
		k = blk.NewZExt(k, it)
	}
	v := blk.NewAdd(s, blk.NewMul(k, constant.NewInt(it, step)))
	if c == 0 {
		return v, true
	}
	return blk.NewAdd(v, constant.NewInt(it, c)), true
}

// reverseCount emits in reverse block blk, the reverse of primal block at,
// cacheplan.ExitCount for the loop with exact trip count tc, its start and bound
// read there as operandInReverse does at depth+1.
func (r *reverseGen) reverseCount(blk, at *ir.Block, tc *cacheplan.TripCount, depth int) (value.Value, bool) {
	vals := map[value.Value]value.Value{}
	for _, x := range []value.Value{tc.Start, tc.Bound} {
		w, ok := r.operandInReverse(blk, at, r.mapValue(irfacts.Unwrap(x)), depth+1)
		if !ok {
			return nil, false
		}
		vals[x] = w
	}
	return cacheplan.ExitCount(blk, tc, func(x value.Value) value.Value { return vals[x] }), true
}
