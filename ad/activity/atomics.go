package activity

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// atomicActivity is the activity analysis of an atomic update: like a
// store of its operand into the memory, whose old value it returns.
func (an *activityAnalysis) atomicActivity(x *ir.InstAtomicRMW) {
	a := an.a
	if !irfacts.IsFloatAtomic(x) {
		if an.variedBits(x.X) {
			an.demand(x.Dst, x) // an error where it matters (reverseAtomic)
		}
		return
	}
	if a.Varied[irfacts.Unwrap(x.X)] {
		an.demand(x.Dst, x)
	}
	if a.Shadowed[irfacts.Unwrap(x.Dst)] && irfacts.CarriesFloat(x.Typ) {
		an.set(a.Varied, x)
	}
}

// variedBits reports a varied float, or its bits moved as an integer
// (bitcast, or reloaded from memory that holds derivatives).
func (an *activityAnalysis) variedBits(v value.Value) bool {
	v = irfacts.Unwrap(v)
	switch x := v.(type) {
	case *ir.InstBitCast:
		v = irfacts.Unwrap(x.From)
	case *ir.InstLoad:
		return an.a.Shadowed[irfacts.Unwrap(x.Src)]
	}
	return an.a.Varied[v]
}

// cmpXchgActivity: a compare-exchange storing a varied float's bits writes
// derivatives gozyme cannot follow; its memory is shadowed so that the
// reverse and forward sweeps report it (reverseAtomic, forwardAtomic).
func (an *activityAnalysis) cmpXchgActivity(x *ir.InstCmpXchg) {
	if an.variedBits(x.New) {
		an.demand(x.Ptr, x)
	}
}
