package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Functions that return a pointer into one of their arguments: accessors
// returning a reference (std::array::operator[], Eigen's array_get, a
// getter of a field) and choices between references (std::max and
// std::min of const T&). A caller learns from a callee only its frozen
// summary when the callee has several callers, and a summary cannot say
// "the result points where the first argument points": the memory behind
// an accessor's result and behind its argument would stay unrelated, and
// a size read through std::max(a, b) would have no type. The returned
// pointer is derived from the arguments by the callee's body alone, so at
// every call site the relation holds exactly, and the call relates its
// own arguments and result without going through the callee's trees:
//   - one derivation (every return is the argument at one offset, or its
//     element at a variable index): the result and the argument relate as
//     a getelementptr's result and source do, back to the argument with
//     integer facts only (integersOnly);
//   - several (a choice between arguments, as a phi): the result holds
//     what each argument points to, as a phi's result does; nothing goes
//     back (choice).

// retDerivation is how a function's returned pointer derives from one
// parameter: that parameter moved by off bytes, plus stride times the
// value of parameter index when index >= 0 (an element chosen by the
// caller: std::__array_traits::_S_ref(a, i)), or into an element at a
// variable index (variable).
type retDerivation struct {
	param    int
	off      int64
	index    int
	stride   int64
	variable bool
}

// walk is a derivation being followed back from a return: the offset so
// far, and the parameter scaling it, if any.
type walk struct {
	off      int64
	index    *ir.Param
	stride   int64
	variable bool
}

// returnedArgs lists how f's returned pointer derives from its
// parameters on every path; nil when some returned value does not derive
// from a parameter (or f returns no pointer, or f is being followed
// already: recursion).
func (a *Analysis) returnedArgs(f *ir.Func) []retDerivation {
	if d, ok := a.retArgs[f]; ok {
		return d
	}
	a.retArgs[f] = nil
	var out []retDerivation
	if _, ok := f.Sig.RetType.(*types.PointerType); ok {
		index := map[*ir.Param]int{}
		for i, p := range f.Params {
			index[p] = i
		}
		seen := map[value.Value]bool{}
		ok := len(a.rets0[f]) > 0
		for _, r := range a.rets0[f] {
			if ok && r.X != nil {
				ok = a.derive(r.X, walk{}, index, seen, &out)
			}
		}
		if !ok {
			out = nil
		}
	}
	a.retArgs[f] = out
	return out
}

// derive follows v back through casts, getelementptrs, phis, selects and
// calls of functions returning their arguments to parameters, adding each
// derivation found to out; false when some path leads elsewhere.
func (a *Analysis) derive(v value.Value, w walk, index map[*ir.Param]int, seen map[value.Value]bool, out *[]retDerivation) bool {
	v = unwrap(v)
	switch x := v.(type) {
	case *ir.Param:
		i, ok := index[x]
		if !ok {
			return false
		}
		d := retDerivation{param: i, off: w.off, index: -1, variable: w.variable}
		switch {
		case w.variable:
			d.off = 0
		case w.index != nil:
			d.index, d.stride = index[w.index], w.stride
		}
		for _, e := range *out {
			if e == d {
				return true
			}
		}
		*out = append(*out, d)
		return true
	case *ir.InstBitCast:
		return a.derive(x.From, w, index, seen, out)
	case *ir.InstAddrSpaceCast:
		return a.derive(x.From, w, index, seen, out)
	case *ir.InstGetElementPtr:
		d, idx, stride, ok := gepOffset(x)
		if !ok {
			return false
		}
		return a.derive(x.Src, w.plus(d, idx, stride, index), index, seen, out)
	case *ir.InstCall:
		g := a.callee(x.Callee)
		if g == nil {
			return false
		}
		ds := a.returnedArgs(g)
		if len(ds) != 1 || ds[0].param >= len(x.Args) {
			return false
		}
		d := ds[0]
		switch {
		case d.variable:
			w = w.plus(0, x, 1, index) // a call is no parameter: variable
		case d.index >= 0:
			if d.index >= len(x.Args) {
				return false
			}
			w = w.plus(d.off, x.Args[d.index], d.stride, index)
		default:
			w = w.plus(d.off, nil, 0, index)
		}
		return a.derive(x.Args[d.param], w, index, seen, out)
	case *ir.InstPhi:
		if seen[x] {
			return true // a loop adds no new derivation
		}
		seen[x] = true
		for _, in := range x.Incs {
			if !a.derive(in.X, w, index, seen, out) {
				return false
			}
		}
		return true
	case *ir.InstSelect:
		return a.derive(x.ValueTrue, w, index, seen, out) && a.derive(x.ValueFalse, w, index, seen, out)
	}
	return false
}

// plus is w moved by d bytes and by stride times idx (nil: none): a
// constant idx adds to the offset, a parameter scales it (one at most),
// anything else makes the offset variable.
func (w walk) plus(d int64, idx value.Value, stride int64, params map[*ir.Param]int) walk {
	w.off += d
	if idx == nil || w.variable {
		return w
	}
	if k, ok := intConst(idx); ok {
		w.off += k * stride
		return w
	}
	if p, ok := unwrap(idx).(*ir.Param); ok && w.index == nil {
		if _, mine := params[p]; mine {
			w.index, w.stride = p, stride
			return w
		}
	}
	w.variable = true
	return w
}

// gepOffset is the constant byte offset a getelementptr adds, plus the
// one index that is not constant and its stride (nil: none; a second one
// is reported as the getelementptr itself, which plus takes as
// variable); false for forms the gep rule does not follow either (vectors
// of pointers, unknown struct fields).
func gepOffset(x *ir.InstGetElementPtr) (off int64, idx value.Value, stride int64, ok bool) {
	ok = walkGEP(x, func(d int64, v value.Value, size int64) {
		switch {
		case v == nil:
			off += d
		case idx == nil:
			idx, stride = v, size
		default:
			idx = x
		}
	})
	return off, idx, stride, ok
}

// returnedArgCall relates the result c of a call of g to the arguments
// g's returned pointer derives from (see returnedArgs).
func (a *Analysis) returnedArgCall(c value.Value, g *ir.Func, args []value.Value) {
	ds := a.returnedArgs(g)
	for _, d := range ds {
		if d.param >= len(args) || d.index >= len(args) {
			return
		}
	}
	for _, d := range ds {
		arg := args[d.param]
		off, variable := d.off, d.variable
		if d.index >= 0 {
			if k, ok := intConst(args[d.index]); ok {
				off += k * d.stride
			} else {
				variable = true
			}
		}
		if variable {
			a.add(c, a.get(arg).repeatingPointee())
			if len(ds) == 1 {
				a.add(arg, integersOnly(a.get(c).repeatingPointee()))
				// An element at a variable index of the argument, as a
				// getelementptr's (gep): arrays of what it holds.
				if d.index >= 0 && d.off == 0 && !d.variable {
					if rep := a.elementRep(a.get(c), d.stride, true); rep != nil {
						a.add(c, rep)
						a.add(arg, integersOnly(rep))
					}
				}
			}
			continue
		}
		a.add(c, a.get(arg).shiftedPointee(-off))
		if len(ds) == 1 {
			a.add(arg, integersOnly(a.get(c).shiftedPointee(off)))
		}
	}
}

// integersOnly is t's integer facts. What a call's result is used as goes
// back to the memory its argument points to as integers only: the
// analysis does not follow paths, and an accessor may be called only on
// some of the objects its argument can be (libstdc++'s _S_key reads a
// node's double at offset 32 where the same argument can also be the
// tree's header, whose node count lies there): a float or pointer fact
// carried back would contradict that object's own, where the integers
// told are the sizes, dimensions and strides that accessors return.
func integersOnly(t *Tree) *Tree {
	out := NewTree()
	for _, e := range t.Entries() {
		if e.Type == Integer {
			out.put(e.Path, e.Type)
		}
	}
	return out
}

// Getters: functions that return a value read from memory one parameter
// points to (rows() returning this->m_rows, outerStride() forwarding to
// it). A caller multiplying the result learns, through the callee's
// return tree, what the callee's load reads, but not what its own object
// holds there when the getter has other callers. At every call site the
// result is what the argument's memory holds at the offset, so the call
// relates them as a load through the argument moved by the offset would,
// both ways.

// loadDerivation is a getter's returned value: n bytes read at off from
// the memory parameter param points to.
type loadDerivation struct {
	param int
	off   int64
	n     int64
}

// returnedLoad is how every value f returns is read from the memory of
// one parameter at one offset (directly, or by a getter it calls); false
// otherwise.
func (a *Analysis) returnedLoad(f *ir.Func) (loadDerivation, bool) {
	if d, ok := a.retLoads[f]; ok {
		return d, d.n > 0
	}
	a.retLoads[f] = loadDerivation{}
	var found loadDerivation
	ok := len(a.rets0[f]) > 0
	for _, r := range a.rets0[f] {
		if !ok || r.X == nil {
			ok = false
			break
		}
		d, dok := a.loadOf(f, r.X)
		if !dok || (found.n > 0 && d != found) {
			ok = false
			break
		}
		found = d
	}
	if !ok {
		found = loadDerivation{}
	}
	a.retLoads[f] = found
	return found, found.n > 0
}

// loadOf is how v, a value of f, is read from the memory of one of f's
// parameters at a constant offset.
func (a *Analysis) loadOf(f *ir.Func, v value.Value) (loadDerivation, bool) {
	index := map[*ir.Param]int{}
	for i, p := range f.Params {
		index[p] = i
	}
	var ptr value.Value
	var n int64
	switch x := unwrap(v).(type) {
	case *ir.InstLoad:
		ptr, n = x.Src, irutil.StoreSize(x.ElemType)
	case *ir.InstCall:
		g := a.callee(x.Callee)
		if g == nil {
			return loadDerivation{}, false
		}
		d, ok := a.returnedLoad(g)
		if !ok || d.param >= len(x.Args) {
			return loadDerivation{}, false
		}
		// The getter's argument, moved by its offset, is the pointer read.
		var out []retDerivation
		if !a.derive(x.Args[d.param], walk{off: d.off}, index, map[value.Value]bool{}, &out) || len(out) != 1 || out[0].variable || out[0].index >= 0 {
			return loadDerivation{}, false
		}
		return loadDerivation{param: out[0].param, off: out[0].off, n: d.n}, true
	default:
		return loadDerivation{}, false
	}
	var out []retDerivation
	if !a.derive(ptr, walk{}, index, map[value.Value]bool{}, &out) || len(out) != 1 || out[0].variable || out[0].index >= 0 {
		return loadDerivation{}, false
	}
	return loadDerivation{param: out[0].param, off: out[0].off, n: n}, true
}

// returnedLoadCall relates the result c of a call of getter g to the
// memory of its argument (see returnedLoad).
func (a *Analysis) returnedLoadCall(c value.Value, g *ir.Func, args []value.Value) {
	d, ok := a.returnedLoad(g)
	if !ok || d.param >= len(args) || types.Equal(c.Type(), types.Void) || irutil.StoreSize(c.Type()) != d.n {
		return
	}
	arg := args[d.param]
	a.add(c, a.get(arg).shiftedPointee(-d.off).pointeeWindow(d.n))
	a.add(arg, a.get(c).placedUnder(d.n).shiftedPointee(d.off))
}
