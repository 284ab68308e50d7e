package ad

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Floats moved as integers. The engine decides what carries derivatives
// from IR types, but clang and LLVM move doubles as i64 (an 8-byte memcpy
// becomes load i64/store i64; struct copies; std::copy), as <2 x i64>,
// through integer parameters (a double's bits passed as unsigned long
// long). So, once per module before any root is lowered (retypeRegion):
//  1. the functions AD reaches from the roots are copied; the copies are
//     what the engine differentiates (differ.prepared), the program's own
//     functions stay as they are;
//  2. function pointers every call passes the same function for become
//     that function in the copies (funcptr.go): callbacks of generic code
//     are called directly, and differentiated;
//  3. the type analysis (package typeanalysis) runs over the copies;
//  4. byval parameters become explicit copies (byval.go);
//  5. a copy whose integer parameters or return hold floats (or pointers)
//     is replaced, for the calls of the region, by a function taking and
//     returning floats (retypeSignature);
//  6. each body is rewritten so that what the analysis proves to be
//     floats is float-typed in the IR (retype_body.go): the engine then
//     sees them.
// What the rewrite cannot express (an i64 holding a float and an int, the
// bytes of a double copied one by one) is recorded as opaque; once
// activity is known, float bits that derivatives reach and that leave as
// integers stop the link with an error (retype_check.go). Bulk copies ask
// the analysis what their bytes hold (analyzedCopy, copybound.go).

// printTypes (GOZYME_PRINT_TYPES set) prints the type analysis of the AD
// region and the functions the rewrite changed to standard error, as
// Enzyme's -print-type-analysis does.
var printTypes = os.Getenv("GOZYME_PRINT_TYPES") != ""

// retyper holds the analysis of one module's AD region and its rewrite.
type retyper struct {
	d     *differ
	ta    *typeanalysis.Analysis
	roots map[*ir.Func]bool
	// copies maps each function of the region to the function analyzed
	// for it: its copy, or itself when it is not copied (it holds an
	// entry-point call, or terminators the copy does not keep); nil for
	// functions outside the region (declarations, inactive, custom rules).
	copies map[*ir.Func]*ir.Func
	origs  map[*ir.Func]*ir.Func // copy -> the function it copies
	// sigs maps a copy to the function with float parameters or return
	// that replaces it in the region's calls.
	sigs map[*ir.Func]*ir.Func
	// opaque: integer values holding float bits that stay integers, with
	// why (retype_check.go reports those derivatives reach).
	opaque map[value.Value]string
	// rewritten are the functions the rewrite changed.
	rewritten map[*ir.Func]bool
}

// retypeRegion analyzes the functions AD reaches from the roots and
// rewrites their copies (once per module, before any root is lowered).
func (d *differ) retypeRegion(roots []*root) error {
	rt := &retyper{d: d, roots: map[*ir.Func]bool{}, copies: map[*ir.Func]*ir.Func{}, origs: map[*ir.Func]*ir.Func{}, sigs: map[*ir.Func]*ir.Func{},
		opaque: map[value.Value]string{}, rewritten: map[*ir.Func]bool{}}
	var fns []*ir.Func
	for _, r := range roots {
		for _, f := range rootFuncs(r) {
			if !rt.roots[f] {
				rt.roots[f] = true
				fns = append(fns, f)
			}
		}
	}
	if len(fns) == 0 {
		return nil
	}
	rt.specializeFuncPtrs(rt.regionFuncs(fns))
	rt.ta = typeanalysis.Analyze(fns, rt.body)
	if !rt.ta.Complete() {
		return nil // the engine sees the functions as they are
	}
	if printTypes {
		for _, f := range rt.ta.Funcs() {
			fmt.Fprintf(os.Stderr, "types of %s:\n%s", f.Name(), rt.ta.Print(f))
		}
	}
	d.bits = rt
	for _, f := range rt.ta.Funcs() {
		if rt.original(f) != f && explicitByval(d.m, f) {
			rt.rewritten[f] = true
		}
	}
	// Signatures first: bodies rewrite their calls to the new functions.
	for _, f := range rt.ta.Funcs() {
		if orig := rt.original(f); orig != f && !rt.roots[orig] {
			rt.retypeSignature(f)
		}
	}
	for _, f := range rt.ta.Funcs() {
		if rt.original(f) == f {
			continue // analyzed in place: not rewritten
		}
		body := f
		if g := rt.sigs[f]; g != nil {
			body = g
		}
		if err := rt.rewriteBody(body); err != nil {
			return err
		}
	}
	for _, f := range rt.ta.Funcs() {
		for _, g := range []*ir.Func{f, rt.sigs[f]} {
			if g == nil || !rt.rewritten[g] {
				continue
			}
			// Values the rewrite added have no IDs yet (messages name
			// values by them).
			if err := irutil.Renumber(g); err != nil {
				return errorAt(g, nil, "%v", err)
			}
			if printTypes {
				fmt.Fprintln(os.Stderr, g.LLString())
			}
		}
	}
	// The engine differentiates the copies.
	for orig, c := range rt.copies {
		if c != nil && c != orig && rt.sigs[c] == nil {
			d.prep[orig] = c
		}
	}
	for _, g := range rt.sigs {
		d.prep[g] = g
	}
	return nil
}

// rootFuncs are the functions a root differentiates (see parseArgs).
func rootFuncs(r *root) []*ir.Func {
	args := r.call.Args
	if len(args) > 0 && hasSRet(args[0]) {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil
	}
	fns, err := resolveFuncs(irutil.StripCasts(unwrapArg(args[0])), map[value.Value]bool{})
	if err != nil {
		return nil
	}
	return fns
}

// body is the function the analysis runs over for f (see copies).
func (rt *retyper) body(f *ir.Func) *ir.Func {
	if c, ok := rt.copies[f]; ok {
		return c
	}
	var c *ir.Func
	switch {
	case len(f.Blocks) == 0, rt.d.inactive[f], rt.d.custom[f] != nil, strings.HasPrefix(f.Name(), "llvm."):
	case holdsEntryPoint(f) || !copyable(f):
		c = f
	default:
		var err error
		if c, err = irutil.CloneWithoutUnwind(f); err != nil {
			c = f
		}
	}
	if c != nil {
		rt.origs[c] = f
	}
	rt.copies[f] = c
	return c
}

// original is the function a copy was made of (itself when not a copy).
func (rt *retyper) original(c *ir.Func) *ir.Func {
	if o, ok := rt.origs[c]; ok {
		return o
	}
	return c
}

// holdsEntryPoint reports a function calling an Enzyme entry point (a
// nested derivative): the call is lowered in the function itself, which
// must stay the one differentiated.
func holdsEntryPoint(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				if g, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
					if _, entry := EntryPointMode(g.Name()); entry {
						return true
					}
				}
			}
		}
	}
	return false
}

// copyable reports a function whose terminators CloneWithoutUnwind keeps
// exactly (besides the invokes and unwinding it removes).
func copyable(f *ir.Func) bool {
	for _, b := range f.Blocks {
		switch b.Term.(type) {
		case *ir.TermRet, *ir.TermBr, *ir.TermCondBr, *ir.TermSwitch, *ir.TermUnreachable, *ir.TermInvoke, *ir.TermResume:
		default:
			return false
		}
	}
	return true
}

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
	return nil
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

// analyzedCopy is what the type analysis says the bytes of a bulk copy
// (memcpy, memmove) hold, as the engine's copy rules take it: nil when
// they hold neither floats nor pointers, a float type or i8* when they are
// all of it (for a variable length, when the memory is an array of it),
// else a packed struct of the floats, pointers and byte runs in order.
// known is false when the analysis did not cover the copy or left a byte
// unknown or in conflict.
func (d *differ) analyzedCopy(x *ir.InstCall) (t types.Type, known bool) {
	rt := d.bits
	if rt == nil || len(x.Args) < 3 {
		return nil, false
	}
	n, constant := intConstOf(x.Args[2])
	for _, p := range x.Args[:2] {
		if !rt.ta.Known(p) {
			continue
		}
		if !constant {
			switch c := rt.ta.Repeating(p); {
			case c == typeanalysis.Integer:
				return nil, true
			case c == typeanalysis.Pointer:
				return types.I8Ptr, true
			case c.IsFloat() && c != typeanalysis.X86FP80:
				return c.FloatType(), true
			}
			continue
		}
		fields, complete := rt.ta.Layout(p, n)
		if !complete || hasLongDouble(fields) {
			continue
		}
		return layoutType(fields, n), true
	}
	return nil, false
}

// layoutType is the type of n bytes holding fields (floats and pointers at
// their offsets, integers between): nil for none, the one float type or
// i8* when they fill the bytes alone, else a packed struct with byte
// arrays for the integers.
func layoutType(fields []typeanalysis.Field, n int64) types.Type {
	if len(fields) == 0 {
		return nil
	}
	uniform := true
	for i, f := range fields {
		if f.Type != fields[0].Type || f.Offset != int64(i)*f.Type.Size() || f.Type == typeanalysis.X86FP80 {
			uniform = false
		}
	}
	scalar := func(c typeanalysis.Concrete) types.Type {
		if c == typeanalysis.Pointer {
			return types.I8Ptr
		}
		return c.FloatType()
	}
	if uniform && int64(len(fields))*fields[0].Type.Size() == n {
		return scalar(fields[0].Type)
	}
	var elems []types.Type
	cur := int64(0)
	for _, f := range fields {
		if f.Offset > cur {
			elems = append(elems, types.NewArray(uint64(f.Offset-cur), types.I8))
		}
		elems = append(elems, scalar(f.Type))
		cur = f.Offset + typeanalysis.StoreSize(scalar(f.Type))
	}
	if cur < n {
		elems = append(elems, types.NewArray(uint64(n-cur), types.I8))
	}
	st := types.NewStruct(elems...)
	st.Packed = true
	return st
}

// hasLongDouble reports an x86_fp80 field (10 bytes of data in 16 of
// memory: not laid out by layoutType).
func hasLongDouble(fields []typeanalysis.Field) bool {
	for _, f := range fields {
		if f.Type == typeanalysis.X86FP80 {
			return true
		}
	}
	return false
}

// copyLayout is the element type of a bulk copy: what its typed pointers
// point to, else what the type analysis found, else its !tbaa.struct.
func (d *differ) copyLayout(x *ir.InstCall) types.Type {
	if !isMemTransfer(x) || len(x.Args) < 3 {
		return nil
	}
	for _, a := range x.Args[:2] {
		if t := pointee(a); t != nil && !types.Equal(t, types.I8) {
			return t
		}
	}
	if t, known := d.analyzedCopy(x); known {
		return t
	}
	return tbaaStructLayout(x)
}

// untypedCopy is what the bytes of a copy between untyped (i8*) pointers
// hold: by the type analysis where it knows (i64 for integers), else by
// the copy's TBAA tag or the casts of its pointers (tbaa.go).
func (d *differ) untypedCopy(f *ir.Func, x *ir.InstCall) types.Type {
	if t, known := d.analyzedCopy(x); known {
		if t == nil {
			return types.I64
		}
		if _, mixed := t.(*types.StructType); mixed {
			return nil
		}
		return t
	}
	return untypedCopy(f, x)
}

// untypedPointers reports a copy of untyped bytes that are pointers (their
// shadows are copied with them).
func (d *differ) untypedPointers(f *ir.Func, x *ir.InstCall) bool {
	t := pointee(x.Args[1])
	return (t == nil || types.Equal(t, types.I8)) && types.IsPointer(d.untypedCopy(f, x))
}
