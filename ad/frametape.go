package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Framed tapes: a call that a combined gradient differentiates through its
// callee's augmented forward / reverse pair, outside every loop of the
// primal, runs that pair at most once per call of the gradient, the
// reverse in the same frame as the forward, after it. Its tape then lives
// in the gradient's frame (an alloca given to the augmented forward as its
// last parameter; the reverse does not free it) instead of on the tape
// stack. Once LLVM inlines the pair, the tape is local memory: its fields
// become registers, and the reverse's use of a value the forward computed
// (sin and cos of the same angle, say) is that value, where reloading it
// from the heap kept every field stored and loaded (the shadow stores in
// between might write the tape as far as LLVM knows).
//
// Calls in loops (a tape per iteration, read in the reverse loop), calls
// from a pair's own functions (the tape outlives the augmented forward's
// frame), from the threads of a parallel region and on GPUs keep the tapes
// they had.

// frameSuffix is the name suffix of a framed pair.
func frameSuffix(framed bool) string {
	if framed {
		return "_f"
	}
	return ""
}

// framesTape reports whether the callee pair of call takes its tape from
// this gradient's frame (see above): a combined gradient's call outside
// the primal's loops, not run by a parallel region's threads.
func (r *reverseGen) framesTape(call *ir.InstCall, parallel bool) bool {
	if r.split || r.pair != nil || r.parallel || parallel || r.d.gpu {
		return false
	}
	if r.callBlock == nil {
		r.callBlock = map[*ir.InstCall]*ir.Block{}
		for _, b := range r.f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok {
					r.callBlock[c] = b
				}
			}
		}
	}
	b, ok := r.callBlock[call]
	return ok && r.cfg.LoopOf[b] == nil
}

// tapeFrame is the memory of a framed pair's tape for one call: an alloca
// of the tape's type in the gradient's entry (null when the pair has no
// tape).
func (r *reverseGen) tapeFrame(call *ir.InstCall, sg *splitGrad) (value.Value, error) {
	if !sg.done {
		return nil, errorAt(r.f, call, "internal error: the tape of '%s' is not known where its framed call is made (please report)", sg.aug.Name())
	}
	if sg.tape == nil {
		return constant.NewNull(types.I8Ptr), nil
	}
	a := ir.NewAlloca(sg.tape)
	a.Align = 16 // as malloc's memory: the tape's loads and stores may assume it
	p := ir.NewBitCast(a, types.I8Ptr)
	r.allocas.Insts = append(r.allocas.Insts, a, p)
	return p, nil
}
