package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Split reverse mode: __enzyme_augmentfwd runs the augmented forward of f
// and returns its tape; __enzyme_reverse later runs the reverse with the
// same arguments, the return's adjoint and that tape, returning the Out
// adjoints (as __enzyme_autodiff does) and freeing the tape. Both are the
// augmented forward / reverse pair calls inside differentiated code use.
//
// __enzyme_augmentfwd declared to return a struct of two fields returns the
// primal result and the tape (in the order of their types; {tape, result}
// when both are pointers). With enzyme_allocated N, enzyme_tape T the tape
// is copied into the caller's N bytes at T (an error when it needs more),
// and __enzyme_reverse reads it from there.

func (d *differ) lowerSplit(rt *root) error {
	if err := d.parse(rt); err != nil {
		return err
	}
	if len(rt.fns) > 1 {
		return rt.errorf("split mode needs one known function, not a choice made at run time")
	}
	f := rt.fns[0]
	acts := rt.activities()
	retActive := rt.retActive(f)
	if err := d.checkRoot(f, acts, retActive, false); err != nil {
		return err
	}
	sg, err := d.splitGradient(f, acts, retActive, false)
	if err != nil {
		return err
	}
	sg.userHeld = true // its tapes escape to the user (tapestack.go)
	var pre []ir.Instruction
	d.wrapNoNeedPrimals(rt) // sparse.go
	args, err := rt.callArgs(f, &pre)
	if err != nil {
		return err
	}
	var result value.Value
	switch rt.mode {
	case AugmentFwd:
		call := ir.NewCall(sg.aug, args...)
		pre = append(pre, call)
		var tape, primal value.Value = call, nil
		if _, ok := sg.aug.Sig.RetType.(*types.StructType); ok {
			ev := ir.NewExtractValue(call, 1)
			p := ir.NewExtractValue(call, 0)
			pre = append(pre, ev, p)
			tape, primal = ev, p
		}
		if rt.flags.tape != nil {
			if err := rt.storeTape(sg, tape, &pre); err != nil {
				return err
			}
			tape = nil
		}
		if result, err = rt.augmentResult(f, primal, tape, &pre); err != nil {
			return err
		}
	case ReverseOnly:
		if sg.retActive {
			dret, err := coerce(rt.trailing[0], f.Sig.RetType, &pre)
			if err != nil {
				return rt.errorf("the return's adjoint: %v", err)
			}
			args = append(args, dret)
		}
		var tape value.Value
		if rt.flags.tape != nil {
			if tape, err = rt.loadTape(sg, &pre); err != nil {
				return err
			}
		} else if tape, err = coerce(rt.trailing[len(rt.trailing)-1], types.I8Ptr, &pre); err != nil {
			return rt.errorf("the tape: %v", err)
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

// augmentResult is what __enzyme_augmentfwd returns as declared: nothing,
// the tape, the primal result (when the tape went to enzyme_tape), or a
// struct of the primal result and the tape.
func (rt *root) augmentResult(f *ir.Func, primal, tape value.Value, pre *[]ir.Instruction) (value.Value, error) {
	want := rt.call.Typ
	if rt.sret != nil {
		want = rt.sret.Type().(*types.PointerType).ElemType
	}
	if types.Equal(want, types.Void) {
		return nil, nil
	}
	fields := leafFields(want, nil)
	if len(fields) == 2 && primal != nil && tape != nil {
		outs := []value.Value{primal, tape}
		if !types.IsPointer(fields[1].typ) || types.IsPointer(fields[0].typ) && types.IsPointer(primal.Type()) {
			outs = []value.Value{tape, primal} // {tape, result}
		}
		return rt.returnValues(outs, pre)
	}
	v := tape
	if v == nil {
		v = primal
	}
	if v == nil {
		v = rt.flags.tape // nothing to return: the caller's tape buffer
	}
	if primal != nil && tape != nil && !types.IsPointer(want) {
		return nil, rt.errorf("__enzyme_augmentfwd is declared to return %s: declare a struct of the result of '%s' and the tape (void *), or the tape alone", want, f.Name())
	}
	r, err := rt.returnValues([]value.Value{v}, pre)
	if err != nil {
		return nil, rt.errorf("the tape: %v", err)
	}
	return r, nil
}

// tapeBytes is the size of sg's tape (0 without one); a constant
// enzyme_allocated smaller than that is an error.
func (rt *root) tapeBytes(sg *splitGrad) (int64, error) {
	var n int64
	if sg.tape != nil {
		var ok bool
		if n, _, ok = abiLayout(sg.tape); !ok {
			return 0, rt.errorf("the tape of '%s' (%s) has no known size for enzyme_allocated", rt.fns[0].Name(), sg.tape)
		}
	}
	if c, ok := rt.flags.allocated.(*constant.Int); ok && c.X.Int64() < n {
		return 0, rt.errorf("the tape of '%s' needs %d bytes; enzyme_allocated gives %d", rt.fns[0].Name(), n, c.X.Int64())
	}
	return n, nil
}

// storeTape copies the tape into the caller's buffer (enzyme_tape) and
// frees it.
func (rt *root) storeTape(sg *splitGrad, tape value.Value, pre *[]ir.Instruction) error {
	n, err := rt.tapeBytes(sg)
	if err != nil {
		return err
	}
	if sg.tape == nil {
		return nil
	}
	buf, err := coerce(rt.flags.tape, types.I8Ptr, pre)
	if err != nil {
		return rt.errorf("enzyme_tape: %v", err)
	}
	m := rt.caller.Parent
	cp := rules.Declare(m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	free := rules.Declare(m, "free", types.Void, types.I8Ptr)
	*pre = append(*pre, ir.NewCall(cp, buf, tape, constant.NewInt(types.I64, n), constant.False), ir.NewCall(free, tape))
	return nil
}

// loadTape copies the tape from the caller's buffer (enzyme_tape) into
// memory the reverse frees, and returns it (null without a tape).
func (rt *root) loadTape(sg *splitGrad, pre *[]ir.Instruction) (value.Value, error) {
	n, err := rt.tapeBytes(sg)
	if err != nil || sg.tape == nil {
		return constant.NewNull(types.I8Ptr), err
	}
	buf, err := coerce(rt.flags.tape, types.I8Ptr, pre)
	if err != nil {
		return nil, rt.errorf("enzyme_tape: %v", err)
	}
	m := rt.caller.Parent
	malloc := rules.Declare(m, "malloc", types.I8Ptr, types.I64)
	t := ir.NewCall(malloc, constant.NewInt(types.I64, n))
	cp := rules.Declare(m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	*pre = append(*pre, t, ir.NewCall(cp, t, buf, constant.NewInt(types.I64, n), constant.False))
	return t, nil
}

// lowerReverseWithPrimal lowers __enzyme_autodiff with enzyme_primal_return:
// the augmented forward gives the primal result and the tape, the reverse
// the derivatives; the call returns the derivatives, then the result.
func (d *differ) lowerReverseWithPrimal(rt *root) error {
	if len(rt.fns) > 1 {
		return rt.errorf("enzyme_primal_return needs one known function, not a choice made at run time")
	}
	f := rt.fns[0]
	if types.Equal(f.Sig.RetType, types.Void) {
		return rt.errorf("enzyme_primal_return: '%s' returns nothing", f.Name())
	}
	acts := rt.activities()
	retActive := rt.retActive(f)
	if err := d.checkRoot(f, acts, retActive, false); err != nil {
		return err
	}
	sg, err := d.splitGradient(f, acts, retActive, false)
	if err != nil {
		return err
	}
	sg.userHeld = true // its tapes escape to the user (tapestack.go)
	var pre []ir.Instruction
	d.wrapNoNeedPrimals(rt) // sparse.go
	args, err := rt.callArgs(f, &pre)
	if err != nil {
		return err
	}
	aug := ir.NewCall(sg.aug, args...)
	primal := ir.NewExtractValue(aug, 0)
	tape := ir.NewExtractValue(aug, 1)
	pre = append(pre, aug, primal, tape)
	revArgs := append([]value.Value(nil), args...)
	if retActive {
		revArgs = append(revArgs, rules.FloatConst(f.Sig.RetType, 1))
	}
	rev := ir.NewCall(sg.rev, append(revArgs, tape)...)
	pre = d.scopeShadowSetCalls(rt.caller, f, append(pre, rev), aug, rev) // shadowlife.go
	outs := gradientOuts(rt, rev, sg.rev.Sig.RetType, &pre)
	result, err := rt.returnValues(append(outs, primal), &pre)
	if err != nil {
		return err
	}
	rt.replaceCall(pre, result)
	return nil
}
