package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Integers of unknown bits moved between memories that hold derivatives
// (checkOpaqueBits, retype_check.go). An integer read from memory with a
// shadow whose bits the type analysis cannot tell may be a float, a
// pointer or an integer. Moved as an integer into memory with a shadow, a
// float's derivative stays behind (neither sweep moves it) and a
// pointer's shadow is not copied; an integer loses nothing. Nothing at
// run time tells them apart either: a check that both shadows are zero
// (zeroshadowcopy.go) stops programs whose shadow objects are copies of
// the primal, or are left uninitialized where they hold integers
// (mixedstruct1's frame, Eigen's dimensions). So the type analysis tells
// what it can from the uses of the value and of the memory
// (ad/typeanalysis: intuse.go, retargs.go), and what stays unknown stops
// the link where it is stored into memory with a shadow:
//   - seeds: loads from memory with a shadow;
//   - moves: casts, phis, selects, aggregates, and calls that return an
//     argument's bits (returnsArg);
//   - sinks: stores into memory with a shadow.
// Moves through calls are not followed: bits a getter returns from memory
// with a shadow, or passes to a callee that stores them there. Eigen's
// getters and constructors do that with sizes and strides that nothing in
// the differentiated code uses as integers (Block::init storing
// outerStride() into the block, an evaluator's constructor storing it):
// seeding call results or following arguments stopped correct programs
// of Enzyme's integration suite. Those moves stay unchecked.

// One store is decided at run time instead: 4 unknown bytes (no pointer
// fits in them: a float or an integer, std::swap<int> on a permutation's
// indices kept in an object with a shadow) stored into memory with a
// shadow, in the reverse sweep. A float's store leaves the shadows alone
// in the forward sweep, and its reverse adds the destination's adjoint
// into the source's and clears it, a no-op where that adjoint is zero;
// an integer's does nothing. So the reverse of the store checks that the
// destination's 4 shadow bytes are zero, and stops the program with a
// message naming the store otherwise (zeroShadowCheck): either way the
// derivative is exact or the program stops. Not where the shadow may be
// the primal itself (run-time activity), nor on a GPU.

// zeroCheckable reports a store whose unknown bytes the reverse sweep may
// check the shadow of instead of stopping the link.
func (d *differ) zeroCheckable(st *ir.InstStore) bool {
	if d.gpu || d.runtimeActivity || d.mayAliasPrimal(st.Dst) {
		return false
	}
	if it, ok := st.Src.Type().(*types.IntType); !ok || it.BitSize != 32 {
		return false
	}
	if d.zeroChecked == nil {
		d.zeroChecked = map[*ir.InstStore]bool{}
	}
	return true
}

// zeroCheckMessage is the run-time error of the check of store st in f.
func (d *differ) zeroCheckMessage(f *ir.Func, st *ir.InstStore) value.Value {
	return d.message(st, "gozyme: the derivative of "+f.Name()+" cannot tell whether the 4 bytes a store moves hold a float or an integer, and their shadow is not zero: the float's derivative would be lost")
}

// unknownBitsErr is the link's error for unknown bits (why: where they
// come from) reaching at (where: what happens to them there).
func unknownBitsErr(f *ir.Func, at interface{}, why, where string) error {
	return errorAt(f, at, "%s: %s is %s as an integer; gozyme cannot tell whether it holds a float (whose derivative would be lost), a pointer (whose shadow would not be copied) or an integer (move floats as floats and pointers as pointers, or use the value as an integer where it is read)", describe(at), why, where)
}

// returnsArg reports a call that may return the bits of argument v (as
// its result, or part of it): a callee without a body, or one whose
// parameter reaches a return through moves of its bits.
func (d *differ) returnsArg(c *ir.InstCall, v value.Value) bool {
	g, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok || len(g.Blocks) == 0 {
		return true
	}
	for i, a := range c.Args {
		if irfacts.Unwrap(a) == v && i < len(g.Params) && d.paramReturned(g, g.Params[i], 4) {
			return true
		}
	}
	return false
}

// paramReturned follows p's bits through g's moves (casts, phis, selects,
// aggregates, local scalar slots, calls returning them) to a return; depth
// bounds the calls followed (beyond it, a call may return them). A
// parameter whose bits the type analysis tells (from the callee's uses
// and all its callers) returns no unknown bits.
func (d *differ) paramReturned(g *ir.Func, p value.Value, depth int) bool {
	if d.bits != nil && d.bits.ta != nil && d.bits.ta.Known(p) && !d.bits.ta.UnknownBits(p) {
		return false
	}
	moved := map[value.Value]bool{p: true}
	work := []value.Value{p}
	users := usersOf(g)
	move := func(r value.Value) {
		if !moved[r] {
			moved[r] = true
			work = append(work, r)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, u := range users[v] {
			switch x := u.(type) {
			case *ir.InstStore:
				if irfacts.Unwrap(x.Src) != v {
					continue
				}
				if slot, ok := irfacts.Unwrap(x.Dst).(*ir.InstAlloca); ok && scalarSlot(slot, users[slot]) {
					// A local slot (a spilled parameter at -O0): its
					// loads move the bits on.
					for _, l := range users[slot] {
						if ld, ok := l.(*ir.InstLoad); ok {
							move(ld)
						}
					}
				}
			case *ir.InstCall:
				if !passesBits(x) {
					continue
				}
				h, ok := irutil.StripCasts(x.Callee).(*ir.Func)
				if !ok || len(h.Blocks) == 0 || depth == 0 {
					move(x)
					continue
				}
				for i, a := range x.Args {
					if irfacts.Unwrap(a) == v && i < len(h.Params) && d.paramReturned(h, h.Params[i], depth-1) {
						move(x)
					}
				}
			case *ir.InstBitCast, *ir.InstPhi, *ir.InstSelect, *ir.InstFreeze, *ir.InstTrunc, *ir.InstZExt, *ir.InstSExt,
				*ir.InstIntToPtr, *ir.InstPtrToInt, *ir.InstExtractValue, *ir.InstInsertValue, *ir.InstExtractElement, *ir.InstInsertElement:
				if r, ok := u.(value.Value); ok {
					move(r)
				}
			}
		}
	}
	for _, b := range g.Blocks {
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && moved[irfacts.Unwrap(r.X)] {
			return true
		}
	}
	return false
}

// scalarSlot reports an alloca of one integer used only by loads and
// stores to it (not escaping): what is stored there is read back only
// through its loads. users are a's (usersOf).
func scalarSlot(a *ir.InstAlloca, users []interface{}) bool {
	if a.NElems != nil || !isIntegers(a.ElemType) {
		return false
	}
	for _, u := range users {
		switch x := u.(type) {
		case *ir.InstLoad:
		case *ir.InstStore:
			if irfacts.Unwrap(x.Dst) != a || irfacts.Unwrap(x.Src) == a {
				return false
			}
		default:
			return false
		}
	}
	return true
}
