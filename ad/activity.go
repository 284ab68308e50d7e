package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// analyzeActivity computes activity for f given its active parameters
// (floats with Out, pointers with Dup) and whether its return is active;
// retShadow asks for a shadow of the returned pointer (activity.Analyze).
func (d *differ) analyzeActivity(f *ir.Func, acts []activity.Activity, retActive, retShadow bool) *activity.Info {
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

func (o activityOracle) CallSummary(f *ir.Func, acts []activity.Activity, retShadow bool) *activity.Summary {
	s := o.d.callSummary(f, acts, retShadow)
	return &activity.Summary{Needs: s.needs, Hard: s.hard, RetShadow: s.retShadow}
}

func (o activityOracle) RuleOutputs(c *ir.InstCall) ([]value.Value, bool) { return blasOutputs(c) }
