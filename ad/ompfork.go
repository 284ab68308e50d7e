package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Forks of derivatives (see omp.go). A fork passes its arguments through
// varargs as pointer-sized values, so the derivative functions run inside a
// microtask that converts them back (floats travel as their bits in i64).
//
// Reverse mode: the forward sweep allocates a team's tape array
//
//	{i64 team size, i64 capacity, i64 ticket counter, i8* tape[capacity]}
//
// (the counter orders critical sections, omp.go; the microtasks point the
// thread-local ompTeamTLS at the array while they run)
// and forks the augmented forward, each thread storing its tape at its
// thread number (thread 0 also the team size); the reverse sweep forks the
// reverse on a team of that size (__kmpc_push_num_threads), each thread
// taking its own tape back, and frees the array. Out adjoints (floats
// passed by value) are summed over the team with atomic adds. A reverse
// team of another size than its forward (possible only if the runtime
// cannot give as many threads again) stops the program with a message.

// ompPlainCall is the call a site stands for, for the forward sweep where
// nothing of it is differentiated.
func ompPlainCall(site *ompSite) ir.Instruction {
	c, _ := irutil.CloneInst(site.orig, func(v value.Value) value.Value { return v })
	return c
}

// forkParamType is the type a fork passes a value of type t as.
func forkParamType(t types.Type) (types.Type, bool) {
	switch t := t.(type) {
	case *types.PointerType:
		return t, true
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf, types.FloatKindFloat, types.FloatKindDouble:
			return types.I64, true
		}
	case *types.IntType:
		if t.BitSize <= 64 {
			return types.I64, true
		}
	}
	return nil, false
}

// toForkArg converts v to its fork parameter type, appending instructions.
func toForkArg(v value.Value, out *[]ir.Instruction) value.Value {
	switch t := v.Type().(type) {
	case *types.FloatType:
		bits := intOfSize(t)
		bc := ir.NewBitCast(v, bits)
		*out = append(*out, bc)
		if bits == types.I64 {
			return bc
		}
		z := ir.NewZExt(bc, types.I64)
		*out = append(*out, z)
		return z
	case *types.IntType:
		if t.BitSize < 64 {
			z := ir.NewZExt(v, types.I64)
			*out = append(*out, z)
			return z
		}
	}
	return v
}

// fromForkArg converts fork argument v back to type t in blk.
func fromForkArg(blk *ir.Block, v value.Value, t types.Type) value.Value {
	switch t := t.(type) {
	case *types.FloatType:
		bits := intOfSize(t)
		if bits != types.I64 {
			v = blk.NewTrunc(v, bits)
		}
		return blk.NewBitCast(v, t)
	case *types.IntType:
		if t.BitSize < 64 {
			return blk.NewTrunc(v, t)
		}
	}
	return v
}

// ompMicrotask returns (creating once) the microtask name: it takes the
// thread numbers, callee's parameters from index 2 on (but the last drop
// of them) as fork arguments, then the extra parameters; body emits the
// rest given the converted arguments and the extra parameters.
func (d *differ) ompMicrotask(name string, callee *ir.Func, drop int, extra []types.Type, body func(blk *ir.Block, args []value.Value, extra []*ir.Param)) (*ir.Func, error) {
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f, nil
		}
	}
	if len(callee.Params) < 2+drop {
		return nil, errorAt(callee, nil, "internal error: a parallel region's derivative lacks the thread numbers")
	}
	params := []*ir.Param{ir.NewParam("gtid", callee.Params[0].Typ), ir.NewParam("btid", callee.Params[1].Typ)}
	inner := callee.Params[2 : len(callee.Params)-drop]
	for _, p := range inner {
		t, ok := forkParamType(p.Typ)
		if !ok {
			return nil, errorAt(callee, nil, "a parallel region's derivative takes %s, which a fork cannot pass", p.Typ)
		}
		params = append(params, ir.NewParam("", t))
	}
	var extras []*ir.Param
	for _, t := range extra {
		p := ir.NewParam("", t)
		params = append(params, p)
		extras = append(extras, p)
	}
	f := d.m.NewFunc(name, types.Void, params...)
	f.Linkage = enum.LinkageInternal
	blk := f.NewBlock("entry")
	args := []value.Value{params[0], params[1]}
	for i, p := range inner {
		args = append(args, fromForkArg(blk, params[2+i], p.Typ))
	}
	body(blk, args, extras)
	blk.NewRet(nil)
	return f, nil
}

// ompAugmentFork is augmentCall for a fork: allocate the team's tape array
// and fork the augmented forward.
func (r *reverseGen) ompAugmentFork(b *ir.Block, call *ir.InstCall, site *ompSite) ([]ir.Instruction, error) {
	sg, acts, err := r.calleeSplit(call)
	if err != nil {
		return nil, err
	}
	var out []ir.Instruction
	var args []value.Value
	for i := 2; i < len(call.Args); i++ {
		a := irfacts.Unwrap(call.Args[i])
		args = append(args, toForkArg(a, &out))
		if acts[i] == activity.Dup {
			s, err := r.shadowOf(call, a)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
	}
	w, err := r.d.ompMicrotask("__gozyme_omp_"+sg.aug.Name(), sg.aug, 0, []types.Type{types.I8Ptr}, func(blk *ir.Block, args []value.Value, extra []*ir.Param) {
		old := r.d.ompEnterTeam(blk, extra[0])
		tape := blk.NewCall(sg.aug, args...)
		blk.NewStore(old, r.d.ompTeamTLS())
		blk.NewCall(r.d.ompTapeHelper("put"), extra[0], tape)
	})
	if err != nil {
		return nil, err
	}
	maxT := ir.NewCall(rules.Declare(r.m, "omp_get_max_threads", types.I32))
	out = append(out, maxT)
	var capv value.Value = maxT
	if nt := site.numThreads; nt != nil && types.Equal(nt.Type(), types.I32) {
		more := ir.NewICmp(enum.IPredSGT, nt, maxT)
		sel := ir.NewSelect(more, nt, maxT)
		out = append(out, more, sel)
		capv = sel
	}
	tp := ir.NewCall(r.d.ompTapeHelper("new"), capv)
	out = append(out, tp, ompForkCall(site, w, append(args, tp)))
	r.tapes[call] = tp
	r.blockOf[tp] = b
	return out, nil
}

// ompForkCall is __kmpc_fork_call(loc, n, microtask, args...) for a site.
func ompForkCall(site *ompSite, microtask *ir.Func, args []value.Value) *ir.InstCall {
	mt := constant.NewBitCast(microtask, site.orig.Args[2].Type())
	full := append([]value.Value{irfacts.Unwrap(site.orig.Args[0]), constant.NewInt(types.I32, int64(len(args))), mt}, args...)
	return ir.NewCall(site.orig.Callee, full...)
}

// ompReverseFork is reverseCall for a fork: fork the reverse on a team of
// the forward's size, each thread with its own tape; sum the Out adjoints.
func (r *reverseGen) ompReverseFork(blk *ir.Block, at *ir.Block, call *ir.InstCall, site *ompSite) error {
	sg, acts, err := r.calleeSplit(call)
	if err != nil {
		return err
	}
	var conv []ir.Instruction
	var args []value.Value
	for i := 2; i < len(call.Args); i++ {
		args = append(args, toForkArg(r.lookup(blk, at, call.Args[i]), &conv))
		blk.Insts = append(blk.Insts, conv...)
		conv = conv[:0]
		if acts[i] == activity.Dup {
			s, err := r.lookupShadow(blk, at, call, call.Args[i])
			if err != nil {
				return err
			}
			args = append(args, s)
		}
	}
	type outSlot struct {
		arg  value.Value
		slot *ir.InstAlloca
	}
	var outs []outSlot
	var outTypes []types.Type
	for i, a := range acts {
		if a != activity.Out {
			continue
		}
		t := call.Args[i].Type()
		s := r.newSlot(t, nil)
		blk.NewStore(rules.ZeroOf(t), s)
		outs = append(outs, outSlot{call.Args[i], s})
		outTypes = append(outTypes, types.NewPointer(t))
		args = append(args, s)
	}
	extra := append(outTypes, types.I8Ptr)
	w, err := r.d.ompMicrotask("__gozyme_omp_"+sg.rev.Name(), sg.rev, 1, extra, func(b *ir.Block, args []value.Value, extra []*ir.Param) {
		tape := b.NewCall(r.d.ompTapeHelper("get"), extra[len(extra)-1])
		old := r.d.ompEnterTeam(b, extra[len(extra)-1])
		res := b.NewCall(sg.rev, append(args, tape)...)
		b.NewStore(old, r.d.ompTeamTLS())
		for k := range outTypes {
			var v value.Value = res
			if len(outTypes) > 1 {
				v = b.NewExtractValue(res, uint64(k))
			}
			atomicAddScalars(b, extra[k], v)
		}
	})
	if err != nil {
		return err
	}
	tp := r.lookupForward(blk, at, r.tapes[call], at)
	loc := r.lookup(blk, at, site.orig.Args[0])
	gtid := blk.NewCall(rules.Declare(r.m, "__kmpc_global_thread_num", types.I32, loc.Type()), loc)
	team := blk.NewCall(r.d.ompTapeHelper("team"), tp)
	blk.NewCall(rules.Declare(r.m, "__kmpc_push_num_threads", types.Void, loc.Type(), types.I32, types.I32), loc, gtid, team)
	blk.Insts = append(blk.Insts, ompForkCall(site, w, append(args, tp)))
	blk.NewCall(libc(r.m, "free"), tp)
	for _, o := range outs {
		r.accumulate(blk, o.arg, blk.NewLoad(o.slot.ElemType, o.slot))
	}
	return nil
}

// ompForwardFork is the forward-mode call of a fork: fork the outlined
// function's forward derivative with the tangents of its arguments.
func (fg *forwardGen) ompForwardFork(call *ir.InstCall, site *ompSite, callee *forwardGen, args []value.Value) ([]ir.Instruction, error) {
	var out []ir.Instruction
	var fargs []value.Value
	for _, a := range args[2:] {
		fargs = append(fargs, toForkArg(a, &out))
	}
	w, err := fg.d.ompMicrotask("__gozyme_omp_"+callee.g.Name(), callee.g, 0, nil, func(blk *ir.Block, args []value.Value, _ []*ir.Param) {
		blk.NewCall(callee.g, args...)
	})
	if err != nil {
		return nil, err
	}
	return append(out, ompForkCall(site, w, fargs)), nil
}

// ompEnterTeam points the thread-local team pointer at tape array tp,
// returning its old value (a fork inside a fork).
func (d *differ) ompEnterTeam(blk *ir.Block, tp value.Value) value.Value {
	old := blk.NewLoad(types.I8Ptr, d.ompTeamTLS())
	blk.NewStore(tp, d.ompTeamTLS())
	return old
}

// ompTapeHelper returns (creating once) a helper for the team's tape
// array: "new" (capacity) -> array, "put" (array, tape) from a forward
// thread, "get" (array) -> tape for a reverse thread, "team" (array) ->
// the forward's team size.
func (d *differ) ompTapeHelper(which string) *ir.Func {
	name := "__gozyme_omp_tapes_" + which
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	threadNum := rules.Declare(d.m, "omp_get_thread_num", types.I32)
	numThreads := rules.Declare(d.m, "omp_get_num_threads", types.I32)
	slot := func(blk *ir.Block, tp value.Value, k value.Value) value.Value {
		return blk.NewGetElementPtr(types.I64, blk.NewBitCast(tp, types.NewPointer(types.I64)), k)
	}
	tapeSlot := func(blk *ir.Block, tp value.Value, tid value.Value) value.Value {
		k := blk.NewAdd(blk.NewSExt(tid, types.I64), i64(3))
		return blk.NewGetElementPtr(types.I8Ptr, blk.NewBitCast(tp, types.NewPointer(types.I8Ptr)), k)
	}
	var f *ir.Func
	switch which {
	case "new":
		capv := ir.NewParam("cap", types.I32)
		f = d.m.NewFunc(name, types.I8Ptr, capv)
		blk := f.NewBlock("entry")
		var c value.Value = blk.NewSExt(capv, types.I64)
		c = blk.NewSelect(blk.NewICmp(enum.IPredSLT, c, i64(1)), i64(1), c)
		tp := blk.NewCall(rules.Declare(d.m, "calloc", types.I8Ptr, types.I64, types.I64), blk.NewAdd(c, i64(3)), i64(8))
		fail := f.NewBlock("fail")
		ok := f.NewBlock("ok")
		blk.NewCondBr(blk.NewICmp(enum.IPredEQ, tp, constant.NewNull(types.I8Ptr)), fail, ok)
		fail.NewCall(rules.Declare(d.m, "llvm.trap", types.Void))
		fail.NewUnreachable()
		ok.NewStore(c, slot(ok, tp, i64(1)))
		ok.NewRet(tp)
	case "put":
		tp, tape := ir.NewParam("tp", types.I8Ptr), ir.NewParam("tape", types.I8Ptr)
		f = d.m.NewFunc(name, types.Void, tp, tape)
		blk := f.NewBlock("entry")
		tid := blk.NewCall(threadNum)
		capv := blk.NewLoad(types.I64, slot(blk, tp, i64(1)))
		fits := f.NewBlock("fits")
		blk.NewCondBr(blk.NewICmp(enum.IPredSLT, blk.NewSExt(tid, types.I64), capv), fits, d.ompFail(f, "gozyme: an OpenMP parallel region being differentiated ran on more threads than omp_get_max_threads() said\n"))
		fits.NewStore(tape, tapeSlot(fits, tp, tid))
		first, done := f.NewBlock("first"), f.NewBlock("done")
		fits.NewCondBr(fits.NewICmp(enum.IPredEQ, tid, constant.NewInt(types.I32, 0)), first, done)
		first.NewStore(first.NewSExt(first.NewCall(numThreads), types.I64), slot(first, tp, i64(0)))
		first.NewBr(done)
		done.NewRet(nil)
	case "get":
		tp := ir.NewParam("tp", types.I8Ptr)
		f = d.m.NewFunc(name, types.I8Ptr, tp)
		blk := f.NewBlock("entry")
		team := blk.NewLoad(types.I64, slot(blk, tp, i64(0)))
		same := f.NewBlock("same")
		blk.NewCondBr(blk.NewICmp(enum.IPredEQ, blk.NewSExt(blk.NewCall(numThreads), types.I64), team), same,
			d.ompFail(f, "gozyme: the reverse of an OpenMP parallel region got a team of another size than its forward sweep\n"))
		same.NewRet(same.NewLoad(types.I8Ptr, tapeSlot(same, tp, same.NewCall(threadNum))))
	case "team":
		tp := ir.NewParam("tp", types.I8Ptr)
		f = d.m.NewFunc(name, types.I32, tp)
		blk := f.NewBlock("entry")
		blk.NewRet(blk.NewTrunc(blk.NewLoad(types.I64, slot(blk, tp, i64(0))), types.I32))
	}
	f.Linkage = enum.LinkageInternal
	return f
}

// ompFail adds to f a block that writes msg to stderr and aborts.
func (d *differ) ompFail(f *ir.Func, msg string) *ir.Block {
	b := f.NewBlock("fail")
	name := "__gozyme_omp_msg." + f.Name()
	var g *ir.Global
	for _, x := range d.m.Globals {
		if x.Name() == name {
			g = x
		}
	}
	if g == nil {
		g = d.m.NewGlobalDef(name, constant.NewCharArrayFromString(msg))
		g.Immutable = true
		g.Linkage = enum.LinkagePrivate
	}
	ptr := constant.NewGetElementPtr(g.ContentType, g, constant.NewInt(types.I64, 0), constant.NewInt(types.I64, 0))
	b.NewCall(rules.Declare(d.m, "write", types.I64, types.I32, types.I8Ptr, types.I64), constant.NewInt(types.I32, 2), ptr, constant.NewInt(types.I64, int64(len(msg))))
	b.NewCall(rules.Declare(d.m, "abort", types.Void))
	b.NewUnreachable()
	return b
}
