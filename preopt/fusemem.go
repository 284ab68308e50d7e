package preopt

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The memory side of FuseLoops: which accesses two loops make, and when
// running them interleaved keeps every access pair in order.

// access is a load or store in a loop.
type access struct {
	ptr   value.Value
	typ   types.Type
	write bool
	inst  ir.Instruction
}

// idiom reports whether a loop's accesses are a memset (one store of a
// value from outside the loop) or a memcpy (one store of one load's
// value): LLVM's loop-idiom pass makes those library calls, faster than
// any loop, unless the loop is fused with another.
func idiom(acc []access, c *canonLoop) bool {
	var store *ir.InstStore
	var loads []access
	for _, x := range acc {
		if x.write {
			if store != nil {
				return false
			}
			store = x.inst.(*ir.InstStore)
		} else {
			loads = append(loads, x)
		}
	}
	switch {
	case store == nil:
		return false
	case len(loads) == 0:
		return !c.defines(store.Src)
	case len(loads) == 1:
		return store.Src == loads[0].inst.(value.Value)
	}
	return false
}

// accesses lists c's loads and stores; false when c touches memory any
// other way (calls that are not readNone, atomics, volatile accesses).
func accesses(f *ir.Func, c *canonLoop) ([]access, bool) {
	var out []access
	for _, blk := range f.Blocks {
		if !c.l.Contains(blk) {
			continue
		}
		for _, inst := range blk.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if x.Atomic || x.Volatile {
					return nil, false
				}
				out = append(out, access{ptr: x.Src, typ: x.ElemType, inst: x})
			case *ir.InstStore:
				if x.Atomic || x.Volatile {
					return nil, false
				}
				out = append(out, access{ptr: x.Dst, typ: x.Src.Type(), write: true, inst: x})
			case *ir.InstCall:
				if !readNone(x) {
					return nil, false
				}
			case *ir.InstAtomicRMW, *ir.InstCmpXchg, *ir.InstFence, *ir.InstVAArg:
				return nil, false
			}
		}
	}
	return out, true
}

// readNone reports whether a call touches no memory, does not unwind and
// returns (an exception from the second body, or a call that never
// returns, would otherwise leave the first loop with fewer iterations
// done).
func readNone(c *ir.InstCall) bool {
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false
	}
	if irutil.BookkeepingIntrinsic(callee.Name()) == irutil.Assumption {
		return true
	}
	attrs := append(append([]ir.FuncAttribute{}, callee.FuncAttrs...), c.FuncAttrs...)
	return irutil.HasFuncAttr(attrs, enum.FuncAttrReadNone) && irutil.HasFuncAttr(attrs, enum.FuncAttrNoUnwind) && irutil.HasFuncAttr(attrs, enum.FuncAttrWillReturn)
}

// sameElement reports whether x (in loop a) and y (in loop b) address the
// same element base[iv] of one array, with accesses of the element's type:
// then iteration j of one touches only what iteration j of the other does.
func sameElement(x, y access, a, b *canonLoop) bool {
	gx, ok1 := x.ptr.(*ir.InstGetElementPtr)
	gy, ok2 := y.ptr.(*ir.InstGetElementPtr)
	if !ok1 || !ok2 || len(gx.Indices) != 1 || len(gy.Indices) != 1 || gx.Src != gy.Src ||
		a.defines(gx.Src) || b.defines(gx.Src) {
		return false
	}
	if !gx.ElemType.Equal(gy.ElemType) || !x.typ.Equal(gx.ElemType) || !y.typ.Equal(gx.ElemType) {
		return false
	}
	ix, kx := ivIndex(gx.Indices[0])
	iy, ky := ivIndex(gy.Indices[0])
	return ix == a.iv && iy == b.iv && kx == ky
}

// ivIndex strips one sext or zext from an index: the value and the kind.
func ivIndex(v value.Value) (value.Value, string) {
	switch x := v.(type) {
	case *ir.InstSExt:
		return x.From, "sext"
	case *ir.InstZExt:
		return x.From, "zext"
	}
	return v, ""
}

// underlying strips GEPs and casts from a pointer.
func underlying(p value.Value) value.Value {
	for {
		p = irutil.StripCasts(p)
		switch x := p.(type) {
		case *ir.InstGetElementPtr:
			p = x.Src
		case *constant.ExprGetElementPtr:
			p = x.Src
		default:
			return p
		}
	}
}

// fresh reports whether object o is created by this function: an alloca,
// or the result of a call returning a noalias pointer (malloc).
func fresh(o value.Value) bool {
	switch x := o.(type) {
	case *ir.InstAlloca:
		return true
	case *ir.InstCall:
		for _, a := range x.ReturnAttrs {
			if a == enum.ReturnAttrNoAlias {
				return true
			}
		}
		if callee, ok := irutil.StripCasts(x.Callee).(*ir.Func); ok {
			for _, a := range callee.ReturnAttrs {
				if a == enum.ReturnAttrNoAlias {
					return true
				}
			}
		}
	}
	return false
}

// noAlias reports whether pointers p and q can never address the same
// memory: their objects are two restrict parameters, or distinct and one
// is fresh (created by f) and either the other existed before f ran (an
// argument or a global), is another fresh object, or the fresh one never
// escapes (escapes).
func noAlias(f *ir.Func, p, q value.Value) bool {
	o1, o2 := underlying(p), underlying(q)
	if o1 == o2 {
		return false
	}
	if restrictParam(o1) && restrictParam(o2) {
		return true // two restrict (noalias) parameters
	}
	if !fresh(o1) {
		o1, o2 = o2, o1
	}
	if !fresh(o1) {
		return false
	}
	switch o2.(type) {
	case *ir.Param, *ir.Global:
		return true
	}
	return fresh(o2) || !escapes(f, o1)
}

// restrictParam reports whether o is a noalias (C restrict) parameter.
func restrictParam(o value.Value) bool {
	p, ok := o.(*ir.Param)
	if !ok {
		return false
	}
	for _, a := range p.Attrs {
		if a == enum.ParamAttrNoAlias {
			return true
		}
	}
	return false
}

// escapes reports whether the address of object o, or of any pointer
// derived from it by GEPs and casts, may reach another pointer: stored,
// passed to a call that may capture it, merged by a phi or select,
// converted to an integer, returned.
func escapes(f *ir.Func, o value.Value) bool {
	derived := map[value.Value]bool{o: true}
	for changed := true; changed; {
		changed = false
		for _, blk := range f.Blocks {
			for _, inst := range blk.Insts {
				v, ok := inst.(value.Value)
				if !ok || derived[v] {
					continue
				}
				switch x := inst.(type) {
				case *ir.InstGetElementPtr:
					if derived[x.Src] {
						derived[v], changed = true, true
					}
				case *ir.InstBitCast:
					if derived[x.From] {
						derived[v], changed = true, true
					}
				}
			}
		}
	}
	for _, blk := range f.Blocks {
		for _, inst := range blk.Insts {
			switch x := inst.(type) {
			case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstLoad, *ir.InstICmp:
				continue // followed above, or reads through it, or compares
			case *ir.InstStore:
				if derived[x.Src] {
					return true
				}
				continue
			case *ir.InstCall:
				if callCaptures(x, derived) {
					return true
				}
				continue
			}
			for _, v := range operands(inst) {
				if derived[v] {
					return true
				}
			}
		}
		for _, v := range operands(blk.Term) {
			if derived[v] {
				return true
			}
		}
	}
	return false
}

// callCaptures reports whether call c gets a pointer in derived as an
// argument that it may keep: any argument other than one to free or to a
// nocapture parameter (on the call or on the callee).
func callCaptures(c *ir.InstCall, derived map[value.Value]bool) bool {
	callee, _ := irutil.StripCasts(c.Callee).(*ir.Func)
	if derived[irutil.StripCasts(c.Callee)] {
		return true
	}
	for i, arg := range c.Args {
		if !derived[irutil.StripCasts(arg)] {
			continue
		}
		if callee != nil && callee.Name() == "free" && len(callee.Blocks) == 0 {
			continue
		}
		if a, ok := arg.(*ir.Arg); ok && hasNoCapture(a.Attrs) {
			continue
		}
		if callee != nil && i < len(callee.Params) && hasNoCapture(callee.Params[i].Attrs) {
			continue
		}
		return true
	}
	return false
}

func hasNoCapture(attrs []ir.ParamAttribute) bool {
	for _, a := range attrs {
		if a == enum.ParamAttrNoCapture {
			return true
		}
	}
	return false
}
