package activity

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Analyze computes activity for f given its active parameters
// (floats with Out, pointers with Dup) and whether its return is active.
//
// retShadow asks for a shadow of the returned pointer (the caller stores
// derivatives through it).
//
// Aggregates holding pointers (structs built with insertvalue, loaded or
// stored whole, returned by value) are shadowed like pointers: their shadow
// is the same aggregate with the shadow pointers in the pointer fields.
//
// Forward mode uses the same analysis: the tangent of an aggregate holding
// pointers is its shadow aggregate.
//
// Calls of functions gozyme differentiates shadow exactly the pointer
// arguments their callee writes derivatives through (Oracle.CallSummary), so a
// local array filled by a helper from an active value gets a shadow, and a
// pointer the helper only reads does not need one.
func Analyze(f *ir.Func, acts []Activity, retActive, retShadow bool, o Oracle) *Info {
	an := &activityAnalysis{o: o, f: f, a: &Info{Varied: map[value.Value]bool{}, Useful: map[value.Value]bool{}, Shadowed: map[value.Value]bool{}},
		unmet: map[Unmet]bool{}, visiting: map[value.Value]bool{}}
	a := an.a
	for i, p := range f.Params {
		switch acts[i] {
		case Out:
			a.Varied[p] = true
		case Dup, DupNoNeed:
			a.Shadowed[p] = true
		}
	}
	if retShadow {
		// The returned pointer, or the pointers put into the returned
		// aggregate.
		for _, b := range f.Blocks {
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
				an.demand(r.X, nil)
			}
		}
	}
	for an.changed = true; an.changed; {
		an.changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				an.forward(inst)
			}
		}
	}
	an.backward(retActive)
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, u := range an.unmetOrder {
				if u.At == inst {
					a.Unmet = append(a.Unmet, u)
				}
			}
		}
	}
	for _, u := range an.unmetOrder {
		if u.At == nil {
			a.Unmet = append(a.Unmet, u)
		}
	}
	return a
}

// activityAnalysis is the state of one Analyze.
type activityAnalysis struct {
	o          Oracle
	f          *ir.Func
	a          *Info
	changed    bool
	unmet      map[Unmet]bool
	unmetOrder []Unmet
	hard       bool // the demand being followed is hard (Unmet)
	// visiting holds the bases shadowBase is deciding: a list walked
	// through its own loads (p = p->next) reaches itself.
	visiting map[value.Value]bool
}

// demandHard is demand for a hard need.
func (an *activityAnalysis) demandHard(v value.Value, at ir.Instruction) {
	old := an.hard
	an.hard = true
	an.demand(v, at)
	an.hard = old
}

func (an *activityAnalysis) set(m map[value.Value]bool, v value.Value) {
	if !m[v] {
		m[v] = true
		an.changed = true
	}
}

// demand asks for a shadow of v, a pointer or an aggregate holding
// pointers, because at writes derivatives or shadow pointers through it (or
// returns it to a caller that does).
func (an *activityAnalysis) demand(v value.Value, at ir.Instruction) {
	v = irfacts.Unwrap(v)
	switch {
	case types.IsPointer(v.Type()):
		an.shadowBases(v, at)
	case irfacts.HasPointerField(v.Type()):
		an.shadowAggregate(v, at)
	}
}

// shadowBases shadows the bases of pointer ptr (PointerBases), recording
// those that cannot have one as unmet.
func (an *activityAnalysis) shadowBases(ptr value.Value, at ir.Instruction) {
	var bases []value.Value
	PointerBases(ptr, map[value.Value]bool{}, &bases)
	if !an.hard && an.chosenWithGlobal(bases) {
		an.leaveWithGlobal(bases, at)
		return
	}
	for _, b := range bases {
		an.shadowBase(b, at)
	}
}

// shadowBase gives base b (see PointerBases) a shadow where one can be
// built, back through where it came from.
func (an *activityAnalysis) shadowBase(b value.Value, at ir.Instruction) {
	a := an.a
	if a.Shadowed[b] || an.visiting[b] {
		return
	}
	an.visiting[b] = true
	defer delete(an.visiting, b)
	switch x := b.(type) {
	case *ir.InstAlloca:
		an.set(a.Shadowed, x)
	case *ir.InstCall:
		if OpaqueExternal(x) {
			an.unmetAt(b, at)
			return
		}
		// A pointer returned by a call may point into the memory of its
		// pointer arguments: call asks for their shadows once the result
		// has one.
		an.set(a.Shadowed, x)
	case *ir.InstLoad:
		// A pointer read from memory: its shadow is read from the shadow
		// of that memory, which must have one.
		if an.shadowableMemory(x.Src, at) {
			an.set(a.Shadowed, x)
		}
	case *ir.InstExtractValue:
		// Taken from an aggregate: the aggregate carries the shadow.
		if an.shadowAggregate(x.X, at) {
			an.set(a.Shadowed, x)
		}
	case *constant.Null, *constant.Undef, *constant.Poison, *constant.ZeroInitializer:
		// Null has the null shadow; writes through it are undefined.
	case *ir.Func:
		// Code, not memory holding derivatives.
	case *ir.Global:
		if irfacts.IsSharedGlobal(x) {
			an.set(a.Shadowed, x) // a __shared__ shadow (ad/gpu.go)
			return
		}
		if an.o.ConstShadowed(x) {
			return
		}
		an.unmetAt(b, at)
	default:
		if c, ok := b.(constant.Constant); ok && an.o.ConstShadowed(c) {
			return // constant memory and the null page have shadows (ad/constshadow.go)
		}
		an.unmetAt(b, at)
	}
}

// shadowableMemory shadows the memory ptr points into and reports whether
// every base of it has a shadow.
func (an *activityAnalysis) shadowableMemory(ptr value.Value, at ir.Instruction) bool {
	var bases []value.Value
	PointerBases(ptr, map[value.Value]bool{}, &bases)
	ok := true
	for _, b := range bases {
		an.shadowBase(b, at)
		if !an.a.Shadowed[b] && !IsNullConstant(b) && !an.visiting[b] {
			ok = false
		}
	}
	return ok
}

func (an *activityAnalysis) unmetAt(base value.Value, at ir.Instruction) {
	if p, ok := base.(*ir.Param); ok && an.a.Shadowed[p] {
		return
	}
	u := Unmet{Base: base, At: at, Hard: an.hard}
	if !an.unmet[u] {
		an.unmet[u] = true
		an.unmetOrder = append(an.unmetOrder, u)
	}
}

// shadowAggregate shadows an aggregate holding pointers and, back through
// how it was built, the pointers put into it. It reports whether the
// aggregate has a shadow.
func (an *activityAnalysis) shadowAggregate(agg value.Value, at ir.Instruction) bool {
	a := an.a
	agg = irfacts.Unwrap(agg)
	if !irfacts.HasPointerField(agg.Type()) {
		return false
	}
	if a.Shadowed[agg] {
		return true
	}
	switch agg.(type) {
	case ir.Instruction, *ir.Param:
	default:
		return true // constants: null shadows
	}
	switch x := agg.(type) {
	case *ir.Param:
		an.unmetAt(x, at)
		return false
	case *ir.InstLoad:
		if !an.shadowableMemory(x.Src, at) {
			return false
		}
	}
	an.set(a.Shadowed, agg)
	switch x := agg.(type) {
	case *ir.InstInsertValue:
		an.shadowAggregate(x.X, at)
		an.demand(x.Elem, at)
	case *ir.InstExtractValue:
		an.shadowAggregate(x.X, at)
	case *ir.InstPhi:
		for _, in := range x.Incs {
			an.shadowAggregate(in.X, at)
		}
	case *ir.InstSelect:
		an.shadowAggregate(x.ValueTrue, at)
		an.shadowAggregate(x.ValueFalse, at)
	case *ir.InstCall:
		for _, arg := range x.Args {
			an.demand(arg, at)
		}
	}
	return true
}

// storePointer shadows a pointer stored into shadowed memory (or put into
// a shadowed aggregate), unless it comes from an unknown external function
// (a FILE*): nothing gives that one a shadow, and shadowlessPointerStore
// decides whether its null shadow is harmless.
func (an *activityAnalysis) storePointer(p value.Value, at ir.Instruction) {
	var bases []value.Value
	PointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		if OpaqueExternal(b) {
			continue
		}
		if _, ok := b.(*ir.Param); ok {
			// A parameter without a shadow stored into shadowed memory:
			// its caller is asked for one (Oracle.CallSummary); the root's own
			// stay without, as shadowlessPointerStore checks.
			an.unmetAt(b, at)
			continue
		}
		if _, ok := b.(*ir.Global); ok {
			continue // shadowlessPointerStore checks what it points to
		}
		an.shadowBase(b, at)
	}
}

// forward propagates varied values and shadowed pointers through inst.
func (an *activityAnalysis) forward(inst ir.Instruction) {
	a := an.a
	switch x := inst.(type) {
	case *ir.InstLoad:
		if a.HasShadow(x.Src) {
			if irfacts.CarriesFloat(x.ElemType) {
				an.set(a.Varied, x)
			}
			if irfacts.HoldsPointers(x.ElemType) {
				an.set(a.Shadowed, x)
			}
		}
		return
	case *ir.InstStore:
		src, dst := irfacts.Unwrap(x.Src), irfacts.Unwrap(x.Dst)
		if a.Varied[src] || a.HasShadow(src) {
			an.demand(dst, x)
		}
		// A pointer stored into shadowed memory (a cache of buffers, a list
		// node) stores its shadow there too; so does a whole struct
		// holding pointers.
		if a.HasShadow(dst) {
			if types.IsPointer(src.Type()) {
				an.storePointer(src, x)
			} else if irfacts.HasPointerField(src.Type()) {
				an.shadowAggregate(src, x)
			}
		}
		return
	case *ir.InstCall:
		an.call(x)
	case *ir.InstAtomicRMW:
		an.atomicActivity(x)
		return
	case *ir.InstCmpXchg:
		an.cmpXchgActivity(x)
		return
	}
	v, ok := inst.(value.Value)
	if !ok {
		return
	}
	if call, ok := inst.(*ir.InstCall); ok {
		if irfacts.IsRealloc(call) && a.HasShadow(call.Args[0]) {
			an.set(a.Shadowed, v) // the old contents move to the new block
		}
		if irfacts.HoldsPointers(v.Type()) && an.o.Passes(call) {
			// A pointer returned from a call that was given shadowed
			// pointers may point into their memory.
			for _, arg := range call.Args {
				if a.HasShadow(arg) {
					an.set(a.Shadowed, v)
					break
				}
			}
		}
	}
	if ev, ok := inst.(*ir.InstExtractValue); ok && irfacts.HoldsPointers(v.Type()) {
		if agg := irfacts.Unwrap(ev.X); a.Shadowed[agg] {
			an.set(a.Shadowed, v)
		}
	}
	if irfacts.HasPointerField(v.Type()) && !a.Shadowed[v] {
		// An aggregate built from, or chosen among, values with shadows:
		// its other parts need shadows too.
		var ops []value.Value
		switch x := inst.(type) {
		case *ir.InstInsertValue:
			ops = []value.Value{x.X, x.Elem}
		case *ir.InstPhi, *ir.InstSelect:
			ops = PointerOperands(inst)
		}
		for _, op := range ops {
			if a.HasShadow(op) {
				an.demandHard(v, inst)
				break
			}
		}
	}
	if types.IsPointer(v.Type()) {
		if codePointer(v) {
			// A function pointer chosen among several (a C++ member
			// pointer's virtual and non-virtual arms): code, not memory
			// holding derivatives; a call through it dispatches on the
			// primal value (ad/dispatch.go), so it needs no shadow.
			return
		}
		// A pointer derived from one with a shadow has one; a phi or
		// select's other operands then need shadows too (the shadow
		// chooses among theirs).
		for _, p := range PointerOperands(inst) {
			if a.HasShadow(p) {
				if !a.Shadowed[v] {
					an.set(a.Shadowed, v)
					an.demandHard(v, inst)
				}
				break
			}
		}
		return
	}
	if !irfacts.CarriesFloat(v.Type()) || a.Varied[v] {
		return
	}
	for _, op := range DerivOperands(inst, an.o.Passes) {
		// A call may also read derivatives through a pointer.
		if a.Varied[op] || a.HasShadow(op) {
			an.set(a.Varied, v)
			break
		}
	}
}

// call finds which pointers a call writes derivatives through: bulk copies
// of shadowed memory, masked stores of varied vectors, the arguments a
// differentiated callee writes derivatives through or returns the shadow
// of (its summary), and every pointer argument of a call with a custom rule
// or no body that is given derivatives or returns a pointer with a shadow
// (the rule takes each pointer's shadow; an unknown function given
// derivatives is an error later, unknownMemoryCall).
func (an *activityAnalysis) call(c *ir.InstCall) {
	a := an.a
	switch {
	case irfacts.IsMaskedStore(c):
		if a.Varied[irfacts.Unwrap(c.Args[0])] {
			an.demand(c.Args[1], c)
		}
		return
	case irfacts.IsMemTransfer(c):
		if len(c.Args) >= 2 && a.HasShadow(c.Args[1]) {
			an.demand(c.Args[0], c)
		}
		// Pointers copied into memory with a shadow bring their shadows:
		// the source memory needs one (as a stored pointer does).
		if len(c.Args) >= 2 && a.Shadowed[irfacts.Unwrap(c.Args[0])] && an.o.CopiesPointers(an.f, c) {
			an.shadowableMemory(c.Args[1], c)
		}
		return
	case irfacts.IsMemSet(c) || !an.o.Passes(c):
		return
	}
	retShadow := irfacts.HoldsPointers(c.Typ) && a.Shadowed[c]
	given := retShadow
	for _, arg := range c.Args {
		if v := irfacts.Unwrap(arg); a.Varied[v] || a.HasShadow(v) {
			given = true
			break
		}
	}
	if !given {
		return
	}
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if ok && irfacts.IsLLVMIntrinsic(callee) {
		return
	}
	if an.o.EntryPoint(irfacts.CalleeName(c)) {
		return // an Enzyme call lowered later (or an error there)
	}
	if outs, ok := an.o.RuleOutputs(c); ok {
		for _, o := range outs {
			an.demand(o, c)
		}
		return
	}
	if ok && len(callee.Blocks) > 0 && !an.o.Custom(callee) && !irfacts.IsFunctionLike(callee) && !irfacts.IsAllocation(c) {
		acts := an.callActs(c)
		sum := an.o.CallSummary(callee, acts, retShadow)
		var plain *Summary
		if retShadow {
			plain = an.o.CallSummary(callee, acts, false)
		}
		for i, arg := range c.Args {
			switch {
			case i >= len(sum.Needs) || !sum.Needs[i]:
			case sum.Hard[i] || (plain != nil && !plain.Needs[i]):
				// Needed to build the shadow of the returned pointer.
				an.demandHard(arg, c)
			default:
				an.demand(arg, c)
			}
		}
		if sum.RetShadow && irfacts.HoldsPointers(c.Typ) {
			an.set(a.Shadowed, c)
		}
		return
	}
	for _, arg := range c.Args {
		an.demand(arg, c)
	}
}

// callActs is the activity a call gives its callee's parameters: Out for
// varied floats, Dup for shadowed pointers and aggregates holding them.
func (an *activityAnalysis) callActs(c *ir.InstCall) []Activity {
	acts := make([]Activity, len(c.Args))
	for i, arg := range c.Args {
		v := irfacts.Unwrap(arg)
		switch {
		case irfacts.HoldsPointers(v.Type()) && (an.a.HasShadow(v) || IsNullConstant(v)):
			acts[i] = Dup
		case irfacts.CarriesFloat(v.Type()) && an.a.Varied[v]:
			acts[i] = Out
		}
	}
	return acts
}

// backward marks useful values: the return, anything stored into shadowed
// memory, and the data operands of useful values.
func (an *activityAnalysis) backward(retActive bool) {
	a, f := an.a, an.f
	if retActive {
		for _, b := range f.Blocks {
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
				a.Useful[r.X] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		mark := func(v value.Value) {
			v = irfacts.Unwrap(v)
			if !a.Useful[v] && irfacts.CarriesFloat(v.Type()) {
				a.Useful[v] = true
				changed = true
			}
		}
		for i := len(f.Blocks) - 1; i >= 0; i-- {
			b := f.Blocks[i]
			for j := len(b.Insts) - 1; j >= 0; j-- {
				inst := b.Insts[j]
				if st, ok := inst.(*ir.InstStore); ok {
					if a.HasShadow(st.Dst) {
						mark(st.Src)
					}
					continue
				}
				if rmw, ok := inst.(*ir.InstAtomicRMW); ok && a.Shadowed[irfacts.Unwrap(rmw.Dst)] && irfacts.IsFloatAtomic(rmw) {
					mark(rmw.X)
				}
				// A call moving derivatives through memory (or returning a
				// pointer to memory holding them) may compute them from any
				// of its arguments.
				if call, ok := inst.(*ir.InstCall); ok && (a.CallTouchesActiveMemory(call, an.o.Passes) ||
					(irfacts.HoldsPointers(call.Typ) && a.Shadowed[call] && an.o.Passes(call))) {
					for _, arg := range call.Args {
						mark(arg)
					}
				}
				v, ok := inst.(value.Value)
				if !ok || !a.Useful[v] {
					continue
				}
				for _, op := range DerivOperands(inst, an.o.Passes) {
					mark(op)
				}
			}
		}
	}
}

// codePointer reports a pointer to a function: it addresses code, never
// memory holding derivatives.
func codePointer(v value.Value) bool {
	pt, ok := v.Type().(*types.PointerType)
	if !ok {
		return false
	}
	_, ok = pt.ElemType.(*types.FuncType)
	return ok
}
