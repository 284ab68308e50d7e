package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// realloc of memory with a shadow, as Enzyme treats it: a fresh block plus
// a copy of the old contents plus a free of the old block. The forward
// sweep gives the new block a fresh zeroed shadow and copies the old
// shadow into it; the old shadow stays alive, since the reverse sweep
// still adds adjoints into it (it is freed by the reverse of its own
// allocation). The reverse of the realloc hands the adjoints of the copied
// floats back to the old shadow and frees the new one.
//
// The number of bytes copied is min(n, malloc_usable_size(old shadow)):
// shadows of C allocations are zeroed over their whole usable size, so the
// bytes past the old block's requested size are zeros.

// isCAllocation reports allocations whose memory realloc may resize.
func isCAllocation(c *ir.InstCall) bool {
	switch irfacts.CalleeName(c) {
	case "malloc", "calloc", "aligned_alloc", "realloc":
		return true
	}
	return false
}

// usableSize emits malloc_usable_size(p) (0 for a null p).
func usableSize(m *ir.Module, out *[]ir.Instruction, p value.Value) value.Value {
	c := ir.NewCall(rules.Declare(m, "malloc_usable_size", types.I64, types.I8Ptr), bitCastTo(out, p, types.I8Ptr))
	*out = append(*out, c)
	return c
}

// reallocShadow emits the forward shadow of q = realloc(p, n).
func (r *reverseGen) reallocShadow(b *ir.Block, x *ir.InstCall, out *[]ir.Instruction) (value.Value, error) {
	var sp value.Value = constant.NewNull(types.I8Ptr)
	if r.act.HasShadow(x.Args[0]) {
		s, err := r.shadowOf(x, x.Args[0])
		if err != nil {
			return nil, err
		}
		sp = s
		// The old block is freed (shadowlife.go).
		notes, err := r.noteShadowFree(x, x.Args[0])
		if err != nil {
			return nil, err
		}
		*out = append(*out, notes...)
	}
	n := zextI64(out, irfacts.Unwrap(x.Args[1]))
	sq := ir.NewCall(rules.Declare(r.m, "malloc", types.I8Ptr, types.I64), n)
	*out = append(*out, sq)
	*out = append(*out, memsetZero(r.m, sq, usableSize(r.m, out, sq))...)
	old := usableSize(r.m, out, sp)
	less := ir.NewICmp(enum.IPredULT, old, n)
	m := ir.NewSelect(less, old, n)
	*out = append(*out, less, m)
	sp = bitCastTo(out, sp, types.I8Ptr)
	cp := rules.Declare(r.m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	*out = append(*out, ir.NewCall(cp, sq, sp, m, constant.False))
	r.blockOf[m] = b
	if r.reallocCopied == nil {
		r.reallocCopied = map[*ir.InstCall]value.Value{}
	}
	r.reallocCopied[x] = m
	return bitCastTo(out, sq, x.Typ), nil
}

// reverseRealloc emits the reverse of q = realloc(p, n): the adjoints of
// the copied floats go back to p's shadow, and q's shadow is freed.
func (r *reverseGen) reverseRealloc(blk, at *ir.Block, x *ir.InstCall) error {
	if !r.act.HasShadow(x) {
		return nil
	}
	sq, err := r.lookupShadow(blk, at, x, x)
	if err != nil {
		return err
	}
	elem, mixed, err := r.reallocElement(x)
	if err != nil {
		return err
	}
	if elem != nil || mixed != nil {
		var sp value.Value = constant.NewNull(types.I8Ptr)
		if r.act.HasShadow(x.Args[0]) {
			if sp, err = r.lookupShadow(blk, at, x, x.Args[0]); err != nil {
				return err
			}
		}
		m := r.lookupForward(blk, at, r.reallocCopied[x], at)
		if elem != nil {
			blk.NewCall(r.memcpyAdjoint(elem), blk.NewBitCast(sq, types.I8Ptr), blk.NewBitCast(sp, types.I8Ptr), m)
		} else {
			h, err := r.layoutCopyHelper(mixed, true)
			if err != nil {
				return errorAt(r.f, x, "cannot differentiate %s: %v", describe(x), err)
			}
			// Whole elements only: the old block held whole elements.
			sz := blk.NewUDiv(m, sizeOf(mixed))
			blk.Insts = append(blk.Insts, callLayoutHelper(h, sq, sp, blk.NewMul(sz, sizeOf(mixed)))...)
		}
	}
	blk.NewCall(r.shadowRelease(x, "free"), blk.NewBitCast(sq, types.I8Ptr))
	return nil
}

// reallocElement finds what the realloc'd memory holds from the typed
// pointers it is used as (reallocFamily: the pointers connected to the call
// through casts, phis, selects, other reallocs and the memory they are
// kept in): elements of one float type (elem), or of one aggregate type
// mixing floats with other data (mixed), or neither (no floats). What it
// holds is unknown, an error rather than "no floats", where floats sit at
// byte offsets into the block, or where no pointer to it has a type other
// than i8* and it may be used where this function does not show it.
// Not castEvidence (tbaa.go): that follows no phis, selects or
// reallocs, and gives up on the mixed aggregates and integer casts this
// accepts.
func (r *reverseGen) reallocElement(x *ir.InstCall) (elem *types.FloatType, mixed types.Type, err error) {
	set, uses := reallocFamily(r.f, x)
	unclear := errorAt(r.f, x, "cannot tell which bytes of %s hold floating point", describe(x))
	typed := false
	for v := range set {
		pt, ok := v.Type().(*types.PointerType)
		if ok && !types.Equal(pt.ElemType, types.I8) {
			typed = true
		}
		if !ok || types.Equal(pt.ElemType, types.I8) || !irfacts.CarriesFloat(pt.ElemType) {
			continue
		}
		e := floatElement(pt.ElemType)
		switch {
		case e == nil && mixedLayout(pt.ElemType) && (mixed == nil || types.Equal(mixed, pt.ElemType)):
			mixed = pt.ElemType
		case e == nil || (elem != nil && !types.Equal(e, elem)):
			return nil, nil, unclear
		default:
			elem = e
		}
	}
	if (elem != nil && mixed != nil) || uses.offsetFloat || (!typed && !uses.offsetTyped && uses.elsewhere) {
		return nil, nil, unclear
	}
	return elem, mixed, nil
}
