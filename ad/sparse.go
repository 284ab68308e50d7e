package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Dense views (Enzyme's sparse API).
//
// T* p = __enzyme_todense<T*>(load_fn, store_fn, extra...) is a pointer
// through which every load of a T at byte offset off from p is
// load_fn(off, extra...) and every store of v is store_fn(v, off, extra...).
// __enzyme_post_sparse_todense is the same view (Enzyme lowers it after its
// sparsity pass, which gozyme does not have). The calls stay opaque
// declarations through optimization and AD; after AD, PrepareDenseViews
// marks every function receiving a pointer derived from a view
// alwaysinline, the always-inliner puts their bodies where the view is, and
// LowerDenseViews turns each access into the call it stands for.
//
// An enzyme_dupnoneed argument of a forward or reverse root whose primal is
// a constant pointer ((T*)0x1, nullptr: memory that is not there, whose
// primal contents the caller does not want) is passed as a view too
// (noNeedView): its stores are dropped, and a load through it is allowed
// only where nothing that remains uses the value.

// denseViewNames are the entry points that make a dense view.
var denseViewNames = []string{"__enzyme_todense", "__enzyme_post_sparse_todense"}

// noNeedView marks the constant primal of an enzyme_dupnoneed argument of
// a forward or reverse root: i8* @__gozyme_noneed_view(i8* primal).
const noNeedView = "__gozyme_noneed_view"

// DenseViewNames lists the names whose calls LowerDenseViews lowers (for
// scans: a function containing one must be parsed).
func DenseViewNames() []string { return append(append([]string(nil), denseViewNames...), noNeedView) }

// isDenseViewName reports whether a function name is one of Enzyme's dense
// view entry points (an invoke of one is made a call, like an entry
// point's, by invokedRoots).
func isDenseViewName(name string) bool {
	for _, n := range denseViewNames {
		if strings.Contains(name, n) {
			return true
		}
	}
	return false
}

// viewKind says whether a call makes a view: 1 a dense view, 2 the
// primal of an enzyme_dupnoneed argument, 0 neither.
func viewKind(call *ir.InstCall) int {
	f, ok := irutil.StripCasts(call.Callee).(*ir.Func)
	if !ok || len(f.Blocks) > 0 {
		return 0
	}
	if f.Name() == noNeedView {
		return 2
	}
	if isDenseViewName(f.Name()) {
		return 1
	}
	return 0
}

// wrapNoNeedPrimals passes each enzyme_dupnoneed argument of a root
// (forward, or reverse: its augmented forward sweep stores the primal too)
// whose primal is a constant pointer through noNeedView, so that no access
// through it is left after AD (LowerDenseViews).
func (d *differ) wrapNoNeedPrimals(rt *root) {
	for i, a := range rt.args {
		if a.act != activity.DupNoNeed {
			continue
		}
		pt, ok := a.val.Type().(*types.PointerType)
		if !ok {
			continue
		}
		if !isAddressConstant(a.val) {
			continue
		}
		decl := d.noNeedDecl()
		var pre []ir.Instruction
		arg := a.val
		if !types.Equal(pt, types.I8Ptr) {
			c := ir.NewBitCast(a.val, types.I8Ptr)
			pre = append(pre, c)
			arg = c
		}
		call := ir.NewCall(decl, arg)
		pre = append(pre, call)
		var v value.Value = call
		if !types.Equal(pt, types.I8Ptr) {
			c := ir.NewBitCast(call, pt)
			pre = append(pre, c)
			v = c
		}
		insertBeforeInBlock(rt.block, rt.call, pre)
		rt.args[i].val = v
	}
}

func insertBeforeInBlock(b *ir.Block, at ir.Instruction, pre []ir.Instruction) {
	var out []ir.Instruction
	for _, inst := range b.Insts {
		if inst == at {
			out = append(out, pre...)
		}
		out = append(out, inst)
	}
	b.Insts = out
}

// isAddressConstant: v is a null pointer or an integer made a pointer
// (inttoptr of a constant), under casts: a pointer to no object.
func isAddressConstant(v value.Value) bool {
	for {
		switch x := v.(type) {
		case *constant.Null, *constant.ZeroInitializer:
			return true
		case *constant.ExprIntToPtr:
			_, ok := x.From.(*constant.Int)
			return ok
		case *constant.ExprBitCast:
			v = x.From
		case *constant.ExprAddrSpaceCast:
			v = x.From
		default:
			return false
		}
	}
}

func (d *differ) noNeedDecl() *ir.Func {
	for _, f := range d.m.Funcs {
		if f.Name() == noNeedView {
			return f
		}
	}
	f := d.m.NewFunc(noNeedView, types.I8Ptr, ir.NewParam("", types.I8Ptr))
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoUnwind)
	return f
}

// derivedFrom returns the values of f that are addresses derived from the
// seeds (casts, GEPs, phis, selects), with no check of how they are used.
func derivedFrom(f *ir.Func, seeds map[value.Value]bool) map[value.Value]bool {
	derived := map[value.Value]bool{}
	for s := range seeds {
		derived[s] = true
	}
	is := func(v value.Value) bool { return derived[irutil.StripCasts(v)] || derived[v] }
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				v, ok := inst.(value.Value)
				if !ok || derived[v] {
					continue
				}
				d := false
				switch x := inst.(type) {
				case *ir.InstBitCast:
					d = is(x.From)
				case *ir.InstAddrSpaceCast:
					d = is(x.From)
				case *ir.InstGetElementPtr:
					d = is(x.Src)
				case *ir.InstPhi:
					for _, in := range x.Incs {
						d = d || is(in.X)
					}
				case *ir.InstSelect:
					d = is(x.ValueTrue) || is(x.ValueFalse)
				}
				if d {
					derived[v] = true
					changed = true
				}
			}
		}
	}
	return derived
}

// PrepareDenseViews marks alwaysinline every defined function that
// receives a pointer derived from a dense view (transitively), so that
// after the always-inliner every access through a view is in the function
// that made it. It reports whether the module has views at all.
func PrepareDenseViews(m *ir.Module) bool {
	any := false
	seen := map[*ir.Func]map[int]bool{}
	var visit func(f *ir.Func, seeds map[value.Value]bool)
	visit = func(f *ir.Func, seeds map[value.Value]bool) {
		derived := derivedFrom(f, seeds)
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				call, ok := inst.(*ir.InstCall)
				if !ok || viewKind(call) != 0 {
					continue
				}
				callee, ok := irutil.StripCasts(call.Callee).(*ir.Func)
				if !ok || len(callee.Blocks) == 0 {
					continue
				}
				next := map[value.Value]bool{}
				for i, a := range call.Args {
					if derived[irutil.StripCasts(irfacts.Unwrap(a))] && i < len(callee.Params) {
						if seen[callee] == nil {
							seen[callee] = map[int]bool{}
						}
						if !seen[callee][i] {
							seen[callee][i] = true
							next[callee.Params[i]] = true
						}
					}
				}
				if len(next) > 0 {
					markAlwaysInline(callee)
					visit(callee, next)
				}
			}
		}
	}
	for _, f := range m.Funcs {
		seeds := map[value.Value]bool{}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if call, ok := inst.(*ir.InstCall); ok && viewKind(call) != 0 {
					seeds[call] = true
				}
			}
		}
		if len(seeds) > 0 {
			any = true
			visit(f, seeds)
		}
	}
	return any
}

// markAlwaysInline gives f alwaysinline and takes noinline and optnone
// away (attribute groups are expanded into f's own list, so that other
// functions sharing a group keep it).
func markAlwaysInline(f *ir.Func) {
	var attrs []ir.FuncAttribute
	add := func(a ir.FuncAttribute) {
		if x, ok := a.(enum.FuncAttr); ok && (x == enum.FuncAttrNoInline || x == enum.FuncAttrOptNone || x == enum.FuncAttrAlwaysInline) {
			return
		}
		attrs = append(attrs, a)
	}
	for _, a := range f.FuncAttrs {
		if g, ok := a.(*ir.AttrGroupDef); ok {
			for _, x := range g.FuncAttrs {
				add(x)
			}
			continue
		}
		add(a)
	}
	f.FuncAttrs = append(attrs, enum.FuncAttrAlwaysInline)
}

// LowerDenseViews replaces every access through a view by the call it
// stands for (see the top of this file). Any other use of an address
// derived from a view (passed to a call that is still there, stored,
// compared, converted to an integer) is an error naming the function.
func LowerDenseViews(m *ir.Module) error {
	for _, f := range m.Funcs {
		var views []*ir.InstCall
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if call, ok := inst.(*ir.InstCall); ok && viewKind(call) != 0 {
					views = append(views, call)
				}
			}
		}
		for _, v := range views {
			if err := lowerView(f, v); err != nil {
				return err
			}
		}
		if len(views) > 0 {
			if err := irutil.Renumber(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// viewFns are a dense view's functions and extra arguments.
type viewFns struct {
	load, store *ir.Func
	extra       []value.Value
}

func lowerView(f *ir.Func, view *ir.InstCall) error {
	kind := viewKind(view)
	name := irutil.StripCasts(view.Callee).(*ir.Func).Name()
	var fns viewFns
	if kind == 1 {
		if len(view.Args) < 2 {
			return errorAt(f, view, "%s takes a load function, a store function and their extra arguments", name)
		}
		var ok bool
		if fns.load, ok = irutil.StripCasts(irfacts.Unwrap(view.Args[0])).(*ir.Func); !ok {
			return errorAt(f, view, "the load function of %s must be a known function", name)
		}
		if fns.store, ok = irutil.StripCasts(irfacts.Unwrap(view.Args[1])).(*ir.Func); !ok {
			return errorAt(f, view, "the store function of %s must be a known function", name)
		}
		for _, a := range view.Args[2:] {
			fns.extra = append(fns.extra, irfacts.Unwrap(a))
		}
	}
	// Addresses of the view kept in memory that holds nothing else are
	// loaded back as addresses of the view (sparseslots.go).
	seeds := map[value.Value]bool{view: true}
	var derived map[value.Value]bool
	is := func(v value.Value) bool { return derived[irutil.StripCasts(v)] || derived[v] }
	var slots viewSlots
	for grown := true; grown; {
		derived = derivedFrom(f, seeds)
		slots, grown = findViewSlots(f, is), false
		for _, l := range slots.loads {
			if !seeds[l] {
				seeds[l], grown = true, true
			}
		}
	}
	what := "a pointer made by " + name
	if kind == 2 {
		what = "the constant primal pointer of an enzyme_dupnoneed argument"
	}
	// Check every use first: nothing is changed unless all can be lowered.
	var loads []*ir.InstLoad
	var stores []*ir.InstStore
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok && derived[v] {
				switch x := inst.(type) {
				case *ir.InstPhi:
					for _, in := range x.Incs {
						if !is(in.X) && !isUndefConst(in.X) {
							return errorAt(f, inst, "an address merges %s with another pointer; gozyme cannot lower it", what)
						}
					}
					continue
				case *ir.InstSelect:
					if (!is(x.ValueTrue) && !isUndefConst(x.ValueTrue)) || (!is(x.ValueFalse) && !isUndefConst(x.ValueFalse)) {
						return errorAt(f, inst, "an address selects between %s and another pointer; gozyme cannot lower it", what)
					}
					if is(x.Cond) {
						return errorAt(f, inst, "%s is used as a condition", what)
					}
					continue
				case *ir.InstGetElementPtr:
					for _, idx := range x.Indices {
						if is(idx) {
							return errorAt(f, inst, "%s is used as an index", what)
						}
					}
					continue
				}
			}
			switch x := inst.(type) {
			case *ir.InstLoad:
				if is(x.Src) {
					loads = append(loads, x)
				}
				continue
			case *ir.InstStore:
				if is(x.Src) && !slots.stores[x] {
					return errorAt(f, inst, "%s is stored to memory; gozyme can only lower loads and stores through it", what)
				}
				if is(x.Dst) {
					stores = append(stores, x)
				}
				continue
			case *ir.InstBitCast, *ir.InstAddrSpaceCast:
				continue
			}
			if inst == ir.Instruction(view) {
				continue
			}
			for _, op := range inst.Operands() {
				if is(*op) {
					return errorAt(f, inst, "%s is used by %s; gozyme can only lower loads and stores through it", what, viewUse(inst))
				}
			}
		}
		if b.Term != nil {
			for _, op := range b.Term.Operands() {
				if is(*op) {
					return errorAt(f, b.Term, "%s is used by a terminator; gozyme can only lower loads and stores through it", what)
				}
			}
		}
	}
	for _, l := range loads {
		if l.Atomic || l.Volatile {
			return errorAt(f, l, "an atomic or volatile load through %s", what)
		}
		if kind == 1 {
			if err := checkAccessType(f, l, l.ElemType, fns.load.Sig.RetType, what); err != nil {
				return err
			}
			if len(fns.load.Params) != 1+len(fns.extra) || fns.load.Sig.Variadic {
				return errorAt(f, l, "the load function '%s' of %s takes %d parameters, not the offset and %d extra arguments", fns.load.Name(), name, len(fns.load.Params), len(fns.extra))
			}
		}
	}
	for _, s := range stores {
		if s.Atomic || s.Volatile {
			return errorAt(f, s, "an atomic or volatile store through %s", what)
		}
		if kind == 1 {
			if len(fns.store.Params) != 2+len(fns.extra) || fns.store.Sig.Variadic {
				return errorAt(f, s, "the store function '%s' of %s takes %d parameters, not the value, the offset and %d extra arguments", fns.store.Name(), name, len(fns.store.Params), len(fns.extra))
			}
			if err := checkAccessType(f, s, s.Src.Type(), fns.store.Params[0].Typ, what); err != nil {
				return err
			}
		}
	}
	// The view's extra arguments must convert to the functions' parameters.
	if kind == 1 {
		for _, fn := range []*ir.Func{fns.load, fns.store} {
			first := 1
			if fn == fns.store {
				first = 2
				if len(stores) == 0 {
					continue
				}
			} else if len(loads) == 0 {
				continue
			}
			for i, a := range fns.extra {
				if !convertible(a.Type(), fn.Params[first+i].Typ) {
					return errorAt(f, view, "extra argument %d of %s (%s) does not match parameter %d of '%s' (%s)", i+1, name, a.Type(), first+i+1, fn.Name(), fn.Params[first+i].Typ)
				}
			}
			if !convertible(types.I64, fn.Params[first-1].Typ) {
				return errorAt(f, view, "the offset parameter of '%s' is not an integer", fn.Name())
			}
		}
	}
	if kind == 2 {
		return lowerNoNeed(f, view, loads, stores)
	}
	repl := map[ir.Instruction][]ir.Instruction{}
	for _, l := range loads {
		repl[l] = lowerLoad(l, fns)
	}
	for _, s := range stores {
		repl[s] = lowerStore(s, fns)
	}
	for _, b := range f.Blocks {
		var out []ir.Instruction
		for _, inst := range b.Insts {
			if r, ok := repl[inst]; ok {
				out = append(out, r...)
				continue
			}
			if gep, ok := inst.(*ir.InstGetElementPtr); ok && derived[gep] {
				gep.InBounds = false // based on null from here on
			}
			out = append(out, inst)
		}
		b.Insts = out
	}
	for _, l := range loads {
		irutil.ReplaceAllUses(f, l, repl[l][len(repl[l])-1].(value.Value))
	}
	// The view is the null pointer: an address's integer value is its
	// byte offset from the view.
	irutil.ReplaceAllUses(f, view, constant.NewNull(view.Typ.(*types.PointerType)))
	removeInst(f, view)
	return nil
}

// scalarSize is the size in bytes of a scalar type (a whole-byte integer,
// half, float, double or a pointer), 0 if not such a scalar.
func scalarSize(t types.Type) int64 {
	switch x := t.(type) {
	case *types.IntType:
		if x.BitSize%8 != 0 {
			return 0
		}
	case *types.FloatType:
		if x.Kind != types.FloatKindHalf && x.Kind != types.FloatKindFloat && x.Kind != types.FloatKindDouble {
			return 0
		}
	case *types.PointerType:
	default:
		return 0
	}
	return irutil.StoreSize(t)
}

// checkAccessType checks that an access of type t (a scalar or a vector
// of scalars) can be made of values of the function's type ft.
func checkAccessType(f *ir.Func, inst ir.Instruction, t, ft types.Type, what string) error {
	elem := t
	if v, ok := t.(*types.VectorType); ok && !v.Scalable {
		elem = v.ElemType
	}
	_, p1 := elem.(*types.PointerType)
	_, p2 := ft.(*types.PointerType)
	_, i1 := elem.(*types.IntType)
	_, i2 := ft.(*types.IntType)
	mixed := (p1 && !p2 && !i2) || (p2 && !p1 && !i1)
	if mixed || scalarSize(elem) == 0 || scalarSize(elem) != scalarSize(ft) {
		return errorAt(f, inst, "an access of %s through %s does not match the view's functions' %s", t, what, ft)
	}
	return nil
}

// convertible: a value of type from can be passed for type to (same
// type, pointers, or integers of other widths, as Enzyme does).
func convertible(from, to types.Type) bool {
	if types.Equal(from, to) {
		return true
	}
	_, p1 := from.(*types.PointerType)
	_, p2 := to.(*types.PointerType)
	if p1 && p2 {
		return true
	}
	_, i1 := from.(*types.IntType)
	_, i2 := to.(*types.IntType)
	return i1 && i2
}

// convert emits the conversion of v to type to (see convertible and
// checkAccessType: equal sizes or integers).
func convert(v value.Value, to types.Type, out *[]ir.Instruction) value.Value {
	from := v.Type()
	if types.Equal(from, to) {
		return v
	}
	var c ir.Instruction
	fi, i1 := from.(*types.IntType)
	ti, i2 := to.(*types.IntType)
	_, p1 := from.(*types.PointerType)
	_, p2 := to.(*types.PointerType)
	switch {
	case i1 && i2 && fi.BitSize < ti.BitSize:
		c = ir.NewZExt(v, to)
	case i1 && i2 && fi.BitSize > ti.BitSize:
		c = ir.NewTrunc(v, to)
	case p1 && i2:
		c = ir.NewPtrToInt(v, to)
	case i1 && p2:
		c = ir.NewIntToPtr(v, to)
	default:
		c = ir.NewBitCast(v, to)
	}
	*out = append(*out, c)
	return c.(value.Value)
}

// offsetOf is the byte offset of addr from its view (the view being null).
func offsetOf(addr value.Value, out *[]ir.Instruction) value.Value {
	p := ir.NewPtrToInt(addr, types.I64)
	*out = append(*out, p)
	return p
}

func lanes(t types.Type) (types.Type, int) {
	if v, ok := t.(*types.VectorType); ok {
		return v.ElemType, int(v.Len)
	}
	return t, 0
}

func laneOffset(off value.Value, k int, size int64, out *[]ir.Instruction) value.Value {
	if k == 0 {
		return off
	}
	a := ir.NewAdd(off, constant.NewInt(types.I64, int64(k)*size))
	*out = append(*out, a)
	return a
}

func callArgsFor(fn *ir.Func, first int, lead []value.Value, extra []value.Value, out *[]ir.Instruction) []value.Value {
	args := make([]value.Value, 0, len(lead)+len(extra))
	for i, a := range lead {
		args = append(args, convert(a, fn.Params[i].Typ, out))
	}
	for i, a := range extra {
		args = append(args, convert(a, fn.Params[first+i].Typ, out))
	}
	return args
}

// lowerLoad is the load as calls of the load function, one per lane; the
// last instruction is the loaded value.
func lowerLoad(l *ir.InstLoad, fns viewFns) []ir.Instruction {
	var out []ir.Instruction
	off := offsetOf(l.Src, &out)
	elem, n := lanes(l.ElemType)
	one := func(o value.Value) value.Value {
		c := ir.NewCall(fns.load, callArgsFor(fns.load, 1, []value.Value{o}, fns.extra, &out)...)
		out = append(out, c)
		return convert(c, elem, &out)
	}
	if n == 0 {
		v := one(off)
		if _, ok := v.(ir.Instruction); !ok || v == nil {
			panic("dense view: load lowered to no instruction")
		}
		// Make sure the last instruction is the value.
		if out[len(out)-1] != v.(ir.Instruction) {
			panic("dense view: load value is not last")
		}
		return out
	}
	var vec value.Value = constant.NewUndef(l.ElemType)
	size := scalarSize(elem)
	for k := 0; k < n; k++ {
		v := one(laneOffset(off, k, size, &out))
		ins := ir.NewInsertElement(vec, v, constant.NewInt(types.I32, int64(k)))
		out = append(out, ins)
		vec = ins
	}
	return out
}

// lowerStore is the store as calls of the store function, one per lane.
func lowerStore(s *ir.InstStore, fns viewFns) []ir.Instruction {
	var out []ir.Instruction
	off := offsetOf(s.Dst, &out)
	elem, n := lanes(s.Src.Type())
	one := func(v value.Value, o value.Value) {
		c := ir.NewCall(fns.store, callArgsFor(fns.store, 2, []value.Value{v, o}, fns.extra, &out)...)
		out = append(out, c)
	}
	if n == 0 {
		one(s.Src, off)
		return out
	}
	size := scalarSize(elem)
	for k := 0; k < n; k++ {
		e := ir.NewExtractElement(s.Src, constant.NewInt(types.I32, int64(k)))
		out = append(out, e)
		one(e, laneOffset(off, k, size, &out))
	}
	return out
}

// lowerNoNeed drops the stores through an enzyme_dupnoneed primal and
// checks that no value loaded through it is used by what remains.
func lowerNoNeed(f *ir.Func, view *ir.InstCall, loads []*ir.InstLoad, stores []*ir.InstStore) error {
	dropped := map[ir.Instruction]bool{}
	for _, s := range stores {
		dropped[s] = true
	}
	noNeedLoad := map[ir.Instruction]bool{}
	for _, l := range loads {
		noNeedLoad[l] = true
	}
	// Liveness: every instruction with an effect (or one of unknown
	// effect) is live, and so is every instruction it uses.
	live := map[ir.Instruction]bool{}
	var work []ir.Instruction
	mark := func(v value.Value) {
		if inst, ok := v.(ir.Instruction); ok && !live[inst] {
			live[inst] = true
			work = append(work, inst)
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if dropped[inst] || noNeedLoad[inst] || pureInst(inst) {
				continue
			}
			live[inst] = true
			work = append(work, inst)
		}
		for _, op := range b.Term.Operands() {
			mark(*op)
		}
	}
	for len(work) > 0 {
		inst := work[len(work)-1]
		work = work[:len(work)-1]
		for _, op := range inst.Operands() {
			mark(*op)
		}
	}
	for _, l := range loads {
		if live[l] {
			return errorAt(f, l, "the value loaded through %s is needed (an enzyme_dupnoneed argument must not be read for a result that is kept); pass a real pointer with enzyme_dup", "the constant primal pointer of an enzyme_dupnoneed argument")
		}
	}
	for _, l := range loads {
		irutil.ReplaceAllUses(f, l, constant.NewUndef(l.ElemType))
		dropped[l] = true
	}
	for _, b := range f.Blocks {
		out := b.Insts[:0]
		for _, inst := range b.Insts {
			if !dropped[inst] {
				out = append(out, inst)
			}
		}
		b.Insts = out
	}
	irutil.ReplaceAllUses(f, view, view.Args[0])
	removeInst(f, view)
	return nil
}

// pureInst: an instruction with no effect but its value.
func pureInst(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstFNeg, *ir.InstAdd, *ir.InstFAdd, *ir.InstSub, *ir.InstFSub, *ir.InstMul, *ir.InstFMul,
		*ir.InstFDiv, *ir.InstFRem, *ir.InstShl, *ir.InstLShr, *ir.InstAShr, *ir.InstAnd, *ir.InstOr, *ir.InstXor,
		*ir.InstExtractElement, *ir.InstInsertElement, *ir.InstShuffleVector, *ir.InstExtractValue, *ir.InstInsertValue,
		*ir.InstGetElementPtr, *ir.InstTrunc, *ir.InstZExt, *ir.InstSExt, *ir.InstFPTrunc, *ir.InstFPExt,
		*ir.InstFPToUI, *ir.InstFPToSI, *ir.InstUIToFP, *ir.InstSIToFP, *ir.InstPtrToInt, *ir.InstIntToPtr,
		*ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstICmp, *ir.InstFCmp, *ir.InstPhi, *ir.InstSelect, *ir.InstFreeze:
		return true
	}
	return false
}

// viewUse names the instruction using a view's address, for messages.
func viewUse(inst ir.Instruction) string {
	if call, ok := inst.(*ir.InstCall); ok {
		if fn, ok := irutil.StripCasts(call.Callee).(*ir.Func); ok {
			return "a call of '" + fn.Name() + "'"
		}
		return "an indirect call"
	}
	return "'" + strings.ToLower(opcodeOf(inst)) + "'"
}
