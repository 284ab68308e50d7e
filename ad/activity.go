package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// Activity of one parameter of a differentiated function.
type Activity = activity.Activity

// The activities of parameters.
const (
	Const     = activity.Const     // not differentiated
	Out       = activity.Out       // float scalar whose derivative is returned
	Dup       = activity.Dup       // pointer with a shadow (reverse: adjoints accumulate into it)
	DupNoNeed = activity.DupNoNeed // as Dup; the primal result through it is not needed
)

// analyzeActivity computes activity for f given its active parameters
// (floats with Out, pointers with Dup) and whether its return is active;
// retShadow asks for a shadow of the returned pointer (activity.Analyze).
func (d *differ) analyzeActivity(f *ir.Func, acts []Activity, retActive, retShadow bool) *activity.Info {
	return activity.Analyze(f, acts, retActive, retShadow, activityOracle{d})
}

// activityOracle answers the activity analysis from the differ.
type activityOracle struct{ d *differ }

func (o activityOracle) Passes(c *ir.InstCall) bool { return o.d.passes(c) }

func (o activityOracle) CopiesPointers(f *ir.Func, c *ir.InstCall) bool {
	return o.d.copiesPointers(f, c)
}

func (o activityOracle) Custom(f *ir.Func) bool { return o.d.custom[f] != nil }

func (o activityOracle) EntryPoint(name string) bool {
	_, root := EntryPointMode(name)
	return root
}

func (o activityOracle) ConstShadowed(c constant.Constant) bool { return constShadowed(c) }

func (o activityOracle) CallSummary(f *ir.Func, acts []Activity, retShadow bool) *activity.Summary {
	s := o.d.callSummary(f, acts, retShadow)
	return &activity.Summary{Needs: s.needs, Hard: s.hard, RetShadow: s.retShadow}
}

func (o activityOracle) RuleOutputs(c *ir.InstCall) ([]value.Value, bool) { return blasOutputs(c) }

// The analysis's helpers under package ad's names.

func derivOperands(inst ir.Instruction, passes func(*ir.InstCall) bool) []value.Value {
	return activity.DerivOperands(inst, passes)
}
func pointerOperands(inst ir.Instruction) []value.Value { return activity.PointerOperands(inst) }
func pointerBases(v value.Value, seen map[value.Value]bool, out *[]value.Value) {
	activity.PointerBases(v, seen, out)
}
func allBases(p value.Value, pred func(value.Value) bool) bool { return activity.AllBases(p, pred) }
func opaqueExternal(v value.Value) bool                        { return activity.OpaqueExternal(v) }
func isNullConstant(v value.Value) bool                        { return activity.IsNullConstant(v) }

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// incomingFrom returns phi p's incoming value from block pred.
func incomingFrom(p *ir.InstPhi, pred *ir.Block) (value.Value, bool) {
	for _, in := range p.Incs {
		if in.Pred == pred {
			return in.X, true
		}
	}
	return nil, false
}
