package cacheplan

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Trip counts: a loop whose exit compares an induction variable with a
// loop-invariant bound has a header count computable on loop entry. The
// forward sweep uses it (as Enzyme uses SCEV) to size the loop's cache
// buffers once, for the whole loop nest where the inner counts are
// invariant in the outer loops, instead of growing them iteration by
// iteration. The count is only a reservation: the growth check in the
// header stays, so a wrong estimate costs memory or time, never results.

// TripCount describes the number of header executions of one loop entry:
// x_k = Start + Offset + k·Step is compared with Bound at the exit, the
// loop continuing while x_k Pred Bound.
type TripCount struct {
	Phi    *ir.InstPhi // the induction variable
	Start  value.Value // its value on entry (primal)
	Bound  value.Value // loop-invariant (primal)
	Step   int64
	Offset int64
	Pred   enum.IPred // continue predicate, IV on the left
	// Every: each block leaving the loop dominates its latch, so every
	// iteration that goes on has passed every exit test (a test on the
	// way to the latch under a condition of the data may be skipped,
	// and the loop run past its bound).
	Every bool
	// NSW: the adds computing x_k (the step, the offset) carry nsw, so
	// that x_k does not wrap where the loop continues (a wrapped value is
	// poison there, and a branch on it undefined).
	NSW bool
}

// ReserveLimit is the largest reservation, in elements, made from a trip
// count; beyond it the buffers grow as the loop runs.
const ReserveLimit = 1 << 28

// TripCount finds the trip count of loop l, if every exit of l tests the
// same induction variable against the same invariant bound.
func (p Primal) TripCount(l *irutil.Loop) (*TripCount, bool) {
	outside, latch, ok := p.SimpleHeader(l.Header)
	if !ok {
		return nil, false
	}
	var tc *TripCount
	for _, b := range p.F.Blocks {
		if !l.Contains(b) {
			continue
		}
		exits := false
		for _, s := range irutil.Succs(b) {
			if !l.Contains(s) {
				exits = true
			}
		}
		if !exits {
			continue
		}
		br, ok := b.Term.(*ir.TermCondBr)
		if !ok {
			return nil, false
		}
		cmp, ok := br.Cond.(*ir.InstICmp)
		if !ok {
			return nil, false
		}
		pred := cmp.Pred
		if !l.Contains(br.TargetTrue.(*ir.Block)) {
			pred = inversePred(pred)
		}
		if l.Contains(br.TargetTrue.(*ir.Block)) == l.Contains(br.TargetFalse.(*ir.Block)) {
			return nil, false
		}
		x, bound := cmp.X, cmp.Y
		if p.DefinedIn(l, x) {
			if p.DefinedIn(l, bound) {
				return nil, false
			}
		} else {
			x, bound = bound, x
			pred = swapPred(pred)
			if p.DefinedIn(l, bound) {
				return nil, false
			}
		}
		phi, offset, ok := p.InductionOf(l, x)
		if !ok {
			return nil, false
		}
		step, start, ok := InductionStep(phi, outside, latch)
		if !ok {
			return nil, false
		}
		nsw := StepNoWrap(phi, latch)
		if add, isAdd := x.(*ir.InstAdd); isAdd {
			nsw = nsw && HasNSW(add)
		}
		cur := &TripCount{Phi: phi, Start: start, Bound: bound, Step: step, Offset: offset, Pred: pred,
			Every: p.CFG.Dominates(b, latch), NSW: nsw}
		if tc != nil {
			if !tc.Same(cur) {
				return nil, false
			}
			cur.Every = cur.Every && tc.Every
			cur.NSW = cur.NSW && tc.NSW
		}
		tc = cur
	}
	if tc == nil {
		return nil, false
	}
	if it, ok := tc.Phi.Typ.(*types.IntType); ok && tc.Pred == enum.IPredEQ && (tc.Offset == 0 || it.BitSize == 64) {
		// Continuing while x_k == bound: once at most, as x_1 = x_0 + step
		// differs from x_0 (as -O1 writes a loop of two iterations).
		return tc, true
	}
	switch {
	case tc.Step > 0:
		switch tc.Pred {
		case enum.IPredSLT, enum.IPredULT, enum.IPredSLE, enum.IPredULE, enum.IPredNE:
			return tc, true
		}
	case tc.Step < 0:
		switch tc.Pred {
		case enum.IPredSGT, enum.IPredUGT, enum.IPredSGE, enum.IPredUGE, enum.IPredNE:
			return tc, true
		}
	}
	return nil, false
}

// Same reports whether two exits test the same condition.
func (tc *TripCount) Same(o *TripCount) bool {
	return tc.Phi == o.Phi && SameCount(tc, o)
}

// SameCount reports whether trip counts a and b, of two different loops,
// run the same number of iterations: the same start, bound, step, offset
// and continue predicate.
func SameCount(a, b *TripCount) bool {
	return a.Step == b.Step && a.Offset == b.Offset && a.Pred == b.Pred &&
		irutil.SameValue(a.Start, b.Start) && irutil.SameValue(a.Bound, b.Bound)
}

func inversePred(p enum.IPred) enum.IPred {
	return map[enum.IPred]enum.IPred{
		enum.IPredEQ: enum.IPredNE, enum.IPredNE: enum.IPredEQ,
		enum.IPredSLT: enum.IPredSGE, enum.IPredSGE: enum.IPredSLT, enum.IPredSGT: enum.IPredSLE, enum.IPredSLE: enum.IPredSGT,
		enum.IPredULT: enum.IPredUGE, enum.IPredUGE: enum.IPredULT, enum.IPredUGT: enum.IPredULE, enum.IPredULE: enum.IPredUGT,
	}[p]
}

func swapPred(p enum.IPred) enum.IPred {
	return map[enum.IPred]enum.IPred{
		enum.IPredEQ: enum.IPredEQ, enum.IPredNE: enum.IPredNE,
		enum.IPredSLT: enum.IPredSGT, enum.IPredSGT: enum.IPredSLT, enum.IPredSLE: enum.IPredSGE, enum.IPredSGE: enum.IPredSLE,
		enum.IPredULT: enum.IPredUGT, enum.IPredUGT: enum.IPredULT, enum.IPredULE: enum.IPredUGE, enum.IPredUGE: enum.IPredULE,
	}[p]
}
