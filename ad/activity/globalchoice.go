package activity

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Writes through a pointer chosen between memory a writable global
// reaches and memory the function allocates: a C++ container kept in a
// global and grown while the function is differentiated (a log of calls
// whose entries hold the pointers passed, push_back choosing between the
// storage read from the global and a fresh reallocation).
//
// The global has no shadow, so a derivative (or shadow pointer) written
// through such a pointer is lost where it goes to the global's memory;
// that is allowed where nothing differentiated reads it back (a soft need,
// lostGlobalError). Shadowing only the allocation would make the choice
// need a shadow on every path, the global's included (a hard need, an
// error): the write is lost on the other path anyway. So the allocation is
// left without a shadow too, and the write through the choice is lost
// alike on both paths; what makes that sound is the same check as the
// global's: nothing reads the allocation back where it matters (readsBack,
// with its root the allocation), except through the global, whose own
// check covers the readers that reach it (a store of the allocation's
// address into the global's memory is no escape of its own). A program
// that reads the allocation back directly (`p = c ? global_buf : local;
// *p = x*x; return local[0];`) is an error, as it was.
//
// Where the allocation has a shadow for another reason (floats with
// derivatives stored there), the choice needs shadows of all its
// operands, as before.

// chosenWithGlobal reports bases of a pointer written through (a soft
// need) that choose between global memory and allocations of the
// function, none with a shadow yet.
func (an *activityAnalysis) chosenWithGlobal(bases []value.Value) bool {
	global, local := false, false
	for _, b := range bases {
		if an.a.Shadowed[b] {
			return false
		}
		switch {
		case an.globalMemory(b, 0):
			global = true
		case isFreshAllocation(b):
			local = true
		default:
			return false
		}
	}
	return global && local
}

// isFreshAllocation reports an alloca or an allocation (or reallocation)
// call.
func isFreshAllocation(v value.Value) bool {
	switch x := v.(type) {
	case *ir.InstAlloca:
		return true
	case *ir.InstCall:
		return irfacts.IsAllocation(x) || irfacts.IsRealloc(x)
	}
	return false
}

// globalMemory reports a base that is a writable global holding floats or
// pointers (which has no shadow), or a pointer read, without a shadow,
// from memory only such globals reach.
func (an *activityAnalysis) globalMemory(b value.Value, depth int) bool {
	switch x := b.(type) {
	case *ir.Global:
		return !x.Immutable && (irfacts.ContainsFloatBytes(x.ContentType) || irfacts.ContainsPointer(x.ContentType))
	case *ir.InstLoad:
		if an.a.Shadowed[x] || depth > 8 {
			return false
		}
		return AllBases(x.Src, func(s value.Value) bool { return an.globalMemory(s, depth+1) })
	}
	return false
}

// leaveWithGlobal records the soft need of bases chosen with global
// memory: the global's as an unmet need (shadowBase), the allocations'
// as lost writes that unmetError checks are never read back.
func (an *activityAnalysis) leaveWithGlobal(bases []value.Value, at ir.Instruction) {
	for _, b := range bases {
		if an.globalMemory(b, 0) {
			an.shadowBase(b, at)
			continue
		}
		u := Unmet{Base: b, At: at, Lost: true}
		if !an.unmet[u] {
			an.unmet[u] = true
			an.unmetOrder = append(an.unmetOrder, u)
		}
	}
}
