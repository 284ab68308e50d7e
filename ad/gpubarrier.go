package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Barriers in reverse. __syncthreads() orders the block's threads: what
// any thread did before it happens before what any thread does after it.
// The primal is race-free, so two threads touch the same memory in the
// same interval between barriers only to read it. The reverse sweep runs
// the intervals in the opposite order, each thread its own reversed
// accesses; a barrier at the mirrored point keeps the intervals apart
// again: the adjoints a later interval accumulated (the reverse of its
// loads, atomic where threads share memory) are complete before an
// earlier interval reads and clears them (the reverse of its stores).
// Enzyme's SC'21 proof goes by the same cases.

// isBarrier reports a block-wide or warp-wide barrier.
func isBarrier(c *ir.InstCall) bool {
	switch irfacts.CalleeName(c) {
	case "llvm.nvvm.barrier0", "llvm.nvvm.barrier0.and", "llvm.nvvm.barrier0.or", "llvm.nvvm.barrier0.popc",
		"llvm.nvvm.barrier.sync", "llvm.nvvm.barrier.sync.cnt", "llvm.nvvm.barrier",
		"llvm.nvvm.barrier.n", "llvm.nvvm.bar.sync", "llvm.nvvm.bar.warp.sync":
		return true
	}
	return false
}

// mirrorBarrier emits, in the reverse of primal block at, the barrier that
// mirrors primal barrier c: the same barrier (its operands as the forward
// sweep had them); the counting and voting forms (__syncthreads_count,
// _and, _or) as the plain one, their results being integers.
func (r *reverseGen) mirrorBarrier(blk, at *ir.Block, c *ir.InstCall) {
	switch irfacts.CalleeName(c) {
	case "llvm.nvvm.barrier0.and", "llvm.nvvm.barrier0.or", "llvm.nvvm.barrier0.popc":
		b := rules.Declare(r.m, "llvm.nvvm.barrier0", types.Void)
		markConvergent(b)
		blk.NewCall(b)
		return
	}
	args := make([]value.Value, len(c.Args))
	for i, a := range c.Args {
		args[i] = r.lookup(blk, at, a)
	}
	m := blk.NewCall(c.Callee, args...)
	m.FuncAttrs = c.FuncAttrs
}

// hasBarrier reports whether f calls a barrier.
func hasBarrier(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok && isBarrier(c) {
				return true
			}
		}
	}
	return false
}
