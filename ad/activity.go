package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// activity records which values of a function carry derivatives: those that
// both depend on an active input ("varied") and influence an active output
// ("useful"), each found as a fixed point over the function's data flow.
type activity struct {
	varied map[value.Value]bool
	useful map[value.Value]bool
}

// active reports whether v carries a derivative.
func (a *activity) active(v value.Value) bool {
	v = unwrapArg(v)
	return a.varied[v] && a.useful[v]
}

func unwrapArg(v value.Value) value.Value {
	if x, ok := v.(*ir.Arg); ok {
		return x.Value
	}
	return v
}

// derivOperands returns the operands of inst through which derivatives flow
// into its result (the data operands, not conditions or indices), given the
// call oracle that says whether a callee passes derivatives at all.
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
		ops := make([]value.Value, len(x.Incs))
		for i, in := range x.Incs {
			ops[i] = in.X
		}
		return ops
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

// analyzeActivity computes activity for f given its active parameters and
// whether its return value is active.
func analyzeActivity(f *ir.Func, activeParams map[*ir.Param]bool, retActive bool, passes func(*ir.InstCall) bool) *activity {
	a := &activity{varied: map[value.Value]bool{}, useful: map[value.Value]bool{}}
	for p, on := range activeParams {
		if on {
			a.varied[p] = true
		}
	}
	// Forward: varied values.
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				v, ok := inst.(value.Value)
				if !ok || a.varied[v] || !carriesFloat(v.Type()) {
					continue
				}
				for _, op := range derivOperands(inst, passes) {
					if a.varied[op] {
						a.varied[v] = true
						changed = true
						break
					}
				}
			}
		}
	}
	// Backward: useful values.
	if retActive {
		for _, b := range f.Blocks {
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
				a.useful[r.X] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(f.Blocks) - 1; i >= 0; i-- {
			b := f.Blocks[i]
			for j := len(b.Insts) - 1; j >= 0; j-- {
				inst := b.Insts[j]
				v, ok := inst.(value.Value)
				if !ok || !a.useful[v] {
					continue
				}
				for _, op := range derivOperands(inst, passes) {
					if !a.useful[op] && carriesFloat(op.Type()) {
						a.useful[op] = true
						changed = true
					}
				}
			}
		}
	}
	return a
}
