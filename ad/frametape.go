package ad

import (
	"fmt"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Framed tapes: a call that a gradient differentiates through its
// callee's augmented forward / reverse pair gets its tape's memory from the
// caller (an i8* given to the augmented forward as its last parameter; the
// reverse does not free it) instead of from the tape stack, where the
// caller owns memory that lives from the call's forward to its reverse:
//
//   - a combined gradient's call outside every loop of the primal runs the
//     pair at most once per call of the gradient, the reverse in the same
//     frame as the forward, after it: the tape is an alloca in the
//     gradient's frame. Once LLVM inlines the pair, its fields become
//     registers, and the reverse's use of a value the forward computed
//     (sin and cos of the same angle, say) is that value, where reloading
//     it from the heap kept every field stored and loaded (the shadow
//     stores in between might write the tape as far as LLVM knows).
//   - a call inside a loop (of a combined gradient or of a pair) runs at
//     most once per iteration of its innermost loop: the tape is a field of
//     that loop's iteration record (record.go), addressed in the forward by
//     the iteration's index and in the reverse by the same iteration's, as
//     the loop's cached values are. The record buffer lives until the
//     caller's reverse frees it, after the callee's reverse has run. It may
//     move when a later iteration grows it (the growth copies the records,
//     tapes included), so the reverse never keeps the forward's address: it
//     takes the field's address in the buffer as it is then. A recursive
//     function (det by minors: a tape per call) thus allocates and frees no
//     tape per call, only its loops' record buffers.
//
// Calls outside loops in a pair's own functions (the tape outlives the
// augmented forward's frame), from the threads of a parallel region and on
// GPUs keep the tapes they had.

// frameSuffix is the name suffix of a framed pair.
func frameSuffix(framed bool) string {
	if framed {
		return "_f"
	}
	return ""
}

// loopFrame is where a framed call inside a loop finds its callee's tape:
// field buf of loop cache lc's records.
type loopFrame struct {
	lc  *loopCache
	buf *loopBuf
}

// framesTape reports whether the callee pair of call takes its tape from
// the caller (see above): not run by a parallel region's threads nor on a
// GPU, and either in a loop of the primal or a combined gradient's call.
func (r *reverseGen) framesTape(call *ir.InstCall, parallel bool) bool {
	if r.parallel || parallel || r.d.gpu {
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
	if !ok {
		return false
	}
	if r.cfg.LoopOf[b] != nil {
		return true
	}
	return !r.split && r.pair == nil
}

// frameType returns the named struct type of the tape of the framed pair
// named augName, registered in the module with no fields yet.
func (d *differ) frameType(augName string) *types.StructType {
	name := "gozyme.tape." + augName
	taken := map[string]bool{}
	for _, t := range d.m.TypeDefs {
		taken[t.Name()] = true
	}
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("gozyme.tape.%s.%d", augName, i)
	}
	t := &types.StructType{}
	d.m.NewTypeDef(name, t)
	return t
}

// tapeFrame returns the memory of a framed pair's tape for one call in
// primal block b (null when the pair is known to have no tape), with the
// forward instructions computing its address: a field of the iteration
// record of b's loop, or an alloca of the tape's type in the gradient's
// entry.
func (r *reverseGen) tapeFrame(b *ir.Block, call *ir.InstCall, sg *splitGrad) (value.Value, []ir.Instruction, error) {
	if sg.done && sg.tape == nil {
		return constant.NewNull(types.I8Ptr), nil, nil
	}
	if l := r.cfg.LoopOf[b]; l != nil {
		lc := r.loops[l]
		if lc.fwdIdx == nil {
			return nil, nil, errorAt(r.f, call, "internal error: the iteration of the loop around the call of '%s' is not known where the call's tape is placed (please report)", sg.aug.Name())
		}
		lf := loopFrame{lc: lc, buf: r.recordSlot(lc, call, sg.frame)}
		if r.loopFrames == nil {
			r.loopFrames = map[*ir.InstCall]loopFrame{}
		}
		r.loopFrames[call] = lf
		base := ir.NewLoad(lc.slot.ElemType, lc.slot)
		gep := r.fieldAddr(lc, base, lc.fwdIdx, lf.buf)
		p := ir.NewBitCast(gep, types.I8Ptr)
		return p, []ir.Instruction{base, gep, p}, nil
	}
	if !sg.done {
		return nil, nil, errorAt(r.f, call, "internal error: the tape of '%s' is not known where its framed call is made (please report)", sg.aug.Name())
	}
	a := ir.NewAlloca(sg.tape)
	a.Align = 16 // as malloc's memory: the tape's loads and stores may assume it
	p := ir.NewBitCast(a, types.I8Ptr)
	r.allocas.Insts = append(r.allocas.Insts, a, p)
	return p, nil, nil
}

// loopFrameAddr emits into blk, in the reverse of the framed call's loop,
// the address of the call's tape in the record of the iteration being
// reversed.
func (r *reverseGen) loopFrameAddr(blk *ir.Block, lf loopFrame) value.Value {
	idx := blk.NewLoad(types.I64, lf.lc.counter)
	base := blk.NewLoad(lf.lc.slot.ElemType, lf.lc.slot)
	gep := r.fieldAddr(lf.lc, base, idx, lf.buf)
	blk.Insts = append(blk.Insts, gep)
	return blk.NewBitCast(gep, types.I8Ptr)
}
