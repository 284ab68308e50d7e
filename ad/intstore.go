package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Integers stored over floats that carry derivatives. An integer store
// (a bit pattern memcpy'd over a double, a union's integer member, a
// struct copy whose integer field overlays another variant's double, an
// i32 over the low half of a double, a <2 x i64> over two doubles) leaves
// memory holding floats that no float operation computed from the active
// inputs, or rounded (low bytes replaced): their derivative is zero. An
// integer over a float's top byte (sign and exponent) that keeps its
// other bytes leaves it scaled or signed anew, a derivative that is not
// zero: the link stops (floatTopErr). Neither sweep touches a shadow for
// an integer store, so the old derivative stayed there (a silent wrong
// gradient). intOverFloat gives the shadow bytes such a store clears —
// the floats it overwrites, whole (the type analysis:
// typeanalysis.FloatsOverwritten) — and both sweeps clear them: the
// forward sweep's tangent there becomes zero, the reverse sweep's adjoint
// stops there. Bits that did come from a float carrying a derivative
// are not zero: where the integer's bits may (a float's bits put through
// integer arithmetic, an integer read from memory with a shadow whose
// bits the analysis cannot tell, a call returning such bits) the link
// stops. Stores of a float's bits unchanged were made float stores by
// the rewrite (retype_body.go) and do not come here.

// intOverFloat reports the window [lo, hi), relative to x's address, of
// shadow bytes that integer store x clears; ok is false for stores it
// does not concern (no shadow, not integers, pointer bits, no float
// known there).
func (d *differ) intOverFloat(f *ir.Func, x *ir.InstStore, act *activity.Info) (lo, hi int64, ok bool, err error) {
	if d.bits == nil || d.bits.ta == nil || x.Atomic || !isIntegers(x.Src.Type()) || !act.HasShadow(x.Dst) {
		return 0, 0, false, nil
	}
	ta := d.bits.ta
	if !ta.Known(x.Dst) || ta.IsPointerBits(x.Src) || ta.HoldsPointer(x.Src) {
		return 0, 0, false, nil
	}
	size := irutil.StoreSize(x.Src.Type())
	lo, hi, found, exact := ta.FloatsOverwritten(irfacts.Unwrap(x.Dst), size)
	if !found {
		return 0, 0, false, nil
	}
	if err := d.checkFloatTop(f, x, x.Dst, size); err != nil {
		return 0, 0, false, err
	}
	if !exact {
		// The floats here cannot be delimited (a variable index into memory
		// holding floats and integers at places the analysis cannot tell
		// apart, such as an array of structs with an integer field moved by
		// memmove): clear the bytes the store writes, whole aligned doubles.
		// A float it covers whole loses its derivative; an integer field's
		// shadow holds none. A store of fewer bytes may cover part of a
		// float, whose rest would keep its derivative.
		// A store of fewer bytes whose block also writes the rest of the
		// words it writes with integers (a pair of 32-bit stores, such as
		// kiss_fft's factors written through a walking int pointer) leaves
		// whole words of integers: it clears them.
		lo, hi = 0, size
		if size%8 != 0 {
			wlo, whi, ok := typeanalysis.AlignedWords(irfacts.Unwrap(x.Dst), size)
			if !ok || !intWrittenAround(f, x, irfacts.Unwrap(x.Dst), wlo, whi, size) {
				return 0, 0, false, errorAt(f, x, "%s overwrites part of floats that carry derivatives with integers, at places whose floats gozyme cannot delimit (their derivatives would be kept): store floats whole", describe(x))
			}
			lo, hi = wlo, whi
		}
	}
	if why := d.floatBitsOrigin(x.Src, act); why != "" {
		return 0, 0, false, errorAt(f, x, "%s overwrites a float that carries a derivative with an integer, and %s: gozyme cannot tell whether the float the memory then holds has a derivative (store floats as floats, or compute the integer from integers)", describe(x), why)
	}
	return lo, hi, true, nil
}

// checkFloatTop stops the link where integer write at, of size bytes
// through dst, overwrites the sign and exponent of a float that carries a
// derivative but keeps some of its other bytes
// (typeanalysis.FloatTopOverwritten): the float it leaves is the old one
// scaled or signed anew. Bytes the writes just before it in its block
// replaced with integers (a double written as two 32-bit words, low then
// high) hold no derivative any more: a write completing those is a whole
// overwrite.
func (d *differ) checkFloatTop(f *ir.Func, at ir.Instruction, dst value.Value, size int64) error {
	big, lo, hi, same := d.bits.ta.FloatTopOverwritten(irfacts.Unwrap(dst), size)
	if big == 0 || same && intWrittenBefore(f, at, irfacts.Unwrap(dst), lo, 0) && intWrittenBefore(f, at, irfacts.Unwrap(dst), size, hi) {
		return nil
	}
	return errorAt(f, at, "%s overwrites the sign and exponent of a %d-byte float that carries a derivative but keeps its other bits: the float it leaves is the old one scaled or signed anew (as ldexp or fabs would make it), a derivative gozyme cannot follow through integers (use ldexp, frexp, fabs, copysign or float arithmetic)", describe(at), big)
}

// intWrittenBefore reports whether the bytes [lo, hi) relative to dst all
// hold integers written by the instructions before at in its block (stores
// of integers, copies and sets of constant length from memory without
// floats), nothing between writing memory otherwise.
func intWrittenBefore(f *ir.Func, at ir.Instruction, dst value.Value, lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	var b *ir.Block
	for _, bb := range f.Blocks {
		for _, inst := range bb.Insts {
			if inst == at {
				b = bb
			}
		}
	}
	if b == nil {
		return false
	}
	covered := make([]bool, hi-lo)
	left := hi - lo
	cover := func(p value.Value, n int64) {
		delta, ok := typeanalysis.ConstDelta(dst, p)
		if !ok {
			return
		}
		for k := max(delta, lo); k < min(delta+n, hi); k++ {
			if !covered[k-lo] {
				covered[k-lo] = true
				left--
			}
		}
	}
	i := len(b.Insts) - 1
	for i >= 0 && b.Insts[i] != at {
		i--
	}
	for i--; i >= 0 && left > 0; i-- {
		switch x := b.Insts[i].(type) {
		case *ir.InstStore:
			if !isIntegers(x.Src.Type()) {
				return false
			}
			cover(x.Dst, irutil.StoreSize(x.Src.Type()))
		case *ir.InstCall:
			name := irfacts.CalleeName(x)
			switch {
			case strings.HasPrefix(name, "llvm.memcpy") || strings.HasPrefix(name, "llvm.memmove"):
				n, ok := intConstOf(x.Args[2])
				if t := copyPointee(x, 1); !ok || t == nil || irfacts.ContainsFloatBytes(t) {
					return false
				}
				cover(x.Args[0], n)
			case strings.HasPrefix(name, "llvm.memset"):
				n, ok := intConstOf(x.Args[2])
				if !ok {
					return false
				}
				cover(x.Args[0], n)
			case irutil.BookkeepingIntrinsic(name) != irutil.NotBookkeeping:
			default:
				return false
			}
		case *ir.InstAtomicRMW, *ir.InstCmpXchg:
			return false
		}
	}
	return left == 0
}

// intWrittenAround reports whether the bytes [lo, 0) and [size, hi)
// relative to dst, around integer store at of size bytes through dst, all
// hold integers written in at's block: before it (intWrittenBefore) or
// after it by stores of integers with no instruction between that reads or
// writes memory otherwise (the bytes are integers whole before anything
// can read them).
func intWrittenAround(f *ir.Func, at ir.Instruction, dst value.Value, lo, hi, size int64) bool {
	b := blockOf(f, at)
	if b == nil {
		return false
	}
	i := 0
	for i < len(b.Insts) && b.Insts[i] != at {
		i++
	}
	// The bytes that integer stores after at write, up to the first
	// instruction that touches memory otherwise.
	after := map[int64]bool{}
	for _, inst := range b.Insts[i+1:] {
		st, isStore := inst.(*ir.InstStore)
		if !isStore {
			if !pureInst(inst) && !isDebugIntrinsic(inst) {
				break
			}
			continue
		}
		if !isIntegers(st.Src.Type()) || st.Atomic {
			break
		}
		delta, ok := typeanalysis.ConstDelta(dst, st.Dst)
		if !ok {
			break
		}
		for k := delta; k < delta+irutil.StoreSize(st.Src.Type()); k++ {
			after[k] = true
		}
	}
	covered := func(from, to int64) bool {
		for k := from; k < to; k++ {
			if !after[k] && !intWrittenBefore(f, at, dst, k, k+1) {
				return false
			}
		}
		return true
	}
	return covered(lo, 0) && covered(size, hi)
}

// blockOf is the block of f holding at (nil if none).
func blockOf(f *ir.Func, at ir.Instruction) *ir.Block {
	for _, bb := range f.Blocks {
		for _, inst := range bb.Insts {
			if inst == at {
				return bb
			}
		}
	}
	return nil
}

// floatBitsOrigin follows the integer v back through the instructions
// computing it, to where its bits come from, and says why they may be a
// float's that carries a derivative ("" when they are not): a bitcast of a
// varied float, an integer read from memory with a shadow that the type
// analysis finds holding a float's bits or cannot tell, a parameter or a
// call's result it cannot tell.
func (d *differ) floatBitsOrigin(v value.Value, act *activity.Info) string {
	ta := d.bits.ta
	seen := map[value.Value]bool{}
	work := []value.Value{irfacts.Unwrap(v)}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[v] {
			continue
		}
		seen[v] = true
		switch x := v.(type) {
		case constant.Constant:
			continue
		case *ir.Param:
			if ta.UnknownBits(x) {
				return fmt.Sprintf("its bits come from parameter %s, which the type analysis cannot tell (a float, a pointer or an integer)", x.Ident())
			}
			continue
		case *ir.InstBitCast:
			if irfacts.CarriesFloat(x.From.Type()) {
				if act.Varied[irfacts.Unwrap(x.From)] {
					return fmt.Sprintf("its bits come from %s, a float that carries a derivative", x.From.Ident())
				}
				continue
			}
		case *ir.InstLoad:
			if !act.HasShadow(x.Src) {
				continue // no derivative reaches that memory
			}
			if _, opaque := d.opaqueBits(x); opaque || ta.FloatOf(x) != nil {
				return fmt.Sprintf("its bits come from %s, a float's bits read from memory holding derivatives", x.Ident())
			}
			if ta.UnknownBits(x) {
				return fmt.Sprintf("its bits come from %s, read from memory holding derivatives, bits the type analysis cannot tell (a float, a pointer or an integer)", x.Ident())
			}
			continue
		case *ir.InstCall:
			if !strings.HasPrefix(irfacts.CalleeName(x), "llvm.") {
				if ta.UnknownBits(x) {
					return fmt.Sprintf("its bits come from %s, a call returning bits the type analysis cannot tell (a float, a pointer or an integer)", x.Ident())
				}
				continue
			}
		case *ir.InstFPToSI, *ir.InstFPToUI, *ir.InstICmp, *ir.InstFCmp, *ir.InstPtrToInt, *ir.InstAlloca:
			continue
		}
		inst, ok := v.(ir.Instruction)
		if !ok {
			continue
		}
		for _, op := range operandsOf(inst) {
			op = irfacts.Unwrap(op)
			if _, isBlock := op.(*ir.Block); isBlock || types.IsPointer(op.Type()) {
				continue
			}
			work = append(work, op)
		}
	}
	return ""
}

// clearShadowWindow emits into blk the clearing of the shadow bytes
// [lo, hi) relative to sp, the shadow of address dst written by at
// (guarded where the shadow may be the primal, whose address is primal).
func (d *differ) clearShadowWindow(f *ir.Func, at interface{}, dst value.Value, blk *ir.Block, sp, primal value.Value, lo, hi int64) error {
	win := types.NewArray(uint64(hi-lo), types.I8)
	p := blk.NewGetElementPtr(types.I8, blk.NewBitCast(sp, types.I8Ptr), constant.NewInt(types.I64, lo))
	q := value.Value(blk.NewBitCast(p, types.NewPointer(win)))
	if d.mayAliasPrimal(dst) {
		pp := blk.NewGetElementPtr(types.I8, blk.NewBitCast(primal, types.I8Ptr), constant.NewInt(types.I64, lo))
		addr, _, err := d.guardShadow(f, at, blk, dst, q, blk.NewBitCast(pp, types.NewPointer(win)), win)
		if err != nil {
			return err
		}
		q = addr
	}
	blk.NewStore(constant.NewZeroInitializer(win), q).Align = 1
	return nil
}

// intCopyOverFloats is the window [lo, hi), relative to the destination,
// of the floats that bulk copy x overwrites with integers, whole or in
// part (a 4-byte memcpy over half a double, 12 bytes over a double and a
// half): their derivative is zero. The copy's rule moves the shadow of
// the bytes it copies as the IR types of its pointers say, which may be
// none (a copy from an int to a char pointer into a struct), and not the
// rest of floats it overwrites in part; the source holds no floats, so
// the sweeps clear the whole window: the forward after the copy, the
// reverse before the copy's reverse. ok is false where there is nothing
// to clear: no float known there, or a copy of floats (the source's IR
// type or its facts say it holds floats, or nothing is known of it).
func (d *differ) intCopyOverFloats(f *ir.Func, x *ir.InstCall) (lo, hi int64, ok bool, err error) {
	ta := d.bits
	if ta == nil || ta.ta == nil {
		return 0, 0, false, nil
	}
	n, isConst := intConstOf(x.Args[2])
	if !isConst || n <= 0 || n > 64 || !ta.ta.Known(x.Args[0]) {
		return 0, 0, false, nil
	}
	lo, hi, found, exact := ta.ta.FloatsOverwritten(irfacts.Unwrap(x.Args[0]), n)
	if !found {
		return 0, 0, false, nil
	}
	if t := copyPointee(x, 1); t != nil && irfacts.ContainsFloatBytes(t) {
		return 0, 0, false, nil // floats copied: the copy's rule moves them
	}
	if !ta.ta.Known(x.Args[1]) {
		return 0, 0, false, nil
	}
	// Floats in the source, not conflicts: the integers copied meet the
	// destination's floats in the source's facts too (Anything there).
	fields, _ := ta.ta.Layout(irfacts.Unwrap(x.Args[1]), n)
	for _, fl := range fields {
		if fl.Type.IsFloat() {
			return 0, 0, false, nil
		}
	}
	if err := d.checkFloatTop(f, x, x.Args[0], n); err != nil {
		return 0, 0, false, err
	}
	if !exact && n%8 != 0 {
		return 0, 0, false, errorAt(f, x, "%s overwrites part of floats that carry derivatives with integers, at places whose floats gozyme cannot delimit (their derivatives would be kept): copy floats whole", describe(x))
	}
	if !exact {
		return 0, n, true, nil // whole aligned doubles: the bytes copied
	}
	return lo, hi, true, nil
}

// clearOverwrittenFloats clears, in the reverse of bulk copy x, the
// shadow of floats that x overwrites with integers (intCopyOverFloats).
func (r *reverseGen) clearOverwrittenFloats(blk, at *ir.Block, x *ir.InstCall) error {
	lo, hi, ok, err := r.d.intCopyOverFloats(r.f, x)
	if !ok || err != nil {
		return err
	}
	sp, err := r.lookupShadow(blk, at, x, x.Args[0])
	if err != nil {
		return err
	}
	var pp value.Value
	if r.d.mayAliasPrimal(x.Args[0]) {
		pp = r.lookup(blk, at, x.Args[0])
	}
	return r.d.clearShadowWindow(r.f, x, x.Args[0], blk, sp, pp, lo, hi)
}
