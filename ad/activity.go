package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// activity records which values of a function carry derivatives, found as
// fixed points over its data flow and memory:
//   - varied: float values that depend on an active input;
//   - useful: float values that influence an active output (the return, or
//     memory reachable from an active pointer);
//   - shadowed: pointers that need a shadow, because the memory they point
//     into holds (or receives) derivatives.
type activity struct {
	varied   map[value.Value]bool
	useful   map[value.Value]bool
	shadowed map[value.Value]bool
}

// active reports whether a float value carries a derivative.
func (a *activity) active(v value.Value) bool {
	v = unwrapArg(v)
	return a.varied[v] && a.useful[v]
}

// hasShadow reports whether a pointer value has a shadow.
func (a *activity) hasShadow(v value.Value) bool { return a.shadowed[unwrapArg(v)] }

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

// allocationBases follows a pointer back through GEPs, casts, phis and
// selects to the allocations (allocas, calls returning pointers) it may
// point into.
func allocationBases(v value.Value, seen map[value.Value]bool, out *[]value.Value) {
	v = unwrapArg(v)
	if seen[v] {
		return
	}
	seen[v] = true
	switch x := v.(type) {
	case *ir.InstAlloca:
		*out = append(*out, x)
		return
	case *ir.InstCall:
		// Fresh allocations, and pointers returned by other calls: either
		// way the call's result is where its shadow has to come from.
		*out = append(*out, x)
		return
	case *ir.InstLoad:
		// A pointer read from memory: its shadow is read from the shadow
		// of that memory (which markBases then shadows).
		*out = append(*out, x)
		return
	case *ir.InstExtractValue:
		// A pointer taken from an aggregate (a tape returned with a
		// result): its shadow is taken from the aggregate's.
		*out = append(*out, x)
		return
	case ir.Instruction:
		for _, p := range pointerOperands(x) {
			allocationBases(p, seen, out)
		}
	}
}

// opaqueExternal reports a pointer returned by a function without a body
// that is no allocation (fopen, getenv): nothing gives it a shadow.
func opaqueExternal(v value.Value) bool {
	c, ok := v.(*ir.InstCall)
	if !ok || isAllocation(c) || calleeName(c) == "realloc" {
		return false
	}
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return ok && len(f.Blocks) == 0
}

// isAllocation reports calls that return fresh heap memory.
func isAllocation(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false
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
func analyzeActivity(f *ir.Func, acts []Activity, retActive, retShadow bool, passes func(*ir.InstCall) bool) *activity {
	a := &activity{varied: map[value.Value]bool{}, useful: map[value.Value]bool{}, shadowed: map[value.Value]bool{}}
	for i, p := range f.Params {
		switch acts[i] {
		case Out:
			a.varied[p] = true
		case Dup, DupNoNeed:
			a.shadowed[p] = true
		}
	}
	var markBases func(ptr value.Value) bool
	var markAggregate, markStored func(v value.Value) bool
	var markArgs func(c *ir.InstCall)
	markBases = func(ptr value.Value) bool {
		var bases []value.Value
		allocationBases(ptr, map[value.Value]bool{}, &bases)
		changed := false
		for _, b := range bases {
			if a.shadowed[b] {
				continue
			}
			a.shadowed[b] = true
			changed = true
			if ld, ok := b.(*ir.InstLoad); ok {
				markBases(ld.Src)
				continue
			}
			if ev, ok := b.(*ir.InstExtractValue); ok {
				// Taken from an aggregate: the aggregate carries the shadow.
				markAggregate(ev.X)
				continue
			}
			// A pointer returned by a call (not a fresh allocation) may
			// point into the memory of its pointer arguments.
			if c, ok := b.(*ir.InstCall); ok && !isAllocation(c) {
				markArgs(c)
			}
		}
		return changed
	}
	// markAggregate shadows an aggregate holding pointers and, back through
	// how it was built, the pointers put into it.
	markAggregate = func(agg value.Value) bool {
		agg = unwrapArg(agg)
		if !hasPointerField(agg.Type()) || a.shadowed[agg] {
			return false
		}
		switch agg.(type) {
		case ir.Instruction, *ir.Param:
		default:
			return false // constants: null shadows
		}
		a.shadowed[agg] = true
		switch x := agg.(type) {
		case *ir.InstInsertValue:
			markAggregate(x.X)
			switch {
			case types.IsPointer(x.Elem.Type()):
				markStored(x.Elem)
			default:
				markAggregate(x.Elem)
			}
		case *ir.InstExtractValue:
			markAggregate(x.X)
		case *ir.InstLoad:
			markBases(x.Src)
		case *ir.InstPhi:
			for _, in := range x.Incs {
				markAggregate(in.X)
			}
		case *ir.InstSelect:
			markAggregate(x.ValueTrue)
			markAggregate(x.ValueFalse)
		case *ir.InstCall:
			markArgs(x)
		}
		return true
	}
	// markArgs shadows what a call's pointer arguments (and aggregates
	// holding pointers) point into: its result may point there too.
	markArgs = func(c *ir.InstCall) {
		for _, arg := range c.Args {
			if types.IsPointer(arg.Type()) {
				markBases(arg)
			} else {
				markAggregate(arg)
			}
		}
	}
	// markStored shadows a pointer stored into shadowed memory (or put
	// into a shadowed aggregate), unless it comes from an unknown
	// external function (a FILE*): nothing gives that one a shadow.
	markStored = func(p value.Value) bool {
		var bases []value.Value
		allocationBases(p, map[value.Value]bool{}, &bases)
		changed := false
		for _, b := range bases {
			if !opaqueExternal(b) && markBases(b) {
				changed = true
			}
		}
		return changed
	}
	if retShadow {
		// The returned pointer, or the pointers put into the returned
		// aggregate.
		for _, b := range f.Blocks {
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && types.IsPointer(r.X.Type()) {
				markBases(r.X)
			} else if ok && r.X != nil {
				markAggregate(r.X)
			}
		}
	}
	// Forward: varied values and shadowed pointers, together.
	for changed := true; changed; {
		changed = false
		set := func(m map[value.Value]bool, v value.Value) {
			if !m[v] {
				m[v] = true
				changed = true
			}
		}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstLoad:
					if a.shadowed[unwrapArg(x.Src)] {
						if carriesFloat(x.ElemType) {
							set(a.varied, x)
						}
						if types.IsPointer(x.ElemType) || hasPointerField(x.ElemType) {
							set(a.shadowed, x)
						}
					}
					continue
				case *ir.InstStore:
					if a.varied[unwrapArg(x.Src)] || a.shadowed[unwrapArg(x.Src)] {
						if markBases(x.Dst) {
							changed = true
						}
					}
					// A pointer stored into shadowed memory (a cache of
					// buffers, a list node) stores its shadow there too;
					// pointers from unknown external functions (a FILE*)
					// stay without one.
					if types.IsPointer(x.Src.Type()) && a.shadowed[unwrapArg(x.Dst)] && markStored(x.Src) {
						changed = true
					}
					// So does a whole struct holding pointers.
					if hasPointerField(x.Src.Type()) && a.shadowed[unwrapArg(x.Dst)] && markAggregate(x.Src) {
						changed = true
					}
					continue
				case *ir.InstCall:
					if isMaskedStore(x) && a.varied[unwrapArg(x.Args[0])] && markBases(x.Args[1]) {
						changed = true
					}
					if a.callTouchesActiveMemory(x, passes) {
						for _, arg := range x.Args {
							if types.IsPointer(arg.Type()) && markBases(arg) {
								changed = true
							}
							if hasPointerField(arg.Type()) && markAggregate(arg) {
								changed = true
							}
						}
					}
					if isMemTransfer(x) && len(x.Args) >= 2 && a.shadowed[unwrapArg(x.Args[1])] && markBases(x.Args[0]) {
						changed = true
					}
				}
				v, ok := inst.(value.Value)
				if !ok {
					continue
				}
				if call, ok := inst.(*ir.InstCall); ok && isRealloc(call) && a.shadowed[unwrapArg(call.Args[0])] {
					set(a.shadowed, v) // the old contents move to the new block
				}
				if call, ok := inst.(*ir.InstCall); ok && types.IsPointer(v.Type()) && passes(call) {
					// A pointer returned from a call that was given shadowed
					// pointers may point into their memory; one given floats
					// that carry derivatives, to memory it stored them in.
					for _, arg := range call.Args {
						if a.shadowed[unwrapArg(arg)] || a.varied[unwrapArg(arg)] {
							set(a.shadowed, v)
							break
						}
					}
				}
				if ev, ok := inst.(*ir.InstExtractValue); ok && holdsPointers(v.Type()) {
					if agg := unwrapArg(ev.X); a.varied[agg] || a.shadowed[agg] {
						set(a.shadowed, v)
					}
				}
				if call, ok := inst.(*ir.InstCall); ok && hasPointerField(v.Type()) && passes(call) {
					for _, arg := range call.Args {
						if a.shadowed[unwrapArg(arg)] {
							set(a.shadowed, v)
							break
						}
					}
				}
				if hasPointerField(v.Type()) && !a.shadowed[v] {
					// An aggregate built from, or chosen among, values
					// with shadows.
					var ops []value.Value
					switch x := inst.(type) {
					case *ir.InstInsertValue:
						ops = []value.Value{x.X, x.Elem}
					case *ir.InstPhi, *ir.InstSelect:
						ops = pointerOperands(inst)
					}
					for _, op := range ops {
						if a.shadowed[unwrapArg(op)] {
							set(a.shadowed, v)
							break
						}
					}
				}
				if types.IsPointer(v.Type()) {
					for _, p := range pointerOperands(inst) {
						if a.shadowed[unwrapArg(p)] {
							set(a.shadowed, v)
							break
						}
					}
					continue
				}
				if !carriesFloat(v.Type()) || a.varied[v] {
					continue
				}
				for _, op := range derivOperands(inst, passes) {
					// A call may also read derivatives through a pointer.
					if a.varied[op] || a.shadowed[op] {
						set(a.varied, v)
						break
					}
				}
			}
		}
	}
	// Backward: useful values: the return, anything stored into shadowed
	// memory, and the data operands of useful values.
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
					if a.shadowed[unwrapArg(st.Dst)] {
						mark(st.Src)
					}
					continue
				}
				if call, ok := inst.(*ir.InstCall); ok && a.callTouchesActiveMemory(call, passes) {
					for _, arg := range call.Args {
						mark(arg)
					}
				}
				v, ok := inst.(value.Value)
				if !ok || !a.useful[v] {
					continue
				}
				for _, op := range derivOperands(inst, passes) {
					mark(op)
				}
			}
		}
	}
	return a
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
		if a.shadowed[unwrapArg(arg)] {
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
