package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// Reloads across a split. A called function's reverse (split.go) runs in
// another function than its augmented forward: after the forward returned,
// its caller went on, and the caller's reverse sweep came back to the call.
// A load of the callee may be executed again in its reverse (instead of
// cached on the tape) only where what it read is still there, unchanged:
//
//   - nothing that may write primal memory runs between the augmented
//     forward's return and the reverse's start: in the caller, no writer may
//     run after the call (the call itself included where it lies on a
//     cycle), and the caller is the combined gradient (its forward and
//     reverse sweeps run back to back in one frame; its frees are deferred
//     to its end) or a split function for which the same holds, up to the
//     root (quiet, one version of the pair per answer: its name ends in _q);
//     reverse sweeps write shadows, tapes and caches only;
//   - the memory is still alive: no function on the chain of split
//     functions from the root to the load (the callee included) has an
//     alloca, whose frame is gone once its augmented forward returned (a
//     byval parameter is one: explicitByval);
//   - inside the callee, no writer may run after the load (loadRecomputable,
//     as in the combined gradient).
//
// Threads of a parallel region and GPU code never qualify: other threads
// may write in between.

// reloadsAcrossSplit reports whether this split function's reverse may load
// primal memory again (the conditions above, for its own body and chain).
func (r *reverseGen) reloadsAcrossSplit() bool {
	if !r.split || !r.quiet || r.parallel || r.d.gpu {
		return false
	}
	return !hasAlloca(r.f)
}

// quietAfter reports whether nothing may write primal memory after primal
// call c of this function's forward sweep before the reverse sweep comes
// back to it, nor in any caller up to the root (see above).
func (r *reverseGen) quietAfter(c *ir.InstCall) bool {
	if r.parallel || r.d.gpu || (r.split && !r.reloadsAcrossSplit()) {
		return false
	}
	if r.blockOf[c] == nil {
		return false
	}
	for _, w := range r.writers() {
		if r.mayRunAfterCall(w, c) {
			return false
		}
	}
	return true
}

// mayRunAfterCall is mayRunAfter for primal call c: later in c's block, or
// in a block reachable from it; c itself (a writer too) runs after itself
// only when its block lies on a cycle.
func (r *reverseGen) mayRunAfterCall(w memWriter, c *ir.InstCall) bool {
	cb := r.blockOf[c]
	if cb == nil {
		return true
	}
	if cb == w.block {
		for _, inst := range cb.Insts {
			switch inst {
			case w.inst:
				return r.reachable(cb)[cb] // w is c or comes before it
			case c:
				return true // w comes later
			}
		}
	}
	return r.reachable(cb)[w.block]
}

// hasAlloca reports whether f allocates stack memory.
func hasAlloca(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if _, ok := inst.(*ir.InstAlloca); ok {
				return true
			}
		}
	}
	return false
}

// dropsLifetime reports whether primal instruction inst is a lifetime marker
// the combined gradient leaves out of its forward sweep: there every
// alloca then lives from the function's entry to its exit, so the reverse
// sweep (and the reverses of the functions it calls) may read a local
// again after the primal's lifetime.end. Leaving the markers out is sound:
// they only shorten lives (a read the primal made before a store, of an
// uninitialized object, now sees an earlier value, one of the values
// undefined contents may have). Split functions keep them: their frames
// end with the augmented forward anyway. So do GPU kernels, whose locals
// take per-thread local memory that the markers let the code generator
// share.
func (r *reverseGen) dropsLifetime(inst ir.Instruction) bool {
	c, ok := inst.(*ir.InstCall)
	return ok && !r.split && !r.d.gpu && strings.HasPrefix(irfacts.CalleeName(c), "llvm.lifetime.")
}
