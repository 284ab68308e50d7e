package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// activity records which values of a function carry derivatives, found as
// fixed points over its data flow and memory:
//   - varied: float values that depend on an active input;
//   - useful: float values that influence an active output (the return, or
//     memory reachable from an active pointer);
//   - shadowed: pointers that need a shadow, because the memory they point
//     into holds (or receives) derivatives;
//   - unmet: the places that write derivatives (or shadow pointers) into
//     memory whose pointer cannot have a shadow (see unmetShadow).
//
// A pointer gets a shadow only where one can be built: from an allocation
// of the function, a parameter passed with one (enzyme_dup), a pointer
// loaded from shadowed memory, or a call that returns one. A pointer loaded
// from memory no derivative reaches (a struct passed enzyme_const holding
// pointers to constant arrays) is inactive and gets none.
type activity struct {
	varied   map[value.Value]bool
	useful   map[value.Value]bool
	shadowed map[value.Value]bool
	unmet    []unmetShadow
}

// unmetShadow is a write of derivatives into memory whose pointer has no
// shadow: at (a store, a copy, a call) needs a shadow of base, a parameter
// passed without one, a global, a constant address or a pointer returned
// by an unknown function. A parameter's unmet need is its caller's to
// meet (summary.go); the others stop the differentiation.
//
// A hard need is one the derivative code cannot be built without: the
// shadow of a phi or select some of whose operands have shadows, or of a
// pointer a callee returns into its argument's memory. A soft one only
// loses derivatives written there (which unmetError allows where nothing
// reads them back).
type unmetShadow struct {
	base value.Value
	at   ir.Instruction
	hard bool
	// lost: base could have a shadow but is left without one, chosen
	// together with global memory (globalchoice.go).
	lost bool
}

// active reports whether a float value carries a derivative.
func (a *activity) active(v value.Value) bool {
	v = unwrapArg(v)
	return a.varied[v] && a.useful[v]
}

// hasShadow reports whether a pointer value has a shadow.
// A constant pointer into a __shared__ variable has one where the
// variable has (gpu.go).
func (a *activity) hasShadow(v value.Value) bool {
	v = unwrapArg(v)
	if a.shadowed[v] {
		return true
	}
	if c, ok := v.(constant.Constant); ok {
		if g := sharedGlobalOf(c); g != nil {
			return a.shadowed[g]
		}
	}
	return false
}

func unwrapArg(v value.Value) value.Value {
	if x, ok := v.(*ir.Arg); ok {
		return x.Value
	}
	return v
}

// derivOperands returns the operands of inst through which derivatives flow
// into its (float) result: the data operands, not conditions or indices.
func derivOperands(inst ir.Instruction, passes func(*ir.InstCall) bool) []value.Value {
	switch x := inst.(type) {
	case *ir.InstFAdd:
		return []value.Value{x.X, x.Y}
	case *ir.InstFSub:
		return []value.Value{x.X, x.Y}
	case *ir.InstFMul:
		return []value.Value{x.X, x.Y}
	case *ir.InstFDiv:
		return []value.Value{x.X, x.Y}
	case *ir.InstFRem:
		return []value.Value{x.X, x.Y}
	case *ir.InstFNeg:
		return []value.Value{x.X}
	case *ir.InstFPExt:
		return []value.Value{x.From}
	case *ir.InstFPTrunc:
		return []value.Value{x.From}
	case *ir.InstFreeze:
		return []value.Value{x.X}
	case *ir.InstSelect:
		return []value.Value{x.ValueTrue, x.ValueFalse}
	case *ir.InstPhi:
		return incomingValues(x)
	case *ir.InstExtractValue:
		return []value.Value{x.X}
	case *ir.InstInsertValue:
		return []value.Value{x.X, x.Elem}
	case *ir.InstExtractElement:
		return []value.Value{x.X}
	case *ir.InstInsertElement:
		return []value.Value{x.X, x.Elem}
	case *ir.InstShuffleVector:
		return []value.Value{x.X, x.Y}
	case *ir.InstCall:
		if !passes(x) {
			return nil
		}
		ops := make([]value.Value, len(x.Args))
		for i, a := range x.Args {
			ops[i] = unwrapArg(a)
		}
		return ops
	}
	return nil
}

// pointerOperands returns the pointer operands a pointer-valued instruction
// is derived from (its shadow is derived the same way from theirs).
func pointerOperands(inst ir.Instruction) []value.Value {
	switch x := inst.(type) {
	case *ir.InstGetElementPtr:
		return []value.Value{x.Src}
	case *ir.InstBitCast:
		return []value.Value{x.From}
	case *ir.InstAddrSpaceCast:
		return []value.Value{x.From}
	case *ir.InstSelect:
		return []value.Value{x.ValueTrue, x.ValueFalse}
	case *ir.InstPhi:
		return incomingValues(x)
	}
	return nil
}

// pointerBases follows a pointer back through GEPs, casts, phis and selects
// (instructions and constant expressions) to what it is derived from:
// allocations and other calls, loads (a pointer read from memory),
// extractvalues (taken from an aggregate), parameters, globals, and other
// constants or instructions (inttoptr) that no shadow can be derived from.
func pointerBases(v value.Value, seen map[value.Value]bool, out *[]value.Value) {
	v = unwrapArg(v)
	if seen[v] {
		return
	}
	seen[v] = true
	switch x := v.(type) {
	case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstSelect, *ir.InstPhi:
		for _, p := range pointerOperands(x.(ir.Instruction)) {
			pointerBases(p, seen, out)
		}
	case *constant.ExprGetElementPtr:
		pointerBases(x.Src, seen, out)
	case *constant.ExprBitCast:
		pointerBases(x.From, seen, out)
	case *constant.ExprAddrSpaceCast:
		pointerBases(x.From, seen, out)
	default:
		*out = append(*out, v)
	}
}

// allBases reports a pointer with at least one base (pointerBases), every
// one of which pred accepts.
func allBases(p value.Value, pred func(value.Value) bool) bool {
	var bases []value.Value
	pointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		if !pred(b) {
			return false
		}
	}
	return len(bases) > 0
}

// opaqueExternal reports a pointer returned by a function without a body
// that is no allocation (fopen, getenv): nothing gives it a shadow.
func opaqueExternal(v value.Value) bool {
	c, ok := v.(*ir.InstCall)
	if !ok || isAllocation(c) || calleeName(c) == "realloc" {
		return false
	}
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return !ok || len(f.Blocks) == 0
}

// isAllocation reports calls that return fresh heap memory (the C and C++
// allocators, and functions declared allocation-like).
func isAllocation(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false
	}
	if funcAttr(f, attrAllocator) != "" {
		return true
	}
	switch f.Name() {
	case "malloc", "calloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "aligned_alloc":
		return true
	}
	return false
}

// analyzeActivity computes activity for f given its active parameters
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
// arguments their callee writes derivatives through (summary.go), so a
// local array filled by a helper from an active value gets a shadow, and a
// pointer the helper only reads does not need one.
func (d *differ) analyzeActivity(f *ir.Func, acts []Activity, retActive, retShadow bool) *activity {
	an := &activityAnalysis{d: d, f: f, a: &activity{varied: map[value.Value]bool{}, useful: map[value.Value]bool{}, shadowed: map[value.Value]bool{}},
		unmet: map[unmetShadow]bool{}, visiting: map[value.Value]bool{}}
	a := an.a
	for i, p := range f.Params {
		switch acts[i] {
		case Out:
			a.varied[p] = true
		case Dup, DupNoNeed:
			a.shadowed[p] = true
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
				if u.at == inst {
					a.unmet = append(a.unmet, u)
				}
			}
		}
	}
	for _, u := range an.unmetOrder {
		if u.at == nil {
			a.unmet = append(a.unmet, u)
		}
	}
	return a
}

// activityAnalysis is the state of one analyzeActivity.
type activityAnalysis struct {
	d          *differ
	f          *ir.Func
	a          *activity
	changed    bool
	unmet      map[unmetShadow]bool
	unmetOrder []unmetShadow
	hard       bool // the demand being followed is hard (unmetShadow)
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
	v = unwrapArg(v)
	switch {
	case types.IsPointer(v.Type()):
		an.shadowBases(v, at)
	case hasPointerField(v.Type()):
		an.shadowAggregate(v, at)
	}
}

// shadowBases shadows the bases of pointer ptr (pointerBases), recording
// those that cannot have one as unmet.
func (an *activityAnalysis) shadowBases(ptr value.Value, at ir.Instruction) {
	var bases []value.Value
	pointerBases(ptr, map[value.Value]bool{}, &bases)
	if !an.hard && an.chosenWithGlobal(bases) {
		an.leaveWithGlobal(bases, at)
		return
	}
	for _, b := range bases {
		an.shadowBase(b, at)
	}
}

// shadowBase gives base b (see pointerBases) a shadow where one can be
// built, back through where it came from.
func (an *activityAnalysis) shadowBase(b value.Value, at ir.Instruction) {
	a := an.a
	if a.shadowed[b] || an.visiting[b] {
		return
	}
	an.visiting[b] = true
	defer delete(an.visiting, b)
	switch x := b.(type) {
	case *ir.InstAlloca:
		an.set(a.shadowed, x)
	case *ir.InstCall:
		if opaqueExternal(x) {
			an.unmetAt(b, at)
			return
		}
		// A pointer returned by a call may point into the memory of its
		// pointer arguments: call asks for their shadows once the result
		// has one.
		an.set(a.shadowed, x)
	case *ir.InstLoad:
		// A pointer read from memory: its shadow is read from the shadow
		// of that memory, which must have one.
		if an.shadowableMemory(x.Src, at) {
			an.set(a.shadowed, x)
		}
	case *ir.InstExtractValue:
		// Taken from an aggregate: the aggregate carries the shadow.
		if an.shadowAggregate(x.X, at) {
			an.set(a.shadowed, x)
		}
	case *constant.Null, *constant.Undef, *constant.Poison, *constant.ZeroInitializer:
		// Null has the null shadow; writes through it are undefined.
	case *ir.Func:
		// Code, not memory holding derivatives.
	case *ir.Global:
		if isSharedGlobal(x) {
			an.set(a.shadowed, x) // a __shared__ shadow (gpu.go)
			return
		}
		if constShadowed(x) {
			return
		}
		an.unmetAt(b, at)
	default:
		if c, ok := b.(constant.Constant); ok && constShadowed(c) {
			return // constant memory and the null page have shadows (constshadow.go)
		}
		an.unmetAt(b, at)
	}
}

// shadowableMemory shadows the memory ptr points into and reports whether
// every base of it has a shadow.
func (an *activityAnalysis) shadowableMemory(ptr value.Value, at ir.Instruction) bool {
	var bases []value.Value
	pointerBases(ptr, map[value.Value]bool{}, &bases)
	ok := true
	for _, b := range bases {
		an.shadowBase(b, at)
		if !an.a.shadowed[b] && !isNullConstant(b) && !an.visiting[b] {
			ok = false
		}
	}
	return ok
}

func isNullConstant(v value.Value) bool {
	switch v.(type) {
	case *constant.Null, *constant.Undef, *constant.Poison, *constant.ZeroInitializer:
		return true
	}
	return false
}

func (an *activityAnalysis) unmetAt(base value.Value, at ir.Instruction) {
	if p, ok := base.(*ir.Param); ok && an.a.shadowed[p] {
		return
	}
	u := unmetShadow{base: base, at: at, hard: an.hard}
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
	agg = unwrapArg(agg)
	if !hasPointerField(agg.Type()) {
		return false
	}
	if a.shadowed[agg] {
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
	an.set(a.shadowed, agg)
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
	pointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		if opaqueExternal(b) {
			continue
		}
		if _, ok := b.(*ir.Param); ok {
			// A parameter without a shadow stored into shadowed memory:
			// its caller is asked for one (summary.go); the root's own
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
		if a.hasShadow(x.Src) {
			if carriesFloat(x.ElemType) {
				an.set(a.varied, x)
			}
			if holdsPointers(x.ElemType) {
				an.set(a.shadowed, x)
			}
		}
		return
	case *ir.InstStore:
		src, dst := unwrapArg(x.Src), unwrapArg(x.Dst)
		if a.varied[src] || a.hasShadow(src) {
			an.demand(dst, x)
		}
		// A pointer stored into shadowed memory (a cache of buffers, a list
		// node) stores its shadow there too; so does a whole struct
		// holding pointers.
		if a.hasShadow(dst) {
			if types.IsPointer(src.Type()) {
				an.storePointer(src, x)
			} else if hasPointerField(src.Type()) {
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
		if isRealloc(call) && a.hasShadow(call.Args[0]) {
			an.set(a.shadowed, v) // the old contents move to the new block
		}
		if holdsPointers(v.Type()) && an.d.passes(call) {
			// A pointer returned from a call that was given shadowed
			// pointers may point into their memory.
			for _, arg := range call.Args {
				if a.hasShadow(arg) {
					an.set(a.shadowed, v)
					break
				}
			}
		}
	}
	if ev, ok := inst.(*ir.InstExtractValue); ok && holdsPointers(v.Type()) {
		if agg := unwrapArg(ev.X); a.shadowed[agg] {
			an.set(a.shadowed, v)
		}
	}
	if hasPointerField(v.Type()) && !a.shadowed[v] {
		// An aggregate built from, or chosen among, values with shadows:
		// its other parts need shadows too.
		var ops []value.Value
		switch x := inst.(type) {
		case *ir.InstInsertValue:
			ops = []value.Value{x.X, x.Elem}
		case *ir.InstPhi, *ir.InstSelect:
			ops = pointerOperands(inst)
		}
		for _, op := range ops {
			if a.hasShadow(op) {
				an.demandHard(v, inst)
				break
			}
		}
	}
	if types.IsPointer(v.Type()) {
		// A pointer derived from one with a shadow has one; a phi or
		// select's other operands then need shadows too (the shadow
		// chooses among theirs).
		for _, p := range pointerOperands(inst) {
			if a.hasShadow(p) {
				if !a.shadowed[v] {
					an.set(a.shadowed, v)
					an.demandHard(v, inst)
				}
				break
			}
		}
		return
	}
	if !carriesFloat(v.Type()) || a.varied[v] {
		return
	}
	for _, op := range derivOperands(inst, an.d.passes) {
		// A call may also read derivatives through a pointer.
		if a.varied[op] || a.hasShadow(op) {
			an.set(a.varied, v)
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
	case isMaskedStore(c):
		if a.varied[unwrapArg(c.Args[0])] {
			an.demand(c.Args[1], c)
		}
		return
	case isMemTransfer(c):
		if len(c.Args) >= 2 && a.hasShadow(c.Args[1]) {
			an.demand(c.Args[0], c)
		}
		// Pointers copied into memory with a shadow bring their shadows:
		// the source memory needs one (as a stored pointer does).
		if len(c.Args) >= 2 && a.shadowed[unwrapArg(c.Args[0])] && an.d.copiesPointers(an.f, c) {
			an.shadowableMemory(c.Args[1], c)
		}
		return
	case isMemSet(c) || !an.d.passes(c):
		return
	}
	retShadow := holdsPointers(c.Typ) && a.shadowed[c]
	given := retShadow
	for _, arg := range c.Args {
		if v := unwrapArg(arg); a.varied[v] || a.hasShadow(v) {
			given = true
			break
		}
	}
	if !given {
		return
	}
	callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if ok && isLLVMIntrinsic(callee) {
		return
	}
	if _, root := EntryPointMode(calleeName(c)); root {
		return // an Enzyme call lowered later (or an error there)
	}
	if an.blasCall(c) {
		return
	}
	if ok && len(callee.Blocks) > 0 && an.d.custom[callee] == nil && !isFunctionLike(callee) && !isAllocation(c) {
		acts := an.callActs(c)
		sum := an.d.callSummary(callee, acts, retShadow)
		var plain *summary
		if retShadow {
			plain = an.d.callSummary(callee, acts, false)
		}
		for i, arg := range c.Args {
			switch {
			case i >= len(sum.needs) || !sum.needs[i]:
			case sum.hard[i] || (plain != nil && !plain.needs[i]):
				// Needed to build the shadow of the returned pointer.
				an.demandHard(arg, c)
			default:
				an.demand(arg, c)
			}
		}
		if sum.retShadow && holdsPointers(c.Typ) {
			an.set(a.shadowed, c)
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
		v := unwrapArg(arg)
		switch {
		case holdsPointers(v.Type()) && (an.a.hasShadow(v) || isNullConstant(v)):
			acts[i] = Dup
		case carriesFloat(v.Type()) && an.a.varied[v]:
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
				a.useful[r.X] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		mark := func(v value.Value) {
			v = unwrapArg(v)
			if !a.useful[v] && carriesFloat(v.Type()) {
				a.useful[v] = true
				changed = true
			}
		}
		for i := len(f.Blocks) - 1; i >= 0; i-- {
			b := f.Blocks[i]
			for j := len(b.Insts) - 1; j >= 0; j-- {
				inst := b.Insts[j]
				if st, ok := inst.(*ir.InstStore); ok {
					if a.hasShadow(st.Dst) {
						mark(st.Src)
					}
					continue
				}
				if rmw, ok := inst.(*ir.InstAtomicRMW); ok && a.shadowed[unwrapArg(rmw.Dst)] && isFloatAtomic(rmw) {
					mark(rmw.X)
				}
				// A call moving derivatives through memory (or returning a
				// pointer to memory holding them) may compute them from any
				// of its arguments.
				if call, ok := inst.(*ir.InstCall); ok && (a.callTouchesActiveMemory(call, an.d.passes) ||
					(holdsPointers(call.Typ) && a.shadowed[call] && an.d.passes(call))) {
					for _, arg := range call.Args {
						mark(arg)
					}
				}
				v, ok := inst.(value.Value)
				if !ok || !a.useful[v] {
					continue
				}
				for _, op := range derivOperands(inst, an.d.passes) {
					mark(op)
				}
			}
		}
	}
}

// callTouchesActiveMemory reports a call that may move derivatives through
// memory: it passes derivatives and takes a shadowed pointer.
func (a *activity) callTouchesActiveMemory(c *ir.InstCall, passes func(*ir.InstCall) bool) bool {
	if !passes(c) || isMemTransfer(c) || isMemSet(c) {
		return false
	}
	if types.IsPointer(c.Typ) && a.shadowed[c] && !isAllocation(c) {
		return true // it returns memory that holds derivatives
	}
	for _, arg := range c.Args {
		if a.hasShadow(arg) {
			return true
		}
	}
	return false
}

func calleeName(c *ir.InstCall) string {
	if f, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
		return f.Name()
	}
	return ""
}

// isMemTransfer reports memcpy/memmove, intrinsic or libc.
func isMemTransfer(c *ir.InstCall) bool {
	n := calleeName(c)
	return n == "memcpy" || n == "memmove" || hasPrefix(n, "llvm.memcpy.") || hasPrefix(n, "llvm.memmove.")
}

// isMemSet reports memset, intrinsic or libc.
func isMemSet(c *ir.InstCall) bool {
	n := calleeName(c)
	return n == "memset" || hasPrefix(n, "llvm.memset.")
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// incomingValues lists a phi's incoming values.
func incomingValues(p *ir.InstPhi) []value.Value {
	ops := make([]value.Value, len(p.Incs))
	for i, in := range p.Incs {
		ops[i] = in.X
	}
	return ops
}

// incomingFrom returns phi p's incoming value from block pred.
func incomingFrom(p *ir.InstPhi, pred *ir.Block) (value.Value, bool) {
	for _, in := range p.Incs {
		if in.Pred == pred {
			return in.X, true
		}
	}
	return nil, false
}
