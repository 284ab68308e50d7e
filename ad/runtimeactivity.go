package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Run-time activity (Options.RuntimeActivity). A pointer without a shadow
// stored into memory that has one (a struct built in the differentiated
// code holding a pointer to constant weights next to a pointer to the
// active input) has no shadow to store beside it; statically, which loads
// of that field see it is undecidable in general. With run-time activity,
// such a pointer is stored as its own shadow, as Enzyme stores it, and
// every access through a shadow that may be such a pointer compares it
// with its primal: equal means the memory carries no derivative, and
//   - the reverse of a load adds its adjoint into a sink, not into the
//     primal memory (which Enzyme without run-time activity corrupts);
//   - the reverse of a store reads a zero adjoint and clears nothing;
//   - bulk shadow operations (memset, memcpy) copy nothing;
//   - forward mode reads a zero tangent;
//   - a pointer read through it reads the primal pointer, which is its
//     own shadow again (the memory is the primal's), so inactivity follows
//     the data;
//   - writing a value that carries a derivative (or a pointer with a
//     shadow of its own) there stops the program with a message: later
//     reads of that memory would not see its derivative.
// Shadows that cannot be such a pointer (of allocations and constants)
// are not checked. Programs that need none of this are differentiated
// without it (the link retries with it only where a pointer without a
// shadow is stored into memory with one).

// sinkBytes is the size of the sink that accesses through inactive
// shadows go to.
const sinkBytes = 4096

// mayAliasPrimal reports whether the shadow of pointer p may be p itself
// at run time: with run-time activity, where p is derived from a pointer
// read from memory, a parameter, or a call's result.
func (d *differ) mayAliasPrimal(p value.Value) bool {
	if !d.runtimeActivity {
		return false
	}
	var bases []value.Value
	activity.PointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		switch x := b.(type) {
		case *ir.Param, *ir.InstLoad, *ir.InstExtractValue:
			return true
		case *ir.InstCall:
			if !irfacts.IsAllocation(x) {
				return true
			}
		}
	}
	return false
}

// sink returns the sink viewed as a t* (created once per module: thread
// local, so parallel derivatives do not share it).
func (d *differ) sink(t types.Type) (value.Value, bool) {
	if size, _, ok := abiLayout(t); !ok || size > sinkBytes {
		return nil, false
	}
	const name = "__gozyme_inactive_sink"
	var g *ir.Global
	for _, x := range d.m.Globals {
		if x.Name() == name {
			g = x
		}
	}
	if g == nil {
		arr := types.NewArray(sinkBytes, types.I8)
		g = d.m.NewGlobalDef(name, constant.NewZeroInitializer(arr))
		g.Linkage = enum.LinkageInternal
		g.TLSModel = enum.TLSModelGeneric
		g.Align = 64
	}
	return constant.NewBitCast(g, types.NewPointer(t)), true
}

// aliasTest emits shadow == primal (as i8*) into blk.
func aliasTest(blk *ir.Block, shadow, primal value.Value) value.Value {
	// Operands of calls carry their attributes (align 8 %p): the values.
	s := blk.NewBitCast(irfacts.Unwrap(shadow), types.I8Ptr)
	p := blk.NewBitCast(irfacts.Unwrap(primal), types.I8Ptr)
	return blk.NewICmp(enum.IPredEQ, s, p)
}

// guardShadow returns the address to access shadow sp (of primal pointer
// pp, elements of type t) through in blk: sp, or the sink where sp is pp;
// alias is that test, nil where sp cannot be pp.
func (d *differ) guardShadow(f *ir.Func, at interface{}, blk *ir.Block, primal, sp, pp value.Value, t types.Type) (addr, alias value.Value, err error) {
	if !d.mayAliasPrimal(primal) {
		return sp, nil, nil
	}
	sink, ok := d.sink(t)
	if !ok {
		return nil, nil, errorAt(f, at, "run-time activity: %s is too large to check through a shadow", t)
	}
	if !types.Equal(sink.Type(), sp.Type()) {
		sink = constant.NewBitCast(sink.(constant.Constant), sp.Type())
	}
	alias = aliasTest(blk, sp, pp)
	return blk.NewSelect(alias, sink, sp), alias, nil
}

// zeroUnless is v, or the zero of its type where alias holds.
func zeroUnless(blk *ir.Block, alias, v value.Value) value.Value {
	if alias == nil {
		return v
	}
	return blk.NewSelect(alias, rules.ZeroOf(v.Type()), v)
}

// countUnless is byte count n, or 0 where alias holds.
func countUnless(blk *ir.Block, alias, n value.Value) value.Value {
	if alias == nil {
		return n
	}
	return blk.NewSelect(alias, constant.NewInt(n.Type().(*types.IntType), 0), n)
}

// inactiveWrite emits a call stopping the program, with a message naming
// inst, where cond holds: a derivative written into memory whose shadow is
// its primal (see above).
func (d *differ) inactiveWrite(blk *ir.Block, f *ir.Func, inst interface{}, cond value.Value) {
	const name = "__gozyme_check_inactive_write"
	var check *ir.Func
	for _, x := range d.m.Funcs {
		if x.Name() == name {
			check = x
		}
	}
	if check == nil {
		c, msg := ir.NewParam("cond", types.I1), ir.NewParam("msg", types.I8Ptr)
		check = d.m.NewFunc(name, types.Void, c, msg)
		check.Linkage = enum.LinkageInternal
		entry, stop, done := check.NewBlock(""), check.NewBlock(""), check.NewBlock("")
		entry.NewCondBr(c, stop, done)
		stop.NewCall(d.unknownTargetStop(), msg)
		stop.NewUnreachable()
		done.NewRet(nil)
	}
	blk.NewCall(check, cond, d.message(inst, "gozyme: the derivative of "+f.Name()+
		" writes a value that carries a derivative into memory reached through a pointer stored without a shadow (run-time activity): pass that memory with a shadow (enzyme_dup)"))
}

// guardedShadow is guardShadow for the reverse sweep at primal block at:
// the address the reverse of inst accesses shadow sp of primal pointer p
// through.
func (r *reverseGen) guardedShadow(blk, at *ir.Block, inst ir.Instruction, p, sp value.Value, t types.Type) (value.Value, error) {
	if !r.d.mayAliasPrimal(p) {
		return sp, nil
	}
	addr, _, err := r.d.guardShadow(r.f, inst, blk, p, sp, r.lookup(blk, at, p), t)
	return addr, err
}

// guardedCopy applies run-time activity to the reverse of copy x, from
// shadow src into shadow dst, n bytes: nothing moves where dst is its
// primal, and nothing is added back where src is.
func (r *reverseGen) guardedCopy(blk, at *ir.Block, x *ir.InstCall, dst, src, n value.Value) (value.Value, value.Value) {
	if r.d.mayAliasPrimal(x.Args[0]) {
		n = countUnless(blk, aliasTest(blk, dst, r.lookup(blk, at, x.Args[0])), n)
	}
	if r.act.HasShadow(x.Args[1]) && r.d.mayAliasPrimal(x.Args[1]) {
		alias := aliasTest(blk, src, r.lookup(blk, at, x.Args[1]))
		src = blk.NewSelect(alias, constant.NewNull(src.Type().(*types.PointerType)), src)
	}
	return src, n
}

// differsFrom emits t != v for a tangent t of value v: a float tangent
// that is not zero, or a pointer's shadow that is not the pointer.
func differsFrom(blk *ir.Block, t, v value.Value) value.Value {
	switch {
	case types.IsPointer(t.Type()):
		return blk.NewICmp(enum.IPredNE, blk.NewBitCast(t, types.I8Ptr), blk.NewBitCast(v, types.I8Ptr))
	case irfacts.IsFloat(t.Type()):
		return blk.NewFCmp(enum.FPredUNE, t, rules.ZeroOf(t.Type()))
	}
	return constant.True
}
