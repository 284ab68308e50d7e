package cacheplan

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// HeaderCount emits into blk the number of header executions of one
// entry of the loop: 1 + the number of k for which x_k pred bound holds,
// with the primal start and bound mapped by val, clamped to
// [1, ReserveLimit+1] when clamp is set.
func HeaderCount(blk *ir.Block, tc *TripCount, val func(value.Value) value.Value, clamp bool) value.Value {
	return CountHeader(blk, tc, val, clamp, false)
}

// CountHeader is HeaderCount; met says the induction variable is known to
// have reached the bound (ExitCount), so a negative distance is not
// clamped.
func CountHeader(blk *ir.Block, tc *TripCount, val func(value.Value) value.Value, clamp, met bool) value.Value {
	signed := tc.Pred != enum.IPredULT && tc.Pred != enum.IPredULE && tc.Pred != enum.IPredUGT && tc.Pred != enum.IPredUGE
	ext := func(v value.Value) value.Value {
		v = val(v)
		it, ok := v.Type().(*types.IntType)
		switch {
		case !ok || it.BitSize == 64:
			return v
		case it.BitSize > 64:
			return blk.NewTrunc(v, types.I64)
		case signed && it.BitSize > 1:
			return blk.NewSExt(v, types.I64)
		}
		return blk.NewZExt(v, types.I64)
	}
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	first := blk.NewAdd(ext(tc.Start), i64(tc.Offset)) // x_0
	bound := ext(tc.Bound)
	if tc.Pred == enum.IPredEQ {
		return blk.NewAdd(blk.NewZExt(blk.NewICmp(enum.IPredEQ, first, bound), types.I64), i64(1))
	}
	// dist: how far x_0 is from the bound, in the direction of the step.
	var dist value.Value
	step := tc.Step
	if step > 0 {
		dist = blk.NewSub(bound, first)
	} else {
		dist = blk.NewSub(first, bound)
		step = -step
	}
	var k value.Value
	switch tc.Pred {
	case enum.IPredSLE, enum.IPredULE, enum.IPredSGE, enum.IPredUGE: // floor(dist/step) + 1
		k = blk.NewAdd(blk.NewSDiv(dist, i64(step)), i64(1))
	case enum.IPredNE:
		k = dist
		if step != 1 {
			k = blk.NewSDiv(dist, i64(step))
		}
		if met {
			return blk.NewAdd(k, i64(1))
		}
	default: // ceil(dist/step)
		k = blk.NewSDiv(blk.NewAdd(dist, i64(step-1)), i64(step))
	}
	neg := blk.NewICmp(enum.IPredSLT, dist, i64(0))
	k = blk.NewSelect(neg, i64(0), k)
	if clamp {
		big := blk.NewICmp(enum.IPredSGT, k, i64(ReserveLimit))
		k = blk.NewSelect(big, i64(ReserveLimit), k)
	}
	return blk.NewAdd(k, i64(1))
}

// ExitCount is HeaderCount for an entry of the loop that left it through its
// exit test: its exit value is read, its reverse entered from below, or it
// ran in an earlier iteration of the loop around a recomputed snapshot
// (package ad's counters.go; where it did not run, its count is multiplied by zero there,
// the number of earlier iterations). Where the count is exact and the test
// is !=, the induction variable met the bound, so the distance to it is not
// negative, and HeaderCount's clamp of a negative one (a do-while loop
// entered past its bound) is left out. Both values are 64-bit there
// (ExactCount).
func ExitCount(blk *ir.Block, tc *TripCount, val func(value.Value) value.Value) value.Value {
	return CountHeader(blk, tc, val, false, tc.Pred == enum.IPredNE && ExactCount(tc))
}

// ExactCount reports whether HeaderCount is the exact header count of an
// entry of a loop with trip count tc that leaves it through its exit test
// (the reverse reads it where the loop was left, or entered from below, or
// ran in an earlier iteration of the loop around: it terminated). It
// assumes, and proves from the IR:
//   - every iteration that goes on has evaluated the exit test on its own
//     x_k: each exiting block dominates the latch (tc.Every); the loop is
//     left at the first k where x_k pred bound fails;
//   - x_k runs to the bound without wrapping around: for signed
//     comparisons, the adds computing x_k carry nsw (tc.NSW: a wrapped
//     value is poison, a branch on it undefined), or x_k moves by 1 from
//     the start itself (it meets every value between x_0 and the bound,
//     the bound included, before the end of its range), or it is 64-bit
//     with a step and offset of at most 16 (wrapping past the bound would
//     take 2^59 iterations and more). A narrow counter converted back
//     after each step (a short stepped by 300 under < 32700) wraps where
//     C defines it, and runs far past the count;
//   - or it meets the bound exactly (!= on a 64-bit variable with a step
//     and offset of at most 16: missing the bound, or starting past it, it
//     would wrap around, 2^59 iterations and more);
//   - or it continues while equal to the bound (once at most, as x_1 =
//     x_0 + step differs from x_0).
//
// Other loops (unsigned comparisons, != on narrower counters, exits on
// the data, tests some iterations skip) get no count: the reverse records
// what it needs instead (their entry counters stay cached).
func ExactCount(tc *TripCount) bool {
	if !tc.Every {
		return false
	}
	it, _ := tc.Phi.Typ.(*types.IntType)
	wide := it != nil && it.BitSize == 64 && tc.Step >= -16 && tc.Step <= 16 && tc.Offset >= -16 && tc.Offset <= 16
	switch tc.Pred {
	case enum.IPredSLT, enum.IPredSLE, enum.IPredSGT, enum.IPredSGE:
		return tc.NSW || wide || ((tc.Step == 1 || tc.Step == -1) && tc.Offset == 0)
	case enum.IPredEQ:
		return true
	case enum.IPredNE:
		return wide
	}
	return false
}
