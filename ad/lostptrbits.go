package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// checkPointerBitsLost reports the first access, through a pointer made
// from integer bits (inttoptr), of memory that holds derivatives, where
// those bits came from a pointer with a shadow (ptrtoint, then integer
// arithmetic the rewrite could not make a getelementptr: a mask to an
// alignment not known of the base, say). The pointer made has no shadow:
// a float read through it would carry no derivative, one written would
// leave the shadow of what it overwrites, so the gradient would be wrong
// without a word. The link stops instead.
func (d *differ) checkPointerBitsLost(f *ir.Func, act *activity.Info) error {
	users := map[value.Value][]ir.Instruction{}
	var casts []*ir.InstIntToPtr
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range operandsOf(inst) {
				users[irfacts.Unwrap(op)] = append(users[irfacts.Unwrap(op)], inst)
			}
			if c, ok := inst.(*ir.InstIntToPtr); ok {
				casts = append(casts, c)
			}
		}
	}
	for _, c := range casts {
		if act.HasShadow(c) {
			continue
		}
		src := shadowedBitsOf(c.From, act, map[value.Value]bool{})
		if src == nil {
			continue
		}
		if at := shadowlessAccess(c, users, d, map[value.Value]bool{}); at != nil {
			return errorAt(f, at, "%s goes through %s, a pointer made from the bits of %s (which points into memory holding derivatives) by integer operations gozyme cannot follow: it has no shadow, and the derivative through it would be lost (align or offset the pointer with pointer arithmetic, or align the allocation itself)", describe(at), c.Ident(), describeValue(src))
		}
	}
	return nil
}

// shadowedBitsOf is the pointer with a shadow whose bits integer v is
// computed from as an address (ptrtoint, then arithmetic), nil when none
// is: a difference of two pointers or the low bits kept by a mask are
// offsets, not addresses.
func shadowedBitsOf(v value.Value, act *activity.Info, seen map[value.Value]bool) value.Value {
	v = irfacts.Unwrap(v)
	if seen[v] || len(seen) > 256 {
		return nil
	}
	seen[v] = true
	switch x := v.(type) {
	case *ir.InstPtrToInt:
		if act.HasShadow(x.From) {
			return x.From
		}
		return nil
	case *ir.InstSub:
		return shadowedBitsOf(x.X, act, seen)
	case *ir.InstAnd:
		if k, ok := x.Y.(*constant.Int); ok && k.X.Sign() >= 0 && k.X.BitLen() <= 32 {
			return nil
		}
		if k, ok := x.X.(*constant.Int); ok && k.X.Sign() >= 0 && k.X.BitLen() <= 32 {
			return nil
		}
	case *ir.InstAdd, *ir.InstOr, *ir.InstXor, *ir.InstPhi, *ir.InstSelect, *ir.InstZExt, *ir.InstSExt, *ir.InstTrunc, *ir.InstFreeze:
	default:
		return nil
	}
	for _, op := range operandsOf(v.(ir.Instruction)) {
		if sel, ok := v.(*ir.InstSelect); ok && op == sel.Cond {
			continue
		}
		if p := shadowedBitsOf(op, act, seen); p != nil {
			return p
		}
	}
	return nil
}

// shadowlessAccess is the first use of pointer p (through getelementptrs,
// casts, phis and selects) that reads or writes floats or pointers, copies
// or sets memory, or passes p to a function that carries derivatives.
func shadowlessAccess(p value.Value, users map[value.Value][]ir.Instruction, d *differ, seen map[value.Value]bool) ir.Instruction {
	if seen[p] {
		return nil
	}
	seen[p] = true
	for _, u := range users[p] {
		switch x := u.(type) {
		case *ir.InstLoad:
			if irfacts.CarriesFloat(x.ElemType) || irfacts.HoldsPointers(x.ElemType) {
				return x
			}
		case *ir.InstStore:
			t := x.Src.Type()
			if irfacts.Unwrap(x.Dst) == p && (irfacts.CarriesFloat(t) || irfacts.HoldsPointers(t)) {
				return x
			}
		case *ir.InstCall:
			if irfacts.IsMemTransfer(x) || strings.HasPrefix(irfacts.CalleeName(x), "llvm.memset.") || d.passes(x) {
				return x
			}
		case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstPhi, *ir.InstSelect:
			if sel, ok := x.(*ir.InstSelect); ok && irfacts.Unwrap(sel.Cond) == p {
				continue
			}
			if at := shadowlessAccess(x.(value.Value), users, d, seen); at != nil {
				return at
			}
		}
	}
	return nil
}
