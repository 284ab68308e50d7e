package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Pointers moved together with integers as one integer value: the
// optimizer copies a struct's adjacent fields {long n; double *p} as one
// <2 x i64> (SLP vectorization), or a pair of them as an i128. The retype
// (retype_body.go) makes an integer a pointer only when it holds one
// pointer and nothing else; here the pointer's shadow must move with it.
// Where the type analysis tells every 8 bytes of the value (integers or
// pointers, at least one pointer, no float) and the value is read from
// memory with a shadow right before it is stored into memory with one (a
// copy: the same block, nothing written in between), the forward sweep
// copies the same bytes between the shadows, as it does for a memcpy of
// integers and pointers (memory.go): the shadow pointers arrive where the
// pointers do, and the integers' shadow bytes, which nothing reads, with
// them. Other such moves stop the link (checkOpaqueBits).

// intPointerCopy reports a store x of f that copies integer and pointer
// data read from memory with a shadow (see above), and the load it copies.
func (d *differ) intPointerCopy(f *ir.Func, x *ir.InstStore, act *activity.Info) (*ir.InstLoad, bool) {
	if d.bits == nil || d.bits.ta == nil || d.gpu || d.runtimeActivity || !act.HasShadow(x.Dst) || d.mayAliasPrimal(x.Dst) {
		return nil, false
	}
	ld, ok := irfacts.Unwrap(x.Src).(*ir.InstLoad)
	if !ok || !act.HasShadow(ld.Src) || !(isIntegers(ld.ElemType) || isIntegerAggregate(ld.ElemType)) || d.mayAliasPrimal(ld.Src) {
		return nil, false
	}
	if !d.bits.ta.IntegersAndPointers(ld) {
		return nil, false
	}
	// The load and the store in one block, nothing written between them.
	for _, b := range f.Blocks {
		between := false
		for _, inst := range b.Insts {
			switch {
			case inst == ld:
				between = true
			case inst == x:
				return ld, between
			case between && writesMemory(inst):
				return nil, false
			}
		}
		if between {
			return nil, false
		}
	}
	return nil, false
}

// writesMemory reports an instruction that may write memory.
func writesMemory(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstStore, *ir.InstCall, *ir.InstAtomicRMW, *ir.InstCmpXchg, *ir.InstFence:
		return true
	}
	return false
}

// copyShadowBytes emits into blk the copy of the shadow of ld's bytes to
// the shadow of x's destination: srcShadow and dstShadow are the shadow
// pointers of ld.Src and x.Dst.
func copyShadowBytes(blk *ir.Block, ld *ir.InstLoad, x *ir.InstStore, srcShadow, dstShadow value.Value) {
	t := ld.ElemType
	sp := srcShadow
	if !types.Equal(sp.Type(), types.NewPointer(t)) {
		sp = blk.NewBitCast(sp, types.NewPointer(t))
	}
	dp := dstShadow
	if !types.Equal(dp.Type(), types.NewPointer(t)) {
		dp = blk.NewBitCast(dp, types.NewPointer(t))
	}
	l := blk.NewLoad(t, sp)
	l.Align = ld.Align
	s := blk.NewStore(l, dp)
	s.Align = x.Align
}

// pointerAmongData reports an integer value wider than a pointer that the
// type analysis found to hold a pointer in some 8 aligned bytes: a pointer
// the retype cannot make a pointer value.
func (d *differ) pointerAmongData(v value.Value) bool {
	return d.bits != nil && d.bits.ta != nil && irutil.StoreSize(v.Type()) > 8 && d.bits.ta.HoldsPointer(v)
}
