package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// definedCallee returns the function a call runs when gozyme differentiates
// its body: a direct call of a defined, not inactive, non-intrinsic function.
func (r *reverseGen) definedCallee(call *ir.InstCall) (*ir.Func, bool) {
	f, ok := call.Callee.(*ir.Func)
	if !ok || len(f.Blocks) == 0 || r.d.inactive[f] || strings.HasPrefix(f.Name(), "llvm.") || irfacts.IsFunctionLike(f) || irfacts.IsAllocation(call) || isBlasCall(call) {
		return nil, false
	}
	if _, custom := r.customRule(call); custom {
		return nil, false
	}
	return f, true
}

// callsDerivative reports whether a primal call is differentiated through
// its callee's body: its result carries a derivative, or it takes pointers
// into memory that holds derivatives.
func (r *reverseGen) callsDerivative(call *ir.InstCall) bool {
	_, ok := r.definedCallee(call)
	return ok && (r.act.Active(call) || r.act.CallTouchesActiveMemory(call, r.passes) ||
		(holdsPointers(call.Typ) && r.act.HasShadow(call)))
}

// calleeActs is the activity of the callee's parameters at this call, as
// the activity analysis summarized the callee for it (callActs).
func (r *reverseGen) calleeActs(call *ir.InstCall) []activity.Activity {
	return calleeActsBy(r.act, call)
}

// calleeActsBy is calleeActs for a caller whose activity is act.
func calleeActsBy(act *activity.Info, call *ir.InstCall) []activity.Activity {
	acts := make([]activity.Activity, len(call.Args))
	for i, a := range call.Args {
		switch {
		case irfacts.CarriesFloat(a.Type()) && act.Active(a):
			acts[i] = activity.Out
		case holdsPointers(a.Type()) && (act.HasShadow(a) || activity.IsNullConstant(irfacts.Unwrap(a))):
			// A null pointer's shadow is null: the callee may need one
			// where it reallocates it (push(NULL, v)).
			acts[i] = activity.Dup
		}
	}
	return acts
}

// calleeSplit returns the augmented forward and reverse of a call's callee
// for the call's activities.
func (r *reverseGen) calleeSplit(call *ir.InstCall) (*splitGrad, []activity.Activity, error) {
	f, _ := r.definedCallee(call)
	acts := r.calleeActs(call)
	for i, a := range call.Args {
		if acts[i] == activity.Out && irfacts.HasPointerField(a.Type()) && r.act.HasShadow(a) {
			return nil, nil, errorAt(r.f, call, "cannot differentiate the call to '%s': argument %d is a struct passed by value holding both floats that carry derivatives and pointers with shadows (pass it by pointer)", f.Name(), i+1)
		}
	}
	retShadow := holdsPointers(f.Sig.RetType) && r.act.HasShadow(call)
	parallel := r.parallel
	if site := r.d.omp.sites[call]; site != nil && site.fork {
		parallel = true // the threads of a parallel region run it
	}
	facts := siteFacts{framed: r.framesTape(call, parallel)}
	quiet := !parallel && r.quietAfter(call)
	if !parallel && !r.d.gpu {
		facts.private = r.privateArgs(call)
		if !quiet {
			facts.quietTags, facts.quietTyped = r.quietTagsAfter(call)
		}
	}
	sg, err := r.d.splitGradientAt(f, acts, r.act.Active(call), retShadow, parallel, quiet, facts)
	if err == nil && r.pair != nil {
		r.pair.callees = append(r.pair.callees, sg)
	}
	return sg, acts, err
}

// augmentCall replaces, in the forward sweep, a differentiated call by a
// call of the callee's augmented forward, keeping its tape for the reverse
// sweep. Primal operands are remapped with the rest of the block.
func (r *reverseGen) augmentCall(b *ir.Block, call *ir.InstCall) ([]ir.Instruction, error) {
	if site := r.d.omp.sites[call]; site != nil && site.fork {
		return r.ompAugmentFork(b, call, site)
	}
	sg, acts, err := r.calleeSplit(call)
	if err != nil {
		return nil, err
	}
	var args []value.Value
	for i, a := range call.Args {
		args = append(args, irfacts.Unwrap(a))
		if acts[i] == activity.Dup {
			s, err := r.shadowOf(call, a)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
	}
	var insts []ir.Instruction
	if sg.framed {
		frame, addr, err := r.tapeFrame(b, call, sg)
		if err != nil {
			return nil, err
		}
		insts = addr
		args = append(args, frame)
	}
	aug := ir.NewCall(sg.aug, args...)
	insts = append(insts, aug)
	if types.Equal(call.Typ, types.Void) {
		r.tapes[call] = aug
		r.blockOf[aug] = b
		return insts, nil
	}
	y := ir.NewExtractValue(aug, 0)
	insts = append(insts, y)
	tapeField := uint64(1)
	if sg.retShadow {
		s := ir.NewExtractValue(aug, 1)
		insts = append(insts, s)
		r.shadow[call] = s
		r.blockOf[s] = b
		tapeField = 2
	}
	tape := ir.NewExtractValue(aug, tapeField)
	// The result is the forward value of the call wherever the reverse
	// looks it up, as an operand of a value it rebuilds (a trip count's
	// bound from a call) too.
	r.vmap[call] = y
	r.blockOf[y] = b
	r.primalOf[y] = call
	r.tapes[call] = tape
	r.blockOf[tape] = b
	return append(insts, tape), nil
}

// reverseCall emits the reverse of a differentiated call: the callee's
// reverse function with the arguments (and shadows), the result adjoint d
// (nil when the result is inactive) and the tape; its Out adjoints flow into
// the arguments.
func (r *reverseGen) reverseCall(blk *ir.Block, at *ir.Block, call *ir.InstCall, d value.Value) error {
	if site := r.d.omp.sites[call]; site != nil && site.fork {
		return r.ompReverseFork(blk, at, call, site)
	}
	sg, acts, err := r.calleeSplit(call)
	if err != nil {
		return err
	}
	var args []value.Value
	for i, a := range call.Args {
		args = append(args, r.lookup(blk, at, a))
		if acts[i] == activity.Dup {
			s, err := r.lookupShadow(blk, at, call, a)
			if err != nil {
				return err
			}
			args = append(args, s)
		}
	}
	if sg.retActive {
		args = append(args, d)
	}
	if lf, ok := r.loopFrames[call]; ok {
		args = append(args, r.loopFrameAddr(blk, lf))
	} else {
		args = append(args, r.lookupForward(blk, at, r.tapes[call], at))
	}
	outs := blk.NewCall(sg.rev, args...)
	var outIdx []int
	for i, a := range acts {
		if a == activity.Out {
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

// holdsPointers reports a pointer, or an aggregate with pointer fields: the
// values whose shadows hold shadow pointers.
func holdsPointers(t types.Type) bool { return types.IsPointer(t) || irfacts.HasPointerField(t) }
