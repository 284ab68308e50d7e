package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// Capture tracking for the reloads of remat.go. A pointer read from memory
// (a std::vector's data, a struct's field) points into some object, but
// which one the IR does not say. It cannot point into an object the primal
// creates (an alloca, a fresh allocation) whose address the primal never
// lets out: never stores it into memory as a value, never passes it to a
// call that may keep it, returns it or turns it into an integer. Such an
// object is uncaptured; writes into it do not change what is read through
// an opaque pointer, and writes through an opaque pointer do not change it.

// pointerObjects is underlyingObjects for the reloads: the objects pointer
// v may point into; opaque where some path reads the pointer from memory
// (a load: an object that may be any but an uncaptured one); known false
// where some path leads elsewhere (a call's result, an integer cast). Null
// and undefined pointers point to no object.
func pointerObjects(v value.Value) (objs []value.Value, opaque, known bool) {
	return objectsOf(v, true)
}

// uncaptured reports whether obj is an alloca or a fresh allocation of the
// primal whose address stays in it (see above).
func (r *reverseGen) uncaptured(obj value.Value) bool {
	switch x := obj.(type) {
	case *paramContents:
		return true // granted only where nothing lets its addresses out
	case *ir.InstAlloca:
	case *ir.InstCall:
		if !irfacts.IsAllocation(x) {
			return false
		}
	default:
		return false
	}
	if r.uncapturedMemo == nil {
		r.uncapturedMemo = map[value.Value]bool{}
		r.users = usersOf(r.f)
	}
	if u, ok := r.uncapturedMemo[obj]; ok {
		return u
	}
	u := !r.captures(obj)
	r.uncapturedMemo[obj] = u
	return u
}

// usersOf maps each value of f to the instructions and terminators that
// use it as an operand.
func usersOf(f *ir.Func) map[value.Value][]interface{} {
	users := map[value.Value][]interface{}{}
	add := func(user interface{}) {
		if u, ok := user.(interface{ Operands() []*value.Value }); ok {
			for _, op := range u.Operands() {
				v := irfacts.Unwrap(*op)
				users[v] = append(users[v], user)
			}
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			add(inst)
		}
		add(b.Term)
	}
	return users
}

// useVerdict is what a walk over uses (walkUses) makes of one use.
type useVerdict int

const (
	useFails   useVerdict = iota // not allowed: the walk stops and fails
	useStays                     // allowed, and the user's own uses not walked
	useFollows                   // allowed, and the user's uses walked as well
)

// walkUses judges the uses of root, and of each user visit follows, depth
// first and each value once: visit(v, u) gives the verdict on user u of v
// (users as usersOf lists them). It reports whether no use failed.
func walkUses(users map[value.Value][]interface{}, root value.Value, visit func(v value.Value, u interface{}) useVerdict) bool {
	seen := map[value.Value]bool{}
	work := []value.Value{root}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[v] {
			continue
		}
		seen[v] = true
		for _, u := range users[v] {
			switch visit(v, u) {
			case useFails:
				return false
			case useFollows:
				work = append(work, u.(value.Value))
			}
		}
	}
	return true
}

// staysIf is useStays where ok, else useFails.
func staysIf(ok bool) useVerdict {
	if ok {
		return useStays
	}
	return useFails
}

// followsIf is useFollows where ok, else useFails.
func followsIf(ok bool) useVerdict {
	if ok {
		return useFollows
	}
	return useFails
}

// captures reports whether the address of obj, or one derived from it,
// may leave it: anything but a load or store through it, an address
// computed from it, a comparison, a bulk operation on its bytes, its end of
// life (lifetime markers, free), a call argument the callee keeps not
// (declared nocapture, or a defined callee that lets it out nowhere) or an
// integer used for arithmetic and comparisons only.
func (r *reverseGen) captures(obj value.Value) bool {
	return r.d.capturesIn(r.users, obj)
}

// capturesIn is captures for a value of the function whose users are users:
// its address goes somewhere addressStays (privcontents.go) does not allow
// with no call singled out and no store of it accepted.
func (d *differ) capturesIn(users map[value.Value][]interface{}, obj value.Value) bool {
	return !addressStays(d, users, obj, nil, nil)
}

// callKeepsNot reports whether call c, given v (a pointer into an object)
// among its arguments, does not capture it.
func (d *differ) callKeepsNot(c *ir.InstCall, v value.Value) bool {
	if isFree(c) || irfacts.IsMemTransfer(c) || nonEscapingIntrinsic(c) {
		return true
	}
	f, _ := irutil.StripCasts(c.Callee).(*ir.Func)
	for i, a := range c.Args {
		if irfacts.Unwrap(a) != v {
			continue
		}
		if arg, ok := a.(*ir.Arg); ok && hasParamAttr(arg.Attrs, enum.ParamAttrNoCapture) {
			continue
		}
		if f != nil && i < len(f.Params) && (hasParamAttr(f.Params[i].Attrs, enum.ParamAttrNoCapture) || !d.paramCaptured(f, i)) {
			continue
		}
		return false
	}
	return irfacts.Unwrap(c.Callee) != v
}

// paramCaptured reports whether defined function f may capture its
// parameter i (capturesIn over its body), computed once; a function
// without a body, or on a cycle of such questions, may.
func (d *differ) paramCaptured(f *ir.Func, i int) bool {
	if len(f.Blocks) == 0 || i >= len(f.Params) {
		return true
	}
	key := paramKey{f, i}
	if c, ok := d.paramCaptures[key]; ok {
		return c
	}
	if d.paramCaptures == nil {
		d.paramCaptures = map[paramKey]bool{}
	}
	d.paramCaptures[key] = true // on a cycle: captured
	c := d.capturesIn(usersOf(f), f.Params[i])
	d.paramCaptures[key] = c
	return c
}

// paramKey names parameter i of f.
type paramKey struct {
	f *ir.Func
	i int
}

// hasParamAttr reports whether attrs holds want.
func hasParamAttr(attrs []ir.ParamAttribute, want enum.ParamAttr) bool {
	for _, a := range attrs {
		if a == ir.ParamAttribute(want) {
			return true
		}
	}
	return false
}
