package cacheplan

import (
	"math/big"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// InductionStep returns the constant step and the start value of header phi
// p: its latch value is p + step, directly or through a phi of such sums.
func InductionStep(p *ir.InstPhi, outside, latch *ir.Block) (int64, value.Value, bool) {
	var start, next value.Value
	for _, in := range p.Incs {
		switch in.Pred {
		case outside:
			start = in.X
		case latch:
			next = in.X
		}
	}
	if start == nil || next == nil {
		return 0, nil, false
	}
	sums := []value.Value{next}
	if q, ok := next.(*ir.InstPhi); ok {
		sums = sums[:0]
		for _, in := range q.Incs {
			sums = append(sums, in.X)
		}
	}
	var step int64
	for i, s := range sums {
		add, ok := s.(*ir.InstAdd)
		if !ok {
			return 0, nil, false
		}
		base, c, ok := PhiPlusConst(add)
		if !ok || base != p || (i > 0 && c != step) {
			return 0, nil, false
		}
		step = c
	}
	return step, start, step != 0
}

// StepNoWrap reports whether the latch value of induction variable p (p +
// step, or a phi of such sums) is computed by adds that carry nsw.
func StepNoWrap(p *ir.InstPhi, latch *ir.Block) bool {
	next, ok := irfacts.IncomingFrom(p, latch)
	if !ok {
		return false
	}
	sums := []value.Value{next}
	if q, ok := next.(*ir.InstPhi); ok {
		sums = sums[:0]
		for _, in := range q.Incs {
			sums = append(sums, in.X)
		}
	}
	for _, s := range sums {
		add, ok := s.(*ir.InstAdd)
		if !ok || !HasNSW(add) {
			return false
		}
	}
	return true
}

// HasNSW reports whether add carries the nsw flag.
func HasNSW(add *ir.InstAdd) bool {
	for _, f := range add.OverflowFlags {
		if f == enum.OverflowFlagNSW {
			return true
		}
	}
	return false
}

// PhiPlusConst splits add into a non-constant operand and a constant.
func PhiPlusConst(add *ir.InstAdd) (value.Value, int64, bool) {
	if c, ok := add.Y.(*constant.Int); ok && c.X.IsInt64() {
		return add.X, c.X.Int64(), true
	}
	if c, ok := add.X.(*constant.Int); ok && c.X.IsInt64() {
		return add.Y, c.X.Int64(), true
	}
	return nil, 0, false
}

// AffineHeader recognises header phi p (primal or forward; outside and
// latch are the predecessors its incoming values come from) as an affine
// function of the iteration number k, start + step·k:
//   - an i1 flag flipped every iteration (ToggleStart), step 1;
//   - p = phi [start, outside], [p + step, latch], the latch value
//     possibly a phi of such sums (InductionStep);
//   - p = phi [start, outside], [q, latch], lagging one iteration behind
//     another such phi q of the same header with the same step, whose start
//     is start + step (a rotated loop's i beside its i+1: -O2 keeps both).
//     Then p takes start in iteration 0 and q's value of iteration k-1,
//     start + step + step·(k-1), in iteration k.
//
// The arithmetic wraps as the reverse sweep computes it, so the identity
// holds modulo 2^bits whatever the flags of the forward adds.
func AffineHeader(p *ir.InstPhi, outside, latch *ir.Block) (value.Value, int64, bool) {
	it, ok := p.Typ.(*types.IntType)
	if !ok || len(p.Incs) != 2 {
		return nil, 0, false
	}
	if start, ok := ToggleStart(p, outside, latch); ok && it.BitSize == 1 {
		return start, 1, true
	}
	if step, start, ok := InductionStep(p, outside, latch); ok {
		return start, step, true
	}
	var start value.Value
	var q *ir.InstPhi
	for _, in := range p.Incs {
		switch in.Pred {
		case outside:
			start = in.X
		case latch:
			q, _ = in.X.(*ir.InstPhi)
		}
	}
	if start == nil || q == nil || q == p || len(q.Incs) != 2 || !SamePreds(p, q) {
		return nil, 0, false
	}
	step, qstart, ok := InductionStep(q, outside, latch)
	if !ok {
		return nil, 0, false
	}
	if add, ok := qstart.(*ir.InstAdd); ok {
		if base, c, ok := PhiPlusConst(add); ok && base == start && c == step {
			return start, step, true
		}
	}
	c0, ok1 := start.(*constant.Int)
	c1, ok2 := qstart.(*constant.Int)
	if !ok1 || !ok2 {
		return nil, 0, false
	}
	diff := new(big.Int).Sub(c1.X, c0.X)
	diff.Sub(diff, big.NewInt(step))
	diff.Mod(diff, new(big.Int).Lsh(big.NewInt(1), uint(it.BitSize)))
	return start, step, diff.Sign() == 0
}

// ToggleStart recognises i1 header phi p = phi [start, outside],
// [xor p, true, latch] (a flag flipped every iteration: `plus = !plus`) and
// returns start. On i1, xor with true is the add of 1 modulo 2, so p is
// affine with step 1: start + k (mod 2) in iteration k.
func ToggleStart(p *ir.InstPhi, outside, latch *ir.Block) (value.Value, bool) {
	var start, next value.Value
	for _, in := range p.Incs {
		switch in.Pred {
		case outside:
			start = in.X
		case latch:
			next = in.X
		}
	}
	x, ok := next.(*ir.InstXor)
	if start == nil || !ok {
		return nil, false
	}
	isTrue := func(v value.Value) bool {
		c, ok := v.(*constant.Int)
		return ok && c.X.Bit(0) == 1
	}
	if (x.X == p && isTrue(x.Y)) || (x.Y == p && isTrue(x.X)) {
		return start, true
	}
	return nil, false
}

// SamePreds reports whether phis p and q have their incoming values from
// the same blocks (those of one header).
func SamePreds(p, q *ir.InstPhi) bool {
	for _, a := range p.Incs {
		found := false
		for _, b := range q.Incs {
			found = found || a.Pred == b.Pred
		}
		if !found {
			return false
		}
	}
	return true
}
