package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Stores elsewhere in a loop's array (storeforward.go, issue 22): a loop
// filling one part of an array, elements c + i for its index i in 0..n-1
// (n its trip count), may store into other parts of the same array in the
// same iteration (an LSTM cell's four gates in one buffer of 4n, stored
// at i, n + i, 2n + i and 3n + i). A load of element c + j, j in 0..n-1
// too, reads nothing those other stores write when their offsets differ
// by n or more.
//
// apartInLoop proves it for store w and load l: both addresses are one
// base plus, through inbounds getelementptrs of the element type (one
// index each, an index add with no wrap split into its operands), an
// index (the loop's for w, l's own for l) and at most one offset, each
// offset k·x for an integer k >= 0 (x the 32-bit value with n = zext x),
// with different k for w and l: their elements then differ by at least
// x = n minus the distance of the indices, less than n. k·x is:
//   - k = 0: no offset; k = 1: n itself;
//   - zext(x·k) (mul or shl) with nuw: exact, as unsigned, as n is;
//   - sext(x·k) with nsw, x >= 0: exact, where x >= 0 follows from nuw
//     with k >= 2, or from a branch testing x < 0 on the way into the
//     loop (x < 0 false, x > 0 true: nonNegativeOnEntry).
// All values are 32-bit extended: sums of two do not wrap in 64 bits.

// apartInLoop reports whether store w in loop l1 (index iv, trip count
// n) writes none of the bytes load l (index j, 0 <= j < n) reads, both
// one element of the same array (see above).
func (r *reverseGen) apartInLoop(w ir.Instruction, l *ir.InstLoad, j value.Value, iv *ir.InstPhi, n value.Value, l1 *irutil.Loop) bool {
	st, ok := w.(*ir.InstStore)
	if !ok || !st.Src.Type().Equal(l.ElemType) {
		return false
	}
	wb, wk, ok := r.arrayOffset(st.Dst, l.ElemType, iv, n, l1)
	if !ok {
		return false
	}
	lb, lk, ok := r.arrayOffset(l.Src, l.ElemType, j, n, l1)
	return ok && sameAddress(wb, lb, 4) && wk != lk
}

// arrayOffset decomposes p into base + index + k·x (see above).
func (r *reverseGen) arrayOffset(p value.Value, elem types.Type, index, n value.Value, l1 *irutil.Loop) (value.Value, int64, bool) {
	p, terms, ok := elementTerms(p, elem)
	if !ok {
		return nil, 0, false
	}
	var offsets []value.Value
	seen := 0
	for _, t := range terms {
		if t == irfacts.Unwrap(index) {
			seen++
		} else {
			offsets = append(offsets, t)
		}
	}
	switch {
	case seen != 1 || len(offsets) > 1:
		return nil, 0, false
	case len(offsets) == 0:
		return p, 0, true
	}
	k, ok := r.tripMultiple(offsets[0], n, l1)
	return p, k, ok
}

// indexTerms splits an index into the operands of no-wrap adds.
func indexTerms(v value.Value) []value.Value {
	v = irfacts.Unwrap(v)
	if a, ok := v.(*ir.InstAdd); ok && (hasFlag(a.OverflowFlags, enum.OverflowFlagNSW) || hasFlag(a.OverflowFlags, enum.OverflowFlagNUW)) {
		return append(indexTerms(a.X), indexTerms(a.Y)...)
	}
	return []value.Value{v}
}

func hasFlag(flags []enum.OverflowFlag, f enum.OverflowFlag) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// tripMultiple returns k where offset c is exactly k·x, x the 32-bit
// value of trip count n = zext x, in loop l1 (see above).
func (r *reverseGen) tripMultiple(c, n value.Value, l1 *irutil.Loop) (int64, bool) {
	if sameAddress(c, n, 2) {
		return 1, true
	}
	nz, ok := irfacts.Unwrap(n).(*ir.InstZExt)
	if !ok || !types.Equal(nz.From.Type(), types.I32) || !types.Equal(nz.To, types.I64) {
		return 0, false
	}
	x := irfacts.Unwrap(nz.From)
	var y value.Value
	signed := false
	switch e := irfacts.Unwrap(c).(type) {
	case *ir.InstZExt:
		y = e.From
	case *ir.InstSExt:
		y, signed = e.From, true
	default:
		return 0, false
	}
	var flags []enum.OverflowFlag
	var k int64
	switch m := irfacts.Unwrap(y).(type) {
	case *ir.InstMul:
		c, ok := irfacts.Unwrap(m.Y).(*constant.Int)
		if !ok || !c.X.IsInt64() || c.X.Int64() < 1 || c.X.Int64() > 1<<20 || !sameAddress(m.X, x, 1) {
			return 0, false
		}
		flags, k = m.OverflowFlags, c.X.Int64()
	case *ir.InstShl:
		c, ok := irfacts.Unwrap(m.Y).(*constant.Int)
		if !ok || !c.X.IsInt64() || c.X.Int64() < 0 || c.X.Int64() > 20 || !sameAddress(m.X, x, 1) {
			return 0, false
		}
		flags, k = m.OverflowFlags, 1<<c.X.Int64()
	default:
		return 0, false
	}
	nuw, nsw := hasFlag(flags, enum.OverflowFlagNUW), hasFlag(flags, enum.OverflowFlagNSW)
	switch {
	case !signed && nuw:
		return k, true
	case signed && nsw && ((nuw && k >= 2) || r.nonNegativeOnEntry(x, l1.Header)):
		return k, true
	}
	return 0, false
}

// nonNegativeOnEntry reports whether i32 x is >= 0 wherever block h runs:
// a block dominating h branches on a signed comparison of x with a
// constant (x < 0, x > 0, ...), and the edge taken only where x >= 0
// leads to a block entered from it alone that dominates h.
func (r *reverseGen) nonNegativeOnEntry(x value.Value, h *ir.Block) bool {
	for _, d := range r.f.Blocks {
		br, ok := d.Term.(*ir.TermCondBr)
		if !ok || d == h || !r.cfg.Dominates(d, h) {
			continue
		}
		cmp, ok := irfacts.Unwrap(br.Cond).(*ir.InstICmp)
		if !ok || !sameAddress(cmp.X, x, 1) {
			continue
		}
		k, ok := irfacts.Unwrap(cmp.Y).(*constant.Int)
		if !ok || !k.X.IsInt64() {
			continue
		}
		var s value.Value
		switch c := k.X.Int64(); {
		case cmp.Pred == enum.IPredSGT && c >= -1, cmp.Pred == enum.IPredSGE && c >= 0:
			s = br.TargetTrue
		case cmp.Pred == enum.IPredSLT && c <= 0, cmp.Pred == enum.IPredSLE && c <= -1:
			s = br.TargetFalse
		default:
			continue
		}
		sb, ok := s.(*ir.Block)
		if ok && len(r.cfg.Preds[sb]) == 1 && r.cfg.Preds[sb][0] == d && r.cfg.Dominates(sb, h) {
			return true
		}
	}
	return false
}
