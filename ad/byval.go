package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// explicitByval makes each byval parameter of a function AD differentiates
// (a prepared copy) an explicit copy: an alloca at entry, a memcpy from the
// pointer passed, and the body using the copy. A byval argument is the
// callee's own copy of the caller's object, but the calls the engine makes
// to augmented forward and reverse functions pass plain pointers, so the
// callee's writes (a stepper's state) would reach the caller's object and
// change what later calls compute. With the copy in the body, the engine
// also differentiates it like any memcpy (adjoints flow back to the
// caller's shadow). It reports whether f changed.
func explicitByval(m *ir.Module, f *ir.Func) bool {
	if len(f.Blocks) == 0 {
		return false
	}
	var pre []ir.Instruction
	for _, p := range f.Params {
		t, align, ok := byvalType(p)
		if !ok {
			continue
		}
		pt, ok := p.Typ.(*types.PointerType)
		if !ok {
			continue
		}
		if t == nil {
			t = pt.ElemType
		}
		c := ir.NewAlloca(t)
		c.Align = ir.Align(align)
		irutil.ReplaceAllUses(f, p, c)
		dst := ir.NewBitCast(c, types.I8Ptr)
		src := ir.NewBitCast(p, types.I8Ptr)
		cpy := rules.Declare(m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
		call := ir.NewCall(cpy, dst, src, constant.NewInt(types.I64, irutil.AllocSize(t)), constant.False)
		pre = append(pre, c, dst, src, call)
		p.Attrs = withoutByval(p.Attrs)
	}
	if len(pre) == 0 {
		return false
	}
	entry := f.Blocks[0]
	entry.Insts = append(pre, entry.Insts...)
	return true
}

// byvalType is a parameter's byval type (nil: its pointee) and alignment.
func byvalType(p *ir.Param) (types.Type, uint64, bool) {
	var t types.Type
	found := false
	align := uint64(0)
	for _, a := range p.Attrs {
		switch x := a.(type) {
		case ir.Byval:
			t, found = x.Typ, true
		case ir.Align:
			align = uint64(x)
		}
	}
	return t, align, found
}

func withoutByval(attrs []ir.ParamAttribute) []ir.ParamAttribute {
	var out []ir.ParamAttribute
	for _, a := range attrs {
		if _, ok := a.(ir.Byval); !ok {
			out = append(out, a)
		}
	}
	return out
}
