package ad

// Signatures of the copies AD differentiates: a copy whose integer
// parameters or return hold floats (subdoublestore.c passes a double's
// bits as unsigned long long) is replaced, for the calls of the AD region,
// by a function taking and returning floats (or pointers) under a new
// name; the program's calls keep the original.

import (
	"reflect"
	"strconv"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// retypeSignature gives a copy whose integer parameters or return hold
// floats (or pointers) a replacement with those types, moving its body
// there; the body's uses of the old parameters read them back as integers
// (folded away by rewriteBody where they feed float uses).
func (rt *retyper) retypeSignature(c *ir.Func) {
	if c.Sig.Variadic {
		return
	}
	changed := false
	params := make([]*ir.Param, len(c.Params))
	for i, p := range c.Params {
		t := rt.carrierType(p)
		if t == nil {
			t = p.Typ
		} else {
			changed = true
		}
		np := ir.NewParam(p.Name(), t)
		if p.IsUnnamed() {
			np = ir.NewParam("", t)
		}
		if t == p.Typ {
			np.Attrs = p.Attrs
		} else {
			np.Attrs = valueAttrs(p.Attrs)
		}
		params[i] = np
	}
	ret := c.Sig.RetType
	if t := rt.retCarrier(c); t != nil {
		ret = t
		changed = true
	}
	if !changed {
		return
	}
	g := rt.d.m.NewFunc(uniqueFuncName(rt.d.m, c.Name()+".retyped"), ret, params...)
	g.Linkage = enum.LinkageInternal
	g.FuncAttrs = c.FuncAttrs
	g.Metadata = c.Metadata
	g.Blocks, c.Blocks = c.Blocks, nil
	for _, b := range g.Blocks {
		b.Parent = g
	}
	entry := g.Blocks[0]
	var pre []ir.Instruction
	for i, p := range c.Params {
		np := params[i]
		if np.Typ == p.Typ {
			irutil.ReplaceAllUses(g, p, np)
			continue
		}
		back := backCast(np, p.Typ)
		// The body's integer uses see the parameter's facts: an i64
		// holding a pointer stored by the body is a pointer store again
		// (retypeStore), whose shadow the caller's memory then needs.
		rt.ta.Same(back, p)
		pre = append(pre, back.(ir.Instruction))
		irutil.ReplaceAllUses(g, p, back)
	}
	entry.Insts = append(pre, entry.Insts...)
	if !types.Equal(ret, c.Sig.RetType) {
		for _, b := range g.Blocks {
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil {
				cast := castTo(r.X, ret)
				if inst, ok := cast.(ir.Instruction); ok {
					b.Insts = append(b.Insts, inst)
				}
				r.X = cast
			}
		}
	}
	rt.sigs[c] = g
	rt.rewritten[g] = true
}

// carrierType is the float or pointer type an integer value holds, by the
// analysis, when the rewrite can give it that type: float and double (and
// vectors of them); pointers in 64-bit integers. Nil otherwise.
func (rt *retyper) carrierType(v value.Value) types.Type {
	if ft := rt.ta.FloatOf(v); ft != nil && (ft.Kind == types.FloatKindDouble || ft.Kind == types.FloatKindFloat) {
		if vt, ok := v.Type().(*types.VectorType); ok {
			return types.NewVector(vt.Len, ft)
		}
		return ft
	}
	if it, ok := v.Type().(*types.IntType); ok && it.BitSize == 64 && rt.ta.IsPointerBits(v) {
		return types.I8Ptr
	}
	if ft, n := rt.ta.PackedFloats(v); ft != nil {
		return types.NewVector(uint64(n), ft) // its bits, lane by lane
	}
	return nil
}

// packedCarrier reports a carrier t of v whose float lanes are not v's
// lanes (PackedFloats): a vector of floats for a scalar integer, or fewer
// wider floats for a vector of integers. Such a value is moved whole,
// never taken apart by a sign mask or a shuffle of the integer's lanes.
func packedCarrier(v value.Value, t types.Type) bool {
	ct, vec := t.(*types.VectorType)
	if !vec {
		return false
	}
	switch vt := v.Type().(type) {
	case *types.IntType:
		return true
	case *types.VectorType:
		return vt.Len != ct.Len
	}
	return false
}

// retCarrier is carrierType for a copy's return value.
func (rt *retyper) retCarrier(c *ir.Func) types.Type {
	var t types.Type
	for _, b := range c.Blocks {
		r, ok := b.Term.(*ir.TermRet)
		if !ok || r.X == nil {
			continue
		}
		rt2 := rt.carrierType(r.X)
		if rt2 == nil || (t != nil && !types.Equal(t, rt2)) {
			return nil
		}
		t = rt2
	}
	return t
}

// valueAttrs keeps the parameter attributes that stay true of a float or
// pointer holding the same bits (noundef); zeroext/signext and the like
// are for integers.
func valueAttrs(attrs []ir.ParamAttribute) []ir.ParamAttribute {
	var out []ir.ParamAttribute
	for _, a := range attrs {
		if a == enum.ParamAttrNoUndef {
			out = append(out, a)
		}
	}
	return out
}

// uniqueFuncName is name, or name with a number appended, that no
// function of m has.
func uniqueFuncName(m *ir.Module, name string) string {
	taken := map[string]bool{}
	for _, f := range m.Funcs {
		taken[f.Name()] = true
	}
	if !taken[name] {
		return name
	}
	for i := 1; ; i++ {
		n := name + "." + strconv.Itoa(i)
		if !taken[n] {
			return n
		}
	}
}

// dropDebugInfo strips the debug info of the functions with retyped
// signatures once they are differentiated (their locations served the
// engine's messages): they are copies of functions whose DISubprogram
// stays with the original, and LLVM allows a subprogram one function.
// Like derivatives, they run without debug info (keepDebugScopes).
func (rt *retyper) dropDebugInfo() {
	for _, g := range rt.sigs {
		stripDebugInfo(g)
	}
}

// stripDebugInfo removes f's subprogram, its debug intrinsics and the
// locations of its instructions.
func stripDebugInfo(f *ir.Func) {
	var md ir.Metadata
	for _, a := range f.Metadata {
		if a.Name != "dbg" {
			md = append(md, a)
		}
	}
	f.Metadata = md
	for _, b := range f.Blocks {
		kept := b.Insts[:0]
		for _, inst := range b.Insts {
			if isDebugIntrinsic(inst) {
				continue
			}
			dropDbg(inst)
			kept = append(kept, inst)
		}
		b.Insts = kept
		dropDbg(b.Term)
	}
}

// dropDbg removes an instruction's !dbg attachment.
func dropDbg(x interface{}) {
	m, ok := x.(interface{ MDAttachments() []*metadata.Attachment })
	if !ok {
		return
	}
	var kept []*metadata.Attachment
	for _, a := range m.MDAttachments() {
		if a.Name != "dbg" {
			kept = append(kept, a)
		}
	}
	setMetadata(x, kept)
}

// setMetadata replaces the attachments of an instruction or terminator
// (every llir instruction embeds ir.Metadata).
func setMetadata(x interface{}, md []*metadata.Attachment) {
	if f := reflect.ValueOf(x).Elem().FieldByName("Metadata"); f.IsValid() && f.CanSet() {
		f.Set(reflect.ValueOf(ir.Metadata(md)))
	}
}
