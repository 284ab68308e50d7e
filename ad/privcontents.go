package ad

import (
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Private contents: a caller's fact about what a callee's pointer argument
// holds, for the reloads of remat.go. A client passing a local std::vector
// by reference (runge_kutta(f, y, ...)) hands the callee a pointer to a
// struct holding pointers into a buffer the caller allocated; inside the
// callee that buffer is read through a pointer loaded from memory (opaque),
// which may point anywhere, so every write into it seems to change every
// other opaque read (the x[i] of a lambda's captured vector), and those
// reads are cached instead of reloaded.
//
// The callee's derivatives (augmented forward and reverse) are internal and
// called only from the derivatives of the call sites gozyme generates them
// for, so a fact every such call site proves holds inside them. The fact
// for argument i of call c in caller F:
//
//   - argument i points into an alloca S of F, given to c as argument i
//     only; F uses S only to load from and store into it, for lifetime
//     markers and memset, and compares it;
//   - every store into S stores a null or non-pointer constant, a float, or
//     an address into fresh allocations of F (the buffers A), each stored
//     into one such S only;
//   - the addresses into A, and pointers F loads from S, go nowhere else:
//     they are loaded from and stored through, compared, stored into S,
//     given to calls that keep them not (free, memset, nocapture) but never
//     to c, and turned into integers only for arithmetic and comparisons.
//
// So at every call, only S holds addresses into A, and only the callee's
// parameter i reaches S. The callee (calleeContents) keeps the fact for
// parameter i where it too only loads through the parameter and lets the
// loaded pointers go nowhere: then a pointer it loads through parameter i
// points into A (the object paramContents stands for), and any other
// pointer it reads from memory does not.

// paramContents is the object pointers loaded through a callee's parameter
// point into, where its call sites prove it private (see above).
type paramContents struct{ p *ir.Param }

func (c *paramContents) String() string   { return "contents of " + c.p.Ident() }
func (c *paramContents) Type() types.Type { return types.I8Ptr }
func (c *paramContents) Ident() string    { return c.String() }

// privateArgs reports, per argument of primal call c, whether its contents
// are private to it (the caller's half of the fact above).
func (r *reverseGen) privateArgs(c *ir.InstCall) []bool {
	if r.users == nil {
		r.users = usersOf(r.f)
	}
	var priv []bool
	owner := map[value.Value]int{} // fresh allocation -> the argument whose S holds it
	for i, a := range c.Args {
		ok := false
		if types.IsPointer(irfacts.Unwrap(a).Type()) {
			ok = r.privateArg(c, i, owner)
		}
		priv = append(priv, ok)
	}
	return priv
}

// privateArg is privateArgs for argument i; owner records which argument's
// S each buffer was found in (a buffer in two of them fails both).
func (r *reverseGen) privateArg(c *ir.InstCall, i int, owner map[value.Value]int) bool {
	objs, known := underlyingObjects(c.Args[i])
	if !known || len(objs) != 1 {
		return false
	}
	s, ok := objs[0].(*ir.InstAlloca)
	if !ok {
		return false
	}
	var loaded []value.Value // pointers F loads from S
	bufs := map[value.Value]bool{}
	if !r.slotStays(s, c, i, &loaded, bufs) {
		return false
	}
	for b := range bufs {
		if j, seen := owner[b]; seen && j != i {
			return false
		}
		owner[b] = i
		loaded = append(loaded, b)
	}
	inS := func(dst value.Value) bool {
		o, known := underlyingObjects(dst)
		return known && len(o) == 1 && o[0] == s
	}
	for _, v := range loaded {
		if !addressStays(r.d, r.users, v, c, inS) {
			return false
		}
	}
	return true
}

// slotStays walks the uses of alloca s (the caller's S) and collects the
// pointers loaded from it and the fresh allocations stored into it; false
// where s is used otherwise than the fact allows.
func (r *reverseGen) slotStays(s *ir.InstAlloca, c *ir.InstCall, i int, loaded *[]value.Value, bufs map[value.Value]bool) bool {
	return walkUses(r.users, s, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstGetElementPtr:
			return followsIf(irfacts.Unwrap(x.Src) == v)
		case *ir.InstBitCast, *ir.InstPhi, *ir.InstSelect:
			// A phi may merge S with other memory: stores of buffer
			// addresses through it fail addressStays (not into S alone).
			return useFollows
		case *ir.InstICmp:
			return useStays
		case *ir.InstLoad:
			switch t := x.Type(); {
			case types.IsPointer(t):
				*loaded = append(*loaded, x)
			case !types.IsFloat(t):
				return useFails // an integer or aggregate copy of what S holds
			}
			return useStays
		case *ir.InstStore:
			return staysIf(irfacts.Unwrap(x.Src) != v && storedIntoSlot(x.Src, bufs))
		case *ir.InstCall:
			if x == c {
				for j, a := range x.Args {
					if irfacts.Unwrap(a) == v && j != i {
						return useFails
					}
				}
				return useStays
			}
			return staysIf(nonEscapingIntrinsic(x) && (!irfacts.IsMemSet(x) || irfacts.Unwrap(x.Args[0]) == v))
		}
		return useFails
	})
}

// storedIntoSlot reports whether a value stored into S keeps the fact:
// a float, a null or non-pointer constant, or an address into fresh
// allocations or null (added to bufs).
func storedIntoSlot(src value.Value, bufs map[value.Value]bool) bool {
	src = irfacts.Unwrap(src)
	t := src.Type()
	if types.IsFloat(t) {
		return true
	}
	switch src.(type) {
	case *constant.Null, *constant.Int, *constant.Float, *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		return true
	}
	if !types.IsPointer(t) {
		return false
	}
	objs, opaque, known := objectsOf(src, true) // null points into nothing
	if !known || opaque {
		return false
	}
	for _, o := range objs {
		a, ok := o.(*ir.InstCall)
		if !ok || !irfacts.IsAllocation(a) {
			return false
		}
		bufs[a] = true
	}
	return true
}

// addressStays reports whether address v (or one derived from it) goes
// nowhere but the uses the fact allows: loads and stores through it,
// comparisons, stores into memory storeOK accepts, calls other than c that
// keep it not, and integers used for arithmetic and comparisons only.
func addressStays(d *differ, users map[value.Value][]interface{}, v value.Value, c *ir.InstCall, storeOK func(dst value.Value) bool) bool {
	return walkUses(users, v, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstLoad, *ir.InstICmp:
			return useStays
		case *ir.InstStore:
			return staysIf(irfacts.Unwrap(x.Src) != v || (storeOK != nil && storeOK(x.Dst)))
		case *ir.InstGetElementPtr:
			return followsIf(irfacts.Unwrap(x.Src) == v)
		case *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstPhi, *ir.InstSelect:
			return useFollows
		case *ir.InstPtrToInt:
			return staysIf(integerStays(users, x))
		case *ir.InstCall:
			return staysIf(x != c && d.callKeepsNot(x, v))
		}
		return useFails
	})
}

// integerStays reports whether integer v, an address turned into an
// integer, is used only for arithmetic, comparisons, allocation and
// memset/memcpy sizes: never turned back into a pointer, used as an
// index, stored, returned or passed on.
func integerStays(users map[value.Value][]interface{}, v value.Value) bool {
	return walkUses(users, v, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstICmp:
			return useStays
		case *ir.InstAdd, *ir.InstSub, *ir.InstMul, *ir.InstUDiv, *ir.InstSDiv, *ir.InstURem, *ir.InstSRem,
			*ir.InstShl, *ir.InstLShr, *ir.InstAShr, *ir.InstAnd, *ir.InstOr, *ir.InstXor,
			*ir.InstTrunc, *ir.InstZExt, *ir.InstSExt, *ir.InstPhi, *ir.InstSelect:
			return useFollows
		case *ir.InstCall:
			switch name := irfacts.CalleeName(x); {
			case irfacts.IsAllocation(x), (irfacts.IsMemSet(x) || irfacts.IsMemTransfer(x)) && onlyLength(x, v):
				return useStays
			case strings.HasPrefix(name, "llvm.umax."), strings.HasPrefix(name, "llvm.umin."), strings.HasPrefix(name, "llvm.smax."), strings.HasPrefix(name, "llvm.smin."):
				return useFollows
			}
		}
		return useFails
	})
}

// onlyLength reports whether v is memset's or memcpy's length and no other
// argument (memset's fill byte would write it into memory).
func onlyLength(c *ir.InstCall, v value.Value) bool {
	for i, a := range c.Args {
		if irfacts.Unwrap(a) == v && i != 2 {
			return false
		}
	}
	return true
}

// calleeContents keeps, of the parameters whose call sites prove their
// contents private (privateArgs), those the callee f itself only loads
// through, letting the pointers it loads go nowhere (the callee's half of
// the fact): the objects pointers loaded through them point into.
func (d *differ) calleeContents(f *ir.Func, private []bool) map[*ir.Param]*paramContents {
	if len(private) == 0 {
		return nil
	}
	users := usersOf(f)
	out := map[*ir.Param]*paramContents{}
	for i, p := range f.Params {
		if i < len(private) && private[i] && onlyLoadedThrough(d, users, p) {
			out[p] = &paramContents{p: p}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// onlyLoadedThrough reports whether parameter p is used only to load
// through (at any offset), each pointer loaded going nowhere
// (addressStays, no stores of it at all) and each integer loaded used for
// arithmetic and comparisons only.
func onlyLoadedThrough(d *differ, users map[value.Value][]interface{}, p *ir.Param) bool {
	return walkUses(users, p, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstGetElementPtr:
			return followsIf(irfacts.Unwrap(x.Src) == v)
		case *ir.InstBitCast:
			return useFollows
		case *ir.InstLoad:
			switch t := x.Type(); {
			case types.IsPointer(t):
				return staysIf(addressStays(d, users, x, nil, nil))
			case types.IsInt(t):
				return staysIf(integerStays(users, x))
			case !types.IsFloat(t):
				return useFails
			}
			return useStays
		}
		return useFails
	})
}

// contentsObject is the object a load reads a pointer into, where it
// loads through parameters whose contents are private: nil otherwise (the
// pointer is opaque).
func (r *reverseGen) contentsObject(l *ir.InstLoad) value.Value {
	if len(r.contents) == 0 {
		return nil
	}
	objs, known := underlyingObjects(l.Src)
	if !known || len(objs) != 1 {
		return nil
	}
	p, ok := objs[0].(*ir.Param)
	if !ok {
		return nil
	}
	if c := r.contents[p]; c != nil {
		return c
	}
	return nil
}

// pointerObjects is the package's pointerObjects for the primal of r: a
// pointer loaded through a parameter with private contents points into
// its paramContents, not into any object (opaque).
func (r *reverseGen) pointerObjects(v value.Value) (objs []value.Value, opaque, known bool) {
	if len(r.contents) == 0 {
		return pointerObjects(v)
	}
	return objectsOfIn(v, true, r.contentsObject)
}

// privateSuffix names the arguments with private contents in a split
// pair's name ("" when none).
func privateSuffix(private []bool) string {
	var sb strings.Builder
	for i, p := range private {
		if p {
			sb.WriteString("_pc")
			sb.WriteString(strconv.Itoa(i))
		}
	}
	return sb.String()
}
