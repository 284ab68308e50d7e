package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Copies of bytes of unknown type whose shadows are zero. A memcpy of
// variable length between untyped pointers whose bytes nothing types: a
// std::string's characters copied into a new hash node that also holds an
// active double (the node's pointer is merged with the table's sentinel,
// so the type analysis cannot tell the characters from the pointer and
// the double that sit around them in other nodes). Enzyme takes the type
// of the first byte for the whole copy; gozyme does not guess. Whatever
// the bytes hold, a copy moves no derivative and no shadow pointer when
// the shadows involved are zero:
//   - floats: the forward sweep leaves their shadows alone and the reverse
//     adds the destination's adjoint into the source's and clears it, a
//     no-op when that adjoint is zero;
//   - pointers: the forward sweep copies the source's shadow over the
//     destination's, a no-op when both are zero (null);
//   - integers: nothing.
// So the forward sweep checks that the n bytes of both shadows are zero
// and the reverse that the destination's still is, and each stops the
// program with a message naming the copy otherwise. Where the type
// analysis says a float, a pointer or nothing at the copy's first byte
// (where Enzyme would treat it as floats or stop), the link keeps its
// error: the check is for copies Enzyme treats as integers.

// zeroShadowCopy reports a bulk copy x of f that the engine's copy rules
// cannot type (variable length, untyped pointers, nothing in the type
// analysis, the TBAA or a known prefix) whose first byte the type analysis
// says is an integer at one end: it is differentiated by zeroShadowCheck.
func (d *differ) zeroShadowCopy(f *ir.Func, x *ir.InstCall) bool {
	if d.gpu || d.runtimeActivity || d.bits == nil || !irfacts.IsMemTransfer(x) || len(x.Args) < 3 {
		return false
	}
	if _, constant := intConstOf(x.Args[2]); constant {
		return false
	}
	for i := range x.Args[:2] {
		if t := copyPointee(x, i); t == nil || !types.Equal(t, types.I8) {
			return false
		}
	}
	if d.copyLayout(x) != nil || d.untypedCopy(f, x) != nil {
		return false
	}
	if _, _, ok := d.boundedCopy(x); ok {
		return false
	}
	for _, p := range x.Args[:2] {
		if d.bits.ta.Known(p) && d.bits.ta.Tree(p).Data(0).At(0) == typeanalysis.Integer {
			return true
		}
	}
	return false
}

// zeroShadowCheck returns the calls checking that the n bytes at shadows
// a and b are zero (stopping the program with msg otherwise).
func (d *differ) zeroShadowCheck(a, b, n, msg value.Value) []ir.Instruction {
	var out []ir.Instruction
	a, b = bitCastTo(&out, a, types.I8Ptr), bitCastTo(&out, b, types.I8Ptr)
	n = zextI64(&out, irfacts.Unwrap(n))
	return append(out, ir.NewCall(d.zeroShadowHelper(), a, b, n, msg))
}

// zeroShadowHelper returns (creating once per module) the function
// void(i8* a, i8* b, i64 n, i8* msg) that stops the program with msg where
// a byte of a[0..n) or b[0..n) is not zero.
func (d *differ) zeroShadowHelper() *ir.Func {
	const name = "__gozyme_check_zero_shadow"
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	a, b := ir.NewParam("a", types.I8Ptr), ir.NewParam("b", types.I8Ptr)
	n, msg := ir.NewParam("n", types.I64), ir.NewParam("msg", types.I8Ptr)
	f := d.m.NewFunc(name, types.Void, a, b, n, msg)
	f.Linkage = enum.LinkageInternal
	entry, head, body, next, stop, done := f.NewBlock(""), f.NewBlock(""), f.NewBlock(""), f.NewBlock(""), f.NewBlock(""), f.NewBlock("")
	entry.NewBr(head)
	zero := constant.NewInt(types.I64, 0)
	i := head.NewPhi(ir.NewIncoming(zero, entry))
	head.NewCondBr(head.NewICmp(enum.IPredULT, i, n), body, done)
	va := body.NewLoad(types.I8, body.NewGetElementPtr(types.I8, a, i))
	vb := body.NewLoad(types.I8, body.NewGetElementPtr(types.I8, b, i))
	body.NewCondBr(body.NewICmp(enum.IPredNE, body.NewOr(va, vb), constant.NewInt(types.I8, 0)), stop, next)
	i1 := next.NewAdd(i, constant.NewInt(types.I64, 1))
	i.Incs = append(i.Incs, ir.NewIncoming(i1, next))
	next.NewBr(head)
	stop.NewCall(d.unknownTargetStop(), msg)
	stop.NewUnreachable()
	done.NewRet(nil)
	return f
}

// zeroShadowMessage is the run-time error of the checks of copy x in f.
func (d *differ) zeroShadowMessage(f *ir.Func, x *ir.InstCall) value.Value {
	return d.message(x, "gozyme: the derivative of "+f.Name()+" cannot tell what the bytes of a memory copy of variable length hold (floats, pointers or integers), and their shadows are not zero: they would carry a derivative or a shadow pointer")
}
