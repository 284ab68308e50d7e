package ad

import (
	"io"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Custom is a user-supplied derivative of one function (package custom
// finds and checks them). A function with one is never differentiated
// itself: its calls run the primal and Augment in the forward sweep and
// Gradient in the reverse sweep.
type Custom struct {
	Augment  *ir.Func // may be nil
	Gradient *ir.Func
	Forward  *ir.Func
}

// Options configure Differentiate.
type Options struct {
	Custom map[*ir.Func]*Custom
	// RuntimeActivity differentiates with run-time activity checks
	// (runtimeactivity.go): a pointer without a shadow stored into memory
	// with one stores itself as its shadow, and every access through a
	// shadow that may be such a pointer checks it. Differentiate asks for
	// it with an error NeedsRuntimeActivity recognizes; the caller then
	// differentiates a fresh copy of the module with it.
	RuntimeActivity bool
	// Note, when set, receives remarks about the derivatives made: on a
	// GPU, the bytes each gradient caches per thread.
	Note func(string)
	// GPULoopRecords, when positive, lets a GPU gradient cache the values
	// of loops whose trip count is not a compile-time constant, up to this
	// many iterations per thread (gpucache.go); the kernel traps beyond.
	GPULoopRecords int64
	// GPUPlainAdjoints, for benchmarks only, makes every shadow
	// accumulation of a GPU gradient a plain load-add-store: wrong
	// wherever threads share memory, it measures what the atomic adds
	// cost.
	GPUPlainAdjoints bool
	// TypeReport, when set, receives the type analysis of the functions
	// AD reaches and the functions its rewrite changed, as Enzyme's
	// -print-type-analysis prints them (GOZYME_PRINT_TYPES; retype.go).
	TypeReport io.Writer
	// Unparsed, when set, reports a function whose body was left out of
	// the parse (irutil.Partial: a stand-in of just `unreachable`): it is
	// never differentiated nor a candidate of a dispatch.
	Unparsed func(*ir.Func) bool
}

// customRule returns the reverse-mode rule of a call's callee, if any.
func (r *reverseGen) customRule(call *ir.InstCall) (*Custom, bool) {
	f, ok := call.Callee.(*ir.Func)
	if !ok {
		return nil, false
	}
	c, ok := r.d.custom[f]
	return c, ok && c.Gradient != nil
}

// customArgs returns a call's arguments, each pointer followed by its shadow
// (a null pointer when it has none), as the rules take them; look maps each.
func (r *reverseGen) customArgs(call *ir.InstCall, look func(value.Value) value.Value, shadow func(value.Value) (value.Value, error)) ([]value.Value, error) {
	var args []value.Value
	for _, a := range call.Args {
		a = irfacts.Unwrap(a)
		args = append(args, look(a))
		if types.IsPointer(a.Type()) {
			if !r.act.HasShadow(a) {
				args = append(args, constant.NewNull(a.Type().(*types.PointerType)))
				continue
			}
			s, err := shadow(a)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
	}
	return args, nil
}

// augmentCustom emits, after the forward clone of a call with a custom rule,
// the call of its augmented forward, keeping the tape it returns.
func (r *reverseGen) augmentCustom(b *ir.Block, call *ir.InstCall, c *Custom) ([]ir.Instruction, error) {
	if err := r.d.fortranReductionStop(r.f, call); err != nil {
		return nil, err
	}
	if r.parallel && c.generated() {
		// Its gradient adds into the shadows with plain stores, which
		// other threads' reverses may touch too.
		return nil, errorAt(r.f, call, "'%s' is differentiated by a rule whose reverse cannot run in threads (an OpenMP parallel region or a GPU kernel): its adjoints are not added atomically", irfacts.CalleeName(call))
	}
	if c.Augment == nil {
		return nil, nil
	}
	args, err := r.customArgs(call, func(v value.Value) value.Value { return v },
		func(v value.Value) (value.Value, error) { return r.shadowOf(call, v) })
	if err != nil {
		return nil, err
	}
	aug := ir.NewCall(c.Augment, args...)
	if !types.Equal(c.Augment.Sig.RetType, types.Void) {
		r.tapes[call] = aug
		r.blockOf[aug] = b
	}
	return []ir.Instruction{aug}, nil
}

// augmentCustomPointer emits, in place of the forward clone of a call with
// a custom rule that returns a pointer carrying derivatives, the call of
// its augmented forward: it returns the result, its shadow and maybe a
// tape ({ret, dret} or {tape, ret, dret}, in registers or through sret).
func (r *reverseGen) augmentCustomPointer(b *ir.Block, call *ir.InstCall, c *Custom) ([]ir.Instruction, error) {
	name := call.Callee.(*ir.Func).Name()
	if c.Augment == nil {
		return nil, errorAt(r.f, call, "'%s' returns a pointer that carries derivatives: its custom derivative needs an augmented forward (enzyme(\"augment\", ...)) returning the result and its shadow", name)
	}
	fields, sret := irutil.ReturnedStruct(c.Augment)
	if len(fields) != 2 && len(fields) != 3 {
		return nil, errorAt(r.f, call, "the augmented forward '%s' of '%s' must return {ret, dret} or {tape, ret, dret}", c.Augment.Name(), name)
	}
	args, err := r.customArgs(call, func(v value.Value) value.Value { return v },
		func(v value.Value) (value.Value, error) { return r.shadowOf(call, v) })
	if err != nil {
		return nil, err
	}
	var out []ir.Instruction
	var field func(i int) value.Value
	var restore *ir.InstCall
	if sret {
		st := c.Augment.Params[0].Typ.(*types.PointerType).ElemType
		slot := ir.NewAlloca(st)
		if r.split {
			// The entry's allocas go to the reverse function (split.go):
			// the slot lives on the augmented forward's stack while its
			// fields are read.
			sp := ir.NewCall(rules.Declare(r.m, "llvm.stacksave", types.I8Ptr))
			restore = ir.NewCall(rules.Declare(r.m, "llvm.stackrestore", types.Void, types.I8Ptr), sp)
			out = append(out, sp, slot)
		} else {
			r.allocas.Insts = append(r.allocas.Insts, slot)
		}
		out = append(out, ir.NewCall(c.Augment, append([]value.Value{slot}, args...)...))
		field = func(i int) value.Value {
			gep := ir.NewGetElementPtr(st, slot, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
			ld := ir.NewLoad(fields[i], gep)
			out = append(out, gep, ld)
			return ld
		}
	} else {
		aug := ir.NewCall(c.Augment, args...)
		out = append(out, aug)
		field = func(i int) value.Value {
			ev := ir.NewExtractValue(aug, uint64(i))
			out = append(out, ev)
			return ev
		}
	}
	first := len(fields) - 2
	if first == 1 {
		tape := field(0)
		r.tapes[call] = tape
		r.blockOf[tape] = b
	}
	ret := bitCastTo(&out, field(first), call.Typ)
	dret := bitCastTo(&out, field(first+1), call.Typ)
	if restore != nil {
		out = append(out, restore)
	}
	r.vmap[call] = ret
	r.blockOf[ret] = b
	r.primalOf[ret] = call
	r.shadow[call] = dret
	r.blockOf[dret] = b
	return out, nil
}

// reverseCustom emits the call of the gradient rule: the arguments (with
// shadows), the result's adjoint d when the function returns a float, the
// tape; the returned adjoints of the float parameters flow into the
// arguments that are active.
func (r *reverseGen) reverseCustom(blk, at *ir.Block, call *ir.InstCall, c *Custom, d value.Value) error {
	args, err := r.customArgs(call, func(v value.Value) value.Value { return r.lookup(blk, at, v) },
		func(v value.Value) (value.Value, error) { return r.lookupShadow(blk, at, call, v) })
	if err != nil {
		return err
	}
	if irfacts.IsFloat(call.Typ) {
		if d == nil {
			d = rules.ZeroOf(call.Typ)
		}
		args = append(args, d)
	}
	if tape, ok := r.tapes[call]; ok {
		args = append(args, r.lookupForward(blk, at, tape, at))
	}
	g := c.Gradient
	var sret *ir.InstAlloca
	if irutil.HasSRetParam(g) {
		// Several adjoints returned in memory: give it a slot.
		sret = ir.NewAlloca(g.Params[0].Typ.(*types.PointerType).ElemType)
		r.allocas.Insts = append(r.allocas.Insts, sret)
		args = append([]value.Value{sret}, args...)
	}
	res := blk.NewCall(g, args...)
	var floatArgs []value.Value
	for _, a := range call.Args {
		if irfacts.IsFloat(a.Type()) {
			floatArgs = append(floatArgs, irfacts.Unwrap(a))
		}
	}
	if len(floatArgs) == 0 {
		return nil
	}
	adjoint := func(i int) value.Value {
		switch {
		case sret != nil:
			return loadField(blk, sret, floatArgs, i)
		case len(floatArgs) == 1:
			return res
		}
		if _, ok := res.Typ.(*types.StructType); ok {
			if st := res.Typ.(*types.StructType); len(st.Fields) == len(floatArgs) {
				return blk.NewExtractValue(res, uint64(i))
			}
		}
		// An ABI-coerced struct (x86-64: <2 x float>, {<2 x float>, float}):
		// reinterpret through memory as the C struct.
		tmp := ir.NewAlloca(res.Typ)
		r.allocas.Insts = append(r.allocas.Insts, tmp)
		blk.NewStore(res, tmp)
		return loadField(blk, tmp, floatArgs, i)
	}
	for i, a := range floatArgs {
		if r.act.Active(a) {
			r.accumulate(blk, a, adjoint(i))
		}
	}
	return nil
}

// loadField reads adjoint i of a C struct of the float parameters' types
// laid out at p.
func loadField(blk *ir.Block, p value.Value, floats []value.Value, i int) value.Value {
	fields := make([]types.Type, len(floats))
	for k, f := range floats {
		fields[k] = f.Type()
	}
	st := types.NewStruct(fields...)
	view := blk.NewBitCast(p, types.NewPointer(st))
	gep := blk.NewGetElementPtr(st, view, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
	return blk.NewLoad(fields[i], gep)
}

// customCallActive reports whether a call with a custom rule carries
// derivatives: its result is active or it touches shadowed memory.
func (r *reverseGen) customCallActive(call *ir.InstCall) bool {
	return r.act.Active(call) || r.act.CallTouchesActiveMemory(call, r.passes) || r.returnsShadow(call)
}

// returnsShadow reports a call returning a pointer that has a shadow.
func (r *reverseGen) returnsShadow(call *ir.InstCall) bool {
	return types.IsPointer(call.Typ) && r.act.HasShadow(call)
}
