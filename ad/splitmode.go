package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Split reverse mode: __enzyme_augmentfwd runs the augmented forward of f
// and returns its tape; __enzyme_reverse later runs the reverse with the
// same arguments, the return's adjoint and that tape, returning the Out
// adjoints (as __enzyme_autodiff does) and freeing the tape. Both are the
// augmented forward / reverse pair calls inside differentiated code use.

func (d *differ) lowerSplit(rt *root) error {
	if err := rt.parseArgs(); err != nil {
		return err
	}
	if len(rt.fns) > 1 {
		return errorAt(rt.caller, rt.call, "split mode needs one known function, not a choice made at run time")
	}
	f := rt.fns[0]
	acts := rt.activities()
	if err := d.checkRoot(f, acts, carriesFloat(f.Sig.RetType), false); err != nil {
		return err
	}
	sg, err := d.splitGradient(f, acts, carriesFloat(f.Sig.RetType), false)
	if err != nil {
		return err
	}
	var pre []ir.Instruction
	args, err := rt.callArgs(f, &pre)
	if err != nil {
		return err
	}
	var result value.Value
	switch rt.mode {
	case AugmentFwd:
		call := ir.NewCall(sg.aug, args...)
		pre = append(pre, call)
		var tape value.Value = call
		if _, ok := sg.aug.Sig.RetType.(*types.StructType); ok {
			ev := ir.NewExtractValue(call, 1)
			pre = append(pre, ev)
			tape = ev
		}
		if !types.Equal(rt.call.Typ, types.Void) {
			if result, err = coerce(tape, rt.call.Typ, &pre); err != nil {
				return errorAt(rt.caller, rt.call, "the tape: %v", err)
			}
		}
	case ReverseOnly:
		if sg.retActive {
			dret, err := coerce(rt.trailing[0], f.Sig.RetType, &pre)
			if err != nil {
				return errorAt(rt.caller, rt.call, "the return's adjoint: %v", err)
			}
			args = append(args, dret)
		}
		tape, err := coerce(rt.trailing[len(rt.trailing)-1], types.I8Ptr, &pre)
		if err != nil {
			return errorAt(rt.caller, rt.call, "the tape: %v", err)
		}
		call := ir.NewCall(sg.rev, append(args, tape)...)
		pre = append(pre, call)
		if result, err = d.convertResult(rt, call, sg.rev.Sig.RetType, &pre); err != nil {
			return err
		}
	}
	rt.replaceCall(pre, result)
	return nil
}
