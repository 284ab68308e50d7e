package ad

import (
	"github.com/gozyme/gozyme/irutil"
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
	acts := make([]Activity, len(rt.args))
	for i, a := range rt.args {
		acts[i] = a.act
	}
	sg, err := d.splitGradient(f, acts, carriesFloat(f.Sig.RetType), false)
	if err != nil {
		return err
	}
	var pre []ir.Instruction
	var args []value.Value
	for i, p := range f.Params {
		a := rt.args[i]
		v, err := coerce(a.val, p.Typ, &pre)
		if err != nil {
			return errorAt(rt.caller, rt.call, "argument %d of '%s': %v", i+1, f.Name(), err)
		}
		args = append(args, v)
		if a.shadow != nil {
			s, err := coerce(a.shadow, p.Typ, &pre)
			if err != nil {
				return errorAt(rt.caller, rt.call, "shadow of argument %d of '%s': %v", i+1, f.Name(), err)
			}
			args = append(args, s)
		}
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
	var insts []ir.Instruction
	for _, inst := range rt.block.Insts {
		if inst == rt.call {
			insts = append(insts, pre...)
			continue
		}
		insts = append(insts, inst)
	}
	rt.block.Insts = insts
	if result != nil {
		irutil.ReplaceAllUses(rt.caller, rt.call, result)
	}
	return nil
}
