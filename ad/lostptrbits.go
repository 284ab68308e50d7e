package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
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
			if d.ptrBitsIn == nil && !isConstantBits(c.From) {
				if at := floatAccess(c, users, map[value.Value]bool{}); at != nil {
					d.ptrBitsIn = &ptrBitsPlace{f: f, at: at, what: c.Ident() + ", a pointer made from integer bits, without a shadow"}
				}
			}
			continue
		}
		if at := shadowlessAccess(c, users, d, map[value.Value]bool{}); at != nil {
			return errorAt(f, at, "%s goes through %s, a pointer made from the bits of %s (which points into memory holding derivatives) by integer operations gozyme cannot follow: it has no shadow, and the derivative through it would be lost (align or offset the pointer with pointer arithmetic, or align the allocation itself)", describe(at), c.Ident(), describeValue(src))
		}
	}
	if d.ptrBitsIn == nil {
		// A pointer read, without a shadow, from memory other than a
		// global's (a local slot a callee filled with integer bits), or
		// returned without one by a call other than an allocation (a
		// getter reading such a slot).
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				var p value.Value
				var what string
				switch x := inst.(type) {
				case *ir.InstLoad:
					if types.IsPointer(x.ElemType) && !isFuncPointer(x.ElemType) && !activity.AllBases(x.Src, isGlobal) {
						p, what = x, ", a pointer read from memory without a shadow"
					}
				case *ir.InstCall:
					if types.IsPointer(x.Typ) && !isFuncPointer(x.Typ) && !irfacts.IsAllocation(x) && !irfacts.IsRealloc(x) {
						p, what = x, ", a pointer returned without a shadow by "+describe(x)
					}
				}
				if p == nil || act.HasShadow(p) {
					continue
				}
				if at := floatAccess(p, users, map[value.Value]bool{}); at != nil {
					d.ptrBitsIn = &ptrBitsPlace{f: f, at: at, what: p.Ident() + what}
					break
				}
			}
			if d.ptrBitsIn != nil {
				break
			}
		}
	}
	if d.ptrBitsOut == nil && !strings.HasPrefix(f.Name(), "__gozyme_") {
		// Generated code (a derivative differentiated again) keeps
		// pointers' bits for its own records, read back by the code
		// generated with it.
		d.ptrBitsOut = pointerBitsLeaving(f, act, users)
	}
	return nil
}

func isGlobal(v value.Value) bool {
	_, ok := v.(*ir.Global)
	return ok
}

// Pointer bits that leave as integers and come back. The address of
// memory holding derivatives converted to an integer (ptrtoint) and moved
// as one — stored into memory as an integer, passed as an integer
// argument, returned — loses its shadow on the way: the rewrite
// (retype_body.go) makes such integers pointers where the type analysis
// proves they hold a pointer alone, but not where the same memory or
// parameter also holds plain integers. A pointer made back from such
// bits (inttoptr, or a pointer load from the integer memory) has no
// shadow, so floats read through it carry no derivative and floats
// written through it keep the old one. Which integer bits a pointer is
// made from cannot be followed through memory and calls; so when some
// differentiated function lets a pointer with a shadow leave as an
// integer and some differentiated function reads or writes floats
// directly through a pointer without a shadow made from integer bits,
// read from memory other than a global's, or returned by a call other
// than an allocation, the link stops (pointerBitsRoundTrip). The check
// is coarse (the two need not be the same bits), so both ends are kept
// narrow: integer stores only into memory without a shadow, callees
// followed, masks and differences of addresses left out, generated code
// and calls given the pointer not counted.

// ptrBitsPlace is an instruction of a differentiated function, with what
// it concerns.
type ptrBitsPlace struct {
	f    *ir.Func
	at   interface{} // an instruction or a return
	what string
}

// pointerBitsRoundTrip is the error for a module where pointer bits with
// a shadow leave as an integer and a pointer made from integer bits of
// unknown origin is used for floats; nil otherwise.
func (d *differ) pointerBitsRoundTrip() error {
	out, in := d.ptrBitsOut, d.ptrBitsIn
	if out == nil || in == nil {
		return nil
	}
	outLoc := irutil.DebugLoc(out.at)
	if outLoc != "" {
		outLoc = " (" + outLoc + ")"
	}
	return errorAt(in.f, in.at, "%s goes through %s; and '%s'%s lets the bits of %s, which points into memory holding derivatives, leave as an integer (%s): if the pointer is made from those bits, the derivative through it would be lost (keep pointers in pointer-typed memory and parameters, not in integers that also hold other values)", describe(in.at), in.what, out.f.Name(), outLoc, out.what, describe(out.at))
}

// pointerBitsLeaving is the first place in f where the bits of a pointer
// with a shadow (ptrtoint), moved or offset as integers, leave f: stored
// as an integer into memory without a shadow, passed to a call that may
// keep them (a callee with a body where its parameter leaves in turn), or
// returned. Nil where none does.
func pointerBitsLeaving(f *ir.Func, act *activity.Info, users map[value.Value][]ir.Instruction) *ptrBitsPlace {
	var seeds []value.Value
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if x, ok := inst.(*ir.InstPtrToInt); ok && act.HasShadow(x.From) && !activity.IsNullConstant(irfacts.Unwrap(x.From)) {
				seeds = append(seeds, x)
			}
		}
	}
	seed, at := bitsLeave(f, act, users, seeds, 3)
	if seed == nil {
		return nil
	}
	return &ptrBitsPlace{f: f, at: at, what: describeValue(seed.(*ir.InstPtrToInt).From)}
}

// bitsLeave follows the integers seeds through moves and offsets in f
// (users are f's, act its activity or nil where not analyzed) to the
// first place they leave f (see pointerBitsLeaving), and names the seed
// that does; depth bounds the callees followed.
func bitsLeave(f *ir.Func, act *activity.Info, users map[value.Value][]ir.Instruction, seeds []value.Value, depth int) (seed value.Value, at interface{}) {
	from := map[value.Value]value.Value{} // integer -> the seed whose bits it holds
	var work []value.Value
	for _, v := range seeds {
		from[v] = v
		work = append(work, v)
	}
	follow := func(r, v value.Value) {
		if from[r] == nil {
			from[r] = from[v]
			work = append(work, r)
		}
	}
	rets := map[value.Value]*ir.TermRet{}
	for _, b := range f.Blocks {
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
			rets[irfacts.Unwrap(r.X)] = r
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if r := rets[v]; r != nil {
			return from[v], r
		}
		for _, u := range users[v] {
			switch x := u.(type) {
			case *ir.InstStore:
				// Into memory without a shadow (act nil: a callee not
				// analyzed, whose memory may have none).
				if irfacts.Unwrap(x.Src) == v && (act == nil || !act.HasShadow(x.Dst)) {
					return from[v], x
				}
			case *ir.InstCall:
				if passesBits(x) && !isFree(x) && callKeepsBits(x, v, depth) {
					return from[v], x
				}
			case *ir.InstAdd:
				follow(x, v)
			case *ir.InstSub:
				if irfacts.Unwrap(x.X) == v && from[irfacts.Unwrap(x.Y)] == nil {
					follow(x, v) // not a difference of two addresses
				}
			case *ir.InstAnd:
				if !smallMask(x.X) && !smallMask(x.Y) {
					follow(x, v) // the low bits kept are an offset
				}
			default:
				if r, ok := u.(value.Value); ok && movesBits(u, v) && (isIntegers(r.Type()) || isIntegerAggregate(r.Type())) {
					follow(r, v)
				}
			}
		}
	}
	return nil, nil
}

// callKeepsBits reports whether call c may keep or pass on the bits of
// its argument v: a function without a body, one too deep to follow, or
// a callee where the parameter v is passed as leaves (bitsLeave).
func callKeepsBits(c *ir.InstCall, v value.Value, depth int) bool {
	g, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok || len(g.Blocks) == 0 || depth == 0 || g.Sig.Variadic {
		return true
	}
	var params []value.Value
	for i, a := range c.Args {
		if irfacts.Unwrap(a) == v {
			if i >= len(g.Params) {
				return true
			}
			params = append(params, g.Params[i])
		}
	}
	if len(params) == 0 {
		return false // in an operand bundle, say
	}
	seed, _ := bitsLeave(g, nil, unwrappedUsers(g), params, depth-1)
	return seed != nil
}

// unwrappedUsers maps each value of f (unwrapped, irfacts.Unwrap) to the
// instructions using it.
func unwrappedUsers(f *ir.Func) map[value.Value][]ir.Instruction {
	users := map[value.Value][]ir.Instruction{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range operandsOf(inst) {
				users[irfacts.Unwrap(op)] = append(users[irfacts.Unwrap(op)], inst)
			}
		}
	}
	return users
}

// smallMask reports a constant mask of at most 32 low bits (keeping an
// offset below an alignment, never an address).
func smallMask(v value.Value) bool {
	k, ok := irfacts.Unwrap(v).(*constant.Int)
	return ok && k.X.Sign() >= 0 && k.X.BitLen() <= 32
}

// isConstantBits reports integer bits that are a constant (a fixed
// address, the null page).
func isConstantBits(v value.Value) bool {
	_, ok := irfacts.Unwrap(v).(constant.Constant)
	return ok
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

// floatAccess is the first load or store of floats through pointer p
// (through getelementptrs, casts, phis and selects), nil where none is.
// Calls given p are left out: they would stop ordinary C++ (std::move of
// a key, hashed by address elsewhere).
func floatAccess(p value.Value, users map[value.Value][]ir.Instruction, seen map[value.Value]bool) ir.Instruction {
	if seen[p] {
		return nil
	}
	seen[p] = true
	for _, u := range users[p] {
		switch x := u.(type) {
		case *ir.InstLoad:
			if irfacts.CarriesFloat(x.ElemType) {
				return x
			}
		case *ir.InstStore:
			if irfacts.Unwrap(x.Dst) == p && irfacts.CarriesFloat(x.Src.Type()) {
				return x
			}
		case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstPhi, *ir.InstSelect:
			if sel, ok := x.(*ir.InstSelect); ok && irfacts.Unwrap(sel.Cond) == p {
				continue
			}
			if at := floatAccess(x.(value.Value), users, seen); at != nil {
				return at
			}
		}
	}
	return nil
}
