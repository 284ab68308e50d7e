package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
)

// Copies of variable length whose bytes the type analysis knows only in
// part: a generic helper memcpy'ing n bytes of a char buffer that holds
// four doubles. Within the known bytes the adjoint is exact; beyond them
// nothing says what the bytes hold, so the adjoint checks at run time that
// the copy stays within them, and stops the program otherwise rather than
// treat unknown bytes as floats (or drop them).

// boundedCopy is, for a copy of variable length between memory whose known
// contents are floats of one type packed from its start, that type and
// the number of bytes known.
func (d *differ) boundedCopy(x *ir.InstCall) (*types.FloatType, int64, bool) {
	if d.bits == nil || len(x.Args) < 3 {
		return nil, 0, false
	}
	if _, constant := intConstOf(x.Args[2]); constant {
		return nil, 0, false
	}
	var ft *types.FloatType
	limit := int64(0)
	for _, p := range x.Args[:2] {
		if !d.bits.ta.Known(p) {
			continue
		}
		c, n := d.bits.ta.Prefix(p)
		if !c.IsFloat() || c == typeanalysis.X86FP80 {
			continue
		}
		if ft != nil && (!types.Equal(ft, c.FloatType()) || n != limit) {
			return nil, 0, false
		}
		ft, limit = c.FloatType(), n
	}
	return ft, limit, ft != nil
}

// memcpyAdjointUpTo returns (creating once per module) the helper that
// runs memcpyAdjoint's for t on dst, src and n after checking that n is
// at most limit, and otherwise reports the copy and aborts.
func (r *reverseGen) memcpyAdjointUpTo(t *types.FloatType) *ir.Func {
	name := "__gozyme_memcpy_adjoint_upto_" + rules.TypeSuffix(t)
	for _, f := range r.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	inner := r.memcpyAdjoint(t)
	dst, src, n, limit := ir.NewParam("dst", types.I8Ptr), ir.NewParam("src", types.I8Ptr), ir.NewParam("n", types.I64), ir.NewParam("limit", types.I64)
	f := r.m.NewFunc(name, types.Void, dst, src, n, limit)
	f.Linkage = enum.LinkageInternal
	entry, over, ok := f.NewBlock("entry"), f.NewBlock("over"), f.NewBlock("ok")
	entry.NewCondBr(entry.NewICmp(enum.IPredUGT, n, limit), over, ok)
	msg := "gozyme: the derivative of a memory copy of variable length goes beyond the bytes known to hold floating point\n"
	g := r.m.NewGlobalDef(name+".msg", constant.NewCharArrayFromString(msg))
	g.Linkage = enum.LinkagePrivate
	g.Immutable = true
	write := rules.Declare(r.m, "write", types.I64, types.I32, types.I8Ptr, types.I64)
	zero := constant.NewInt(types.I64, 0)
	over.NewCall(write, constant.NewInt(types.I32, 2), constant.NewGetElementPtr(g.ContentType, g, zero, zero), constant.NewInt(types.I64, int64(len(msg))))
	over.NewCall(rules.Declare(r.m, "abort", types.Void))
	over.NewUnreachable()
	ok.NewCall(inner, dst, src, n)
	ok.NewRet(nil)
	return f
}
