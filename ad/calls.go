package ad

import (
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// definedCallee returns the function a call runs when gozyme differentiates
// its body: a direct call of a defined, not inactive, non-intrinsic function.
func (r *reverseGen) definedCallee(call *ir.InstCall) (*ir.Func, bool) {
	f, ok := call.Callee.(*ir.Func)
	if !ok || len(f.Blocks) == 0 || r.d.inactive[f] || strings.HasPrefix(f.Name(), "llvm.") {
		return nil, false
	}
	return f, true
}

// callsDerivative reports whether a primal call is differentiated through
// its callee's body: its result carries a derivative.
func (r *reverseGen) callsDerivative(call *ir.InstCall) bool {
	_, ok := r.definedCallee(call)
	return ok && r.act.active(call)
}

// calleeActs is the activity of the callee's parameters at this call.
func (r *reverseGen) calleeActs(call *ir.InstCall) []Activity {
	acts := make([]Activity, len(call.Args))
	for i, a := range call.Args {
		if carriesFloat(a.Type()) && r.act.active(a) {
			acts[i] = Out
		}
	}
	return acts
}

// augmentCall replaces, in the forward sweep, a call whose result carries a
// derivative by a call of the callee's augmented forward, keeping its tape
// for the reverse sweep. Operands are remapped with the rest of the block.
func (r *reverseGen) augmentCall(b *ir.Block, call *ir.InstCall) ([]ir.Instruction, error) {
	f, _ := r.definedCallee(call)
	sg, err := r.d.splitGradient(f, r.calleeActs(call), true)
	if err != nil {
		return nil, err
	}
	args := make([]value.Value, len(call.Args))
	for i, a := range call.Args {
		args[i] = unwrapArg(a)
	}
	aug := ir.NewCall(sg.aug, args...)
	y := ir.NewExtractValue(aug, 0)
	tape := ir.NewExtractValue(aug, 1)
	r.vmap[call] = y
	r.tapes[call] = tape
	r.blockOf[tape] = b
	return []ir.Instruction{aug, y, tape}, nil
}

// reverseCall emits the reverse of a differentiated call: the callee's
// reverse function with the arguments, the result adjoint d and the tape,
// whose Out adjoints flow into the arguments.
func (r *reverseGen) reverseCall(blk *ir.Block, at *ir.Block, call *ir.InstCall, d value.Value) error {
	f, _ := r.definedCallee(call)
	acts := r.calleeActs(call)
	sg, err := r.d.splitGradient(f, acts, true)
	if err != nil {
		return err
	}
	var args []value.Value
	for _, a := range call.Args {
		args = append(args, r.lookup(blk, at, a))
	}
	args = append(args, d, r.lookupForward(blk, at, r.tapes[call], at))
	outs := blk.NewCall(sg.rev, args...)
	var outIdx []int
	for i, a := range acts {
		if a == Out {
			outIdx = append(outIdx, i)
		}
	}
	for k, i := range outIdx {
		var delta value.Value = outs
		if len(outIdx) > 1 {
			delta = blk.NewExtractValue(outs, uint64(k))
		}
		r.accumulate(blk, call.Args[i], delta)
	}
	return nil
}
