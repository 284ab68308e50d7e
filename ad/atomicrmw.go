package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// Atomic read-modify-write of floating point (CUDA's atomicAdd, OpenMP's
// atomic update): atomicrmw fadd p, v adds v into *p. Its derivative is
// the same as that of *p += v, atomic in forward mode (other threads add
// tangents there too):
//   - forward: atomicrmw fadd p', v';
//   - reverse: v̄ += p̄ (p̄ unchanged: the old value of *p flows on into
//     the new one with weight one); fsub subtracts.
// The old value it returns is not differentiated (an error where it
// carries a derivative), nor are the other operations (xchg, fmax, ...)
// on memory holding derivatives.

// isFloatAccumulate reports atomicrmw fadd or fsub.
func isFloatAccumulate(x *ir.InstAtomicRMW) bool {
	return (x.Op == enum.AtomicOpFAdd || x.Op == enum.AtomicOpFSub) && carriesFloat(x.X.Type())
}

// atomicActivity propagates activity through x in the forward pass of the
// activity analysis: a varied operand asks for the shadow of the memory;
// the old value read from shadowed memory is varied.
func (an *activityAnalysis) atomicActivity(x *ir.InstAtomicRMW) {
	a := an.a
	if a.varied[unwrapArg(x.X)] {
		an.demand(x.Dst, x)
	}
	if carriesFloat(x.Typ) && a.hasShadow(x.Dst) {
		an.set(a.varied, x)
	}
}

// reverseAtomic emits the reverse of atomicrmw x into blk.
func (r *reverseGen) reverseAtomic(blk, at *ir.Block, x *ir.InstAtomicRMW) error {
	if !r.act.hasShadow(x.Dst) || !carriesFloat(x.X.Type()) {
		return nil
	}
	if !isFloatAccumulate(x) {
		return errorAt(r.f, x, "%s on memory holding derivatives has no derivative rule (only atomic fadd and fsub)", describe(x))
	}
	if r.act.active(x) {
		return errorAt(r.f, x, "the value %s returns carries a derivative, which is not supported (use the updated memory instead)", describe(x))
	}
	if !r.act.active(x.X) {
		return nil
	}
	sp, err := r.lookupShadow(blk, at, x, x.Dst)
	if err != nil {
		return err
	}
	d := blk.NewLoad(x.X.Type(), sp)
	if x.Op == enum.AtomicOpFSub {
		r.accumulate(blk, x.X, blk.NewFNeg(d))
	} else {
		r.accumulate(blk, x.X, d)
	}
	return nil
}

// forwardAtomic emits the tangent of atomicrmw x into scratch.
func (fg *forwardGen) forwardAtomic(scratch *ir.Block, x *ir.InstAtomicRMW) error {
	if !fg.act.hasShadow(x.Dst) || !carriesFloat(x.X.Type()) {
		return nil
	}
	if !isFloatAccumulate(x) {
		return errorAt(fg.f, x, "%s on memory holding derivatives has no derivative rule (only atomic fadd and fsub)", describe(x))
	}
	if fg.needsTangent(x) && fg.act.useful[x] {
		return errorAt(fg.f, x, "the value %s returns carries a derivative, which is not supported (use the updated memory instead)", describe(x))
	}
	dst, err := fg.tangentOf(x, x.Dst)
	if err != nil {
		return err
	}
	dv, err := fg.tangentOf(x, x.X)
	if err != nil {
		return err
	}
	a := scratch.NewAtomicRMW(x.Op, dst, dv, x.Ordering)
	a.SyncScope = x.SyncScope
	return nil
}
