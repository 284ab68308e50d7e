package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The bits of floats that carry derivatives, where they stay integers. The
// rewrite (retype_body.go) turns integers that only move floats into
// floats; what is left are integers it could not retype — holding a float
// together with other data, or the float's bits worked on by integer
// operations. A derivative cannot follow them, so once activity is known,
// the ones derivatives reach stop the link instead of giving a silent zero:
//   - bits from a float that carries a derivative (a bitcast of a varied
//     float, or an integer read from memory holding derivatives that the
//     analysis found to hold floats it could not retype), moved as data
//     (casts, phis, selects, extensions, byte shifts, masks, aggregates)
//     into memory, a call, the return, or back into a float;
//   - the same bits put through integer arithmetic (any shift, add, mul)
//     and then made a float again (the fast inverse square root).
// Integer uses that read the bits without passing them on (sign tests,
// exponents extracted into integer arithmetic that stays integer) are fine.
// Bits the analysis cannot tell (a float, a pointer or an integer) stop
// the link where they are moved from memory with a shadow into memory
// with one (unknownbits.go); a pointer held with other data in an integer
// wider than a pointer, where its shadow does not move with it
// (intptrcopy.go).

// checkOpaqueBits reports the first place in f where the bits of a float
// that carries a derivative leave as an integer.
//
// In the reverse sweep (reverse), a store of 4 such bytes is checked at
// run time instead (zeroCheckable).
func (d *differ) checkOpaqueBits(f *ir.Func, act *activity.Info, reverse bool) error {
	if d.bits == nil {
		return nil
	}
	type taint struct {
		deep bool // through integer arithmetic
		// pointer: a pointer among other data in an integer (a struct's
		// fields copied as one vector), known to the type analysis.
		pointer bool
		// unknown: bits the type analysis could not tell are a float's;
		// only made a float again are they one for sure.
		unknown bool
		reason  string // where the bits come from
	}
	tainted := map[value.Value]taint{}
	var work []value.Value
	seed := func(v value.Value, t taint) {
		old, ok := tainted[v]
		if ok && (old.deep == t.deep || !old.deep) && (old.unknown == t.unknown || !old.unknown) && old.pointer == t.pointer {
			return
		}
		tainted[v] = t
		work = append(work, v)
	}
	users := map[value.Value][]ir.Instruction{}
	var rets []*ir.TermRet
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range operandsOf(inst) {
				users[irfacts.Unwrap(op)] = append(users[irfacts.Unwrap(op)], inst)
			}
			switch x := inst.(type) {
			case *ir.InstBitCast:
				if isIntegers(x.To) && irfacts.CarriesFloat(x.From.Type()) && act.Varied[irfacts.Unwrap(x.From)] {
					seed(x, taint{reason: fmt.Sprintf("the bits of %s", x.From.Ident())})
				}
			case *ir.InstLoad:
				if why, ok := d.opaqueBits(x); ok && act.HasShadow(x.Src) {
					seed(x, taint{reason: fmt.Sprintf("%s, read from memory holding derivatives, %s", x.Ident(), why)})
				} else if act.HasShadow(x.Src) && d.bits.ta != nil && (isIntegers(x.ElemType) || isIntegerAggregate(x.ElemType)) && d.pointerAmongData(x) {
					seed(x, taint{unknown: true, pointer: true, reason: fmt.Sprintf("%s, read from memory holding derivatives, holds a pointer together with other data", x.Ident())})
				} else if act.HasShadow(x.Src) && d.bits.ta != nil && d.bits.ta.UnknownBits(x) {
					seed(x, taint{unknown: true, reason: fmt.Sprintf("%s, read from memory holding derivatives, bits the type analysis cannot tell (a float, a pointer or an integer)", x.Ident())})
				}
			}
		}
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
			rets = append(rets, r)
		}
	}
	sinkErr := func(v value.Value, at interface{}, t taint, where string) error {
		if t.pointer {
			return errorAt(f, at, "%s: %s, is %s as an integer: the pointer's shadow would not move with it (copy the struct with memcpy)", describe(at), t.reason, where)
		}
		if t.unknown {
			return unknownBitsErr(f, at, t.reason, where)
		}
		return errorAt(f, at, "%s: %s carries a derivative as an integer (%s), which gozyme cannot follow: its derivative would be lost (move floats as floats, with memcpy, or pass structs mixing floats and integers by pointer)", describe(at), where, t.reason)
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		t := tainted[v]
		for _, u := range users[v] {
			switch x := u.(type) {
			case *ir.InstStore:
				if !t.deep && !t.unknown && irfacts.Unwrap(x.Src) == v {
					return sinkErr(v, x, t, "the value stored")
				}
				if t.pointer && !t.deep && irfacts.Unwrap(x.Src) == v {
					if _, ok := d.intPointerCopy(f, x, act); ok || !d.pointerAmongData(x.Src) {
						// The shadows are copied too (intptrcopy.go), or
						// the pointer is no longer among the bits stored
						// (a lane of integers, or a pointer alone, which
						// the retype moves as one).
						continue
					}
				}
				if !t.deep && t.unknown && irfacts.Unwrap(x.Src) == v && act.HasShadow(x.Dst) {
					if reverse && !t.pointer && d.zeroCheckable(x) {
						d.zeroChecked[x] = true
						continue
					}
					return sinkErr(v, x, t, "stored into memory holding derivatives")
				}
			case *ir.InstCall:
				// A function that carries no derivative (declared inactive,
				// or in the table of library functions) takes the bits as
				// it takes floats.
				if !t.deep && !t.unknown && passesBits(x) && d.passes(x) {
					return sinkErr(v, x, t, "an argument")
				}
				if !t.deep && t.unknown && passesBits(x) && d.passes(x) && isIntegers(x.Typ) && d.returnsArg(x, v) {
					seed(x, t) // the same bits, returned (unknownbits.go)
				}
			case *ir.InstCmpXchg:
				// An atomic update of a float through its bits: the
				// atomics' own rules name it (atomics.go).
			case *ir.InstBitCast:
				if irfacts.CarriesFloat(x.To) {
					return sinkErr(v, x, t, "the float made from it")
				}
				if isIntegers(x.To) {
					seed(x, t)
				}
			default:
				if r, ok := u.(value.Value); ok && (isIntegers(r.Type()) || isIntegerAggregate(r.Type())) {
					nt := t
					if !movesBits(u, v) {
						nt.deep = true
					}
					if !isComparison(u) {
						seed(r, nt)
					}
				}
			}
		}
		for _, r := range rets {
			if !t.deep && !t.unknown && irfacts.Unwrap(r.X) == v {
				return sinkErr(v, r, t, "the returned value")
			}
		}
	}
	return nil
}

// isIntegers reports an integer or a vector of integers.
func isIntegers(t types.Type) bool {
	switch t := t.(type) {
	case *types.IntType:
		return true
	case *types.VectorType:
		_, ok := t.ElemType.(*types.IntType)
		return ok
	}
	return false
}

// movesBits reports an integer instruction that passes the bits of
// operand v on (possibly some of them) rather than computing new ones:
// casts, phis, selects, aggregates, masks, shifts by whole bytes.
func movesBits(inst ir.Instruction, v value.Value) bool {
	switch x := inst.(type) {
	case *ir.InstPhi, *ir.InstSelect, *ir.InstFreeze, *ir.InstTrunc, *ir.InstZExt, *ir.InstSExt,
		*ir.InstExtractValue, *ir.InstInsertValue, *ir.InstExtractElement, *ir.InstInsertElement,
		*ir.InstShuffleVector, *ir.InstAnd, *ir.InstOr, *ir.InstXor:
		return true
	case *ir.InstShl:
		return byteShift(x.Y) && irfacts.Unwrap(x.X) == v
	case *ir.InstLShr:
		return byteShift(x.Y) && irfacts.Unwrap(x.X) == v
	case *ir.InstAShr:
		return byteShift(x.Y) && irfacts.Unwrap(x.X) == v
	}
	return false
}

// byteShift reports a constant shift amount that is a whole number of
// bytes (moving bytes, not computing with them).
func byteShift(v value.Value) bool {
	k, ok := intConstOf(v)
	return ok && k%8 == 0
}

func isComparison(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstICmp, *ir.InstFCmp:
		return true
	}
	return false
}

// passesBits reports a call that may keep or pass on integer arguments as
// data: defined functions and unknown ones, not intrinsics and output.
func passesBits(c *ir.InstCall) bool {
	name := irfacts.CalleeName(c)
	if strings.HasPrefix(name, "llvm.") {
		return false
	}
	switch name {
	case "printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "putchar", "fwrite", "write", "__printf_chk", "__fprintf_chk":
		return false
	}
	return true
}

// intConstOf is the value of an integer constant (a splat's element).
func intConstOf(v value.Value) (int64, bool) {
	switch x := irfacts.Unwrap(v).(type) {
	case *constant.Int:
		if x.X.IsInt64() {
			return x.X.Int64(), true
		}
	case *constant.Vector:
		if len(x.Elems) == 0 {
			return 0, false
		}
		k, ok := intConstOf(x.Elems[0])
		for _, e := range x.Elems[1:] {
			if k2, ok2 := intConstOf(e); !ok2 || k2 != k {
				return 0, false
			}
		}
		return k, ok
	}
	return 0, false
}

// opaqueBits reports an integer value of a function AD differentiates
// that the type analysis found holding float bits the rewrite could not
// make a float (mixed with other data, or part of a float), and why: for
// activity to stop the link where derivatives reach it.
func (d *differ) opaqueBits(v value.Value) (string, bool) {
	if d.bits == nil {
		return "", false
	}
	why, ok := d.bits.opaque[irfacts.Unwrap(v)]
	return why, ok
}

// isIntegerAggregate reports a struct or array with an integer field (one
// that can carry a float's bits).
func isIntegerAggregate(t types.Type) bool {
	switch t := t.(type) {
	case *types.StructType:
		for _, f := range t.Fields {
			if isIntegers(f) || isIntegerAggregate(f) {
				return true
			}
		}
	case *types.ArrayType:
		return isIntegers(t.ElemType) || isIntegerAggregate(t.ElemType)
	}
	return false
}
