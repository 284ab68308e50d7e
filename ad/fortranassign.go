package ad

import (
	"fmt"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The Fortran runtime's array assignment
//
//	Assign(Descriptor &to, const Descriptor &from, const char *file, int line)
//
// which flang-16 calls for the copy-in and copy-out of a section passed to
// an explicit-shape dummy (call g(a(1:n:2)) with g's v(n)) and for some
// whole-array assignments, copies from's elements into to's in array
// element order of each (column-major, each descriptor's own shape; a
// rank-0 from is broadcast). Its rule, a generated custom derivative
// (fortranreduce.go's descriptor layout and helpers):
//
//   - forward: to's tangent elements become from's (zero where from has no
//     shadow), through a buffer, as the runtime copies overlapping arrays;
//   - reverse: the augmented forward records both descriptors with their
//     shadows' bases; the gradient takes to's adjoints into a buffer, zeroes
//     them (the primal values were overwritten) and adds them to from's
//     shadow elements.
//
// Only where to has a shadow. Integer, logical and character elements
// carry no derivative: nothing is done. Real and complex elements (type
// codes 27, 28, 34, 35) get the rule; any other element type (a derived
// type) with a shadow, differing type codes or element counts, a foreign
// descriptor, or an allocatable to (the runtime may reallocate it, and
// its shadow would not follow) abort at run time with a message.

// fortranAssignName is the runtime routine.
const fortranAssignName = "_FortranAAssign"

// fortranAssignSig reports the runtime's signature: (box*, box*, i8*, i32).
func fortranAssignSig(f *ir.Func) bool {
	p := f.Sig.Params
	return len(p) == 4 && !f.Sig.Variadic && types.IsPointer(p[0]) && types.IsPointer(p[1]) &&
		types.IsPointer(p[2]) && types.Equal(p[3], types.I32)
}

// The record of the reverse: to's descriptor (its shadow's base in place
// of the base) at 0, from's at assignFromOff; each at most 24 + 24*15 bytes.
const assignFromOff = 384

// buildFortranAssign makes the augmented forward, gradient and forward
// derivative of the runtime's Assign f.
func buildFortranAssign(m *ir.Module, f *ir.Func) *Custom {
	base := fortranReducePrefix + "Assign"
	params := func() []*ir.Param { return shadowedParams(f) }
	h := &fredHelpers{m: m, name: f.Name()}
	aug := m.NewFunc(base+"_aug", types.I8Ptr, params()...)
	grad := m.NewFunc(base+"_grad", types.Void, append(params(), ir.NewParam("tape", types.I8Ptr))...)
	fwd := m.NewFunc(base+"_fwd", types.Void, params()...)
	for _, g := range []*ir.Func{aug, grad, fwd} {
		g.Linkage = enum.LinkageInternal
	}
	h.assignAug(aug)
	h.assignGrad(grad)
	h.assignFwd(fwd)
	return &Custom{Augment: aug, Gradient: grad, Forward: fwd}
}

// assignActive runs body where to has a shadow tb and holds elements that
// carry derivatives, after checking both descriptors.
func (h *fredHelpers) assignActive(x *fb, to, sto, from value.Value, body func(tb value.Value)) {
	tb := x.descShadowBase(to, sto)
	x.ifNonNull(tb, func() {
		code := x.load(types.I8, to, i64c(21))
		x.ifThen(x.b.NewXor(h.noDerivativeCode(x, code), constant.True), func() {
			h.assignCheck(x, to, from)
			body(tb)
		})
	})
}

// noDerivativeCode reports a type code of elements without derivatives:
// the integers (1-24), logical (39) and characters (40, 43, 44).
func (h *fredHelpers) noDerivativeCode(x *fb, code value.Value) value.Value {
	c := func(v int64) value.Value { return constant.NewInt(types.I8, v) }
	in := x.b.NewAnd(x.b.NewICmp(enum.IPredSGE, code, c(1)), x.b.NewICmp(enum.IPredSLE, code, c(24)))
	var out value.Value = in
	for _, v := range []int64{39, 40, 43, 44} {
		out = x.b.NewOr(out, x.b.NewICmp(enum.IPredEQ, code, c(v)))
	}
	return out
}

// assignCheck aborts with a message where the rule does not hold: a
// descriptor not flang's, to's type code not a real or complex one or
// not from's, differing element lengths, an allocatable to, or element
// counts that differ (from not a scalar).
func (h *fredHelpers) assignCheck(x *fb, to, from value.Value) {
	ver := constant.NewInt(types.I32, cfiVersion)
	var bad value.Value = constant.False
	for _, d := range []value.Value{to, from} {
		bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredNE, x.load(types.I32, d, i64c(16)), ver))
		bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredUGT, x.rank(d), i64c(15)))
	}
	code := x.load(types.I8, to, i64c(21))
	var real value.Value = constant.False
	for _, v := range []int64{27, 28, 34, 35} {
		real = x.b.NewOr(real, x.b.NewICmp(enum.IPredEQ, code, constant.NewInt(types.I8, v)))
	}
	bad = x.b.NewOr(bad, x.b.NewXor(real, constant.True))
	bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredNE, code, x.load(types.I8, from, i64c(21))))
	bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredNE, x.load(types.I64, to, i64c(8)), x.load(types.I64, from, i64c(8))))
	x.ifThen(bad, func() {
		x.b.NewCall(fortranAbort(h.m, "abort_assign_type", fmt.Sprintf("gozyme: the derivative of '%s' was given array descriptors it cannot read (a version other than %d, a rank above 15), or elements that carry derivatives but are not real or complex (a derived type: assign its real components instead), or of differing types\n", h.name, cfiVersion)))
	})
	alloc := x.b.NewICmp(enum.IPredEQ, x.load(types.I8, to, i64c(22)), constant.NewInt(types.I8, 2))
	x.ifThen(alloc, func() {
		x.b.NewCall(fortranAbort(h.m, "abort_assign_alloc", fmt.Sprintf("gozyme: the derivative of '%s' cannot assign to an allocatable array: the runtime may reallocate it and its shadow would not follow (allocate it with the right shape first and assign in a loop)\n", h.name)))
	})
	counts := x.b.NewICmp(enum.IPredNE, x.b.NewCall(h.assignCount(), x.bytes(to)), x.b.NewCall(h.assignCount(), x.bytes(from)))
	x.ifThen(x.b.NewAnd(counts, x.b.NewICmp(enum.IPredNE, x.rank(from), i64c(0))), func() {
		x.b.NewCall(fortranAbort(h.m, "abort_assign_count", fmt.Sprintf("gozyme: the derivative of '%s' was given arrays with differing element counts\n", h.name)))
	})
}

// assignAug: (to, sto, from, sfrom, file, sfile, line) -> the record:
// both descriptors with their shadows' bases; null where to has no
// shadow or its elements carry no derivatives.
func (h *fredHelpers) assignAug(f *ir.Func) {
	x := newFB(f)
	to, sto, from, sfrom := f.Params[0], f.Params[1], f.Params[2], f.Params[3]
	out := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	h.assignActive(x, to, sto, from, func(tb value.Value) {
		rec := h.assignRecord(x, to, tb, from, x.descShadowBase(from, sfrom))
		x.b.NewStore(rec, out)
	})
	x.b.NewRet(x.b.NewLoad(types.I8Ptr, out))
}

// assignRecord mallocs a record of both descriptors, to's at 0 and from's
// at assignFromOff, each with its base address replaced by toBase and
// fromBase (the shadows' or tangents' bases).
func (h *fredHelpers) assignRecord(x *fb, to, toBase, from, fromBase value.Value) value.Value {
	rec := x.b.NewCall(rules.Declare(h.m, "malloc", types.I8Ptr, types.I64), i64c(2*assignFromOff))
	h.copyDesc(x, rec, to, toBase, x.descSize(to))
	h.copyDesc(x, x.at(rec, i64c(assignFromOff)), from, fromBase, x.descSize(from))
	return rec
}

// assignGrad: (..., record): buffer = to's adjoints; to's adjoints = 0;
// from's shadow elements += buffer (a scalar from: each of them).
func (h *fredHelpers) assignGrad(f *ir.Func) {
	x := newFB(f)
	rec := f.Params[len(f.Params)-1]
	x.ifNonNull(rec, func() {
		from := x.at(rec, i64c(assignFromOff))
		buf := h.assignGather(x, rec)
		el := x.load(types.I64, rec, i64c(8))
		n := x.b.NewCall(h.assignCount(), rec)
		memset := rules.Declare(h.m, "llvm.memset.p0i8.i64", types.Void, types.I8Ptr, types.I8, types.I64, types.I1)
		x.loop(n, func(i value.Value) {
			x.b.NewCall(memset, x.b.NewCall(h.assignElem(), rec, i), constant.NewInt(types.I8, 0), el, constant.False)
		})
		x.ifNonNull(x.load(types.I8Ptr, from, i64c(0)), func() {
			code := x.load(types.I8, rec, i64c(21))
			dbl := x.b.NewOr(x.b.NewICmp(enum.IPredEQ, code, constant.NewInt(types.I8, 28)), x.b.NewICmp(enum.IPredEQ, code, constant.NewInt(types.I8, 35)))
			for _, t := range []*types.FloatType{types.Double, types.Float} {
				var cond value.Value = dbl
				if t == types.Float {
					cond = x.b.NewXor(dbl, constant.True)
				}
				x.ifThen(cond, func() {
					x.loop(n, func(i value.Value) {
						x.b.NewCall(h.assignAdd(t), x.b.NewCall(h.assignElem(), from, i), x.at(buf, x.b.NewMul(i, el)), el)
					})
				})
			}
		})
		free := rules.Declare(h.m, "free", types.Void, types.I8Ptr)
		x.b.NewCall(free, buf)
		x.b.NewCall(free, rec)
	})
	x.b.NewRet(nil)
}

// assignFwd: (to, tto, from, tfrom, ...): to's tangent elements = from's
// (zero without a tangent of from).
func (h *fredHelpers) assignFwd(f *ir.Func) {
	x := newFB(f)
	to, tto, from, tfrom := f.Params[0], f.Params[1], f.Params[2], f.Params[3]
	null := constant.NewNull(types.I8Ptr)
	h.assignActive(x, to, tto, from, func(tb value.Value) {
		fb := x.descShadowBase(from, tfrom)
		// Descriptors with the tangents' bases, read as the record is.
		rec := h.assignRecord(x, to, tb, from, fb)
		memcpy := rules.Declare(h.m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
		src := x.at(rec, i64c(assignFromOff))
		el := x.load(types.I64, rec, i64c(8))
		n := x.b.NewCall(h.assignCount(), rec)
		hasFrom := x.b.NewICmp(enum.IPredNE, fb, null)
		bufSlot := x.slot(types.I8Ptr, null)
		x.ifThen(hasFrom, func() {
			// From's tangents first: they may overlap to's.
			x.b.NewStore(h.assignGatherFrom(x, src, rec), bufSlot)
		})
		buf := x.b.NewLoad(types.I8Ptr, bufSlot)
		memset := rules.Declare(h.m, "llvm.memset.p0i8.i64", types.Void, types.I8Ptr, types.I8, types.I64, types.I1)
		x.loop(n, func(i value.Value) {
			dst := x.b.NewCall(h.assignElem(), rec, i)
			x.b.NewCall(memset, dst, constant.NewInt(types.I8, 0), el, constant.False)
			x.ifThen(hasFrom, func() {
				x.b.NewCall(memcpy, dst, x.at(buf, x.b.NewMul(i, el)), el, constant.False)
			})
		})
		free := rules.Declare(h.m, "free", types.Void, types.I8Ptr)
		x.b.NewCall(free, buf)
		x.b.NewCall(free, rec)
	})
	x.b.NewRet(nil)
}

// assignGather copies the elements of descriptor d (the record's to) into
// a new dense buffer, in array element order.
func (h *fredHelpers) assignGather(x *fb, d value.Value) value.Value {
	el := x.load(types.I64, d, i64c(8))
	n := x.b.NewCall(h.assignCount(), d)
	buf := x.b.NewCall(rules.Declare(h.m, "malloc", types.I8Ptr, types.I64), x.b.NewAdd(x.b.NewMul(n, el), i64c(1)))
	memcpy := rules.Declare(h.m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	x.loop(n, func(i value.Value) {
		x.b.NewCall(memcpy, x.at(buf, x.b.NewMul(i, el)), x.b.NewCall(h.assignElem(), d, i), el, constant.False)
	})
	return buf
}

// assignGatherFrom copies, for each element of to (descriptor to, for
// the count), the matching element of descriptor from (a scalar from:
// its one element) into a new dense buffer.
func (h *fredHelpers) assignGatherFrom(x *fb, from, to value.Value) value.Value {
	el := x.load(types.I64, to, i64c(8))
	n := x.b.NewCall(h.assignCount(), to)
	buf := x.b.NewCall(rules.Declare(h.m, "malloc", types.I8Ptr, types.I64), x.b.NewAdd(x.b.NewMul(n, el), i64c(1)))
	memcpy := rules.Declare(h.m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	x.loop(n, func(i value.Value) {
		x.b.NewCall(memcpy, x.at(buf, x.b.NewMul(i, el)), x.b.NewCall(h.assignElem(), from, i), el, constant.False)
	})
	return buf
}

// assignElem returns (building once) the function (d, i) -> the address
// of element i, in array element order, of descriptor d (rank 0: its
// base, whatever i).
func (h *fredHelpers) assignElem() *ir.Func {
	name := fortranReducePrefix + "assign_elem"
	if f := findFunc(h.m, name); f != nil {
		return f
	}
	d, i := ir.NewParam("d", types.I8Ptr), ir.NewParam("i", types.I64)
	f := h.m.NewFunc(name, types.I8Ptr, d, i)
	f.Linkage = enum.LinkageInternal
	x := newFB(f)
	rem := x.slot(types.I64, i)
	off := x.slot(types.I64, i64c(0))
	x.loop(x.rank(d), func(k value.Value) {
		dim := x.b.NewAdd(i64c(24), x.b.NewMul(k, i64c(24)))
		ext := x.load(types.I64, d, x.b.NewAdd(dim, i64c(8)))
		sm := x.load(types.I64, d, x.b.NewAdd(dim, i64c(16)))
		r := x.b.NewLoad(types.I64, rem)
		x.b.NewStore(x.b.NewAdd(x.b.NewLoad(types.I64, off), x.b.NewMul(x.b.NewSRem(r, ext), sm)), off)
		x.b.NewStore(x.b.NewSDiv(r, ext), rem)
	})
	x.b.NewRet(x.at(x.load(types.I8Ptr, d, i64c(0)), x.b.NewLoad(types.I64, off)))
	return f
}

// assignCount returns (building once) the function (d) -> descriptor d's
// element count (1 for a scalar, 0 where an extent is not positive).
func (h *fredHelpers) assignCount() *ir.Func {
	name := fortranReducePrefix + "assign_count"
	if f := findFunc(h.m, name); f != nil {
		return f
	}
	d := ir.NewParam("d", types.I8Ptr)
	f := h.m.NewFunc(name, types.I64, d)
	f.Linkage = enum.LinkageInternal
	x := newFB(f)
	n := x.slot(types.I64, i64c(1))
	x.loop(x.rank(d), func(k value.Value) {
		ext := x.load(types.I64, d, x.b.NewAdd(i64c(32), x.b.NewMul(k, i64c(24))))
		ext = x.b.NewSelect(x.b.NewICmp(enum.IPredSLT, ext, i64c(0)), i64c(0), ext)
		x.b.NewStore(x.b.NewMul(x.b.NewLoad(types.I64, n), ext), n)
	})
	x.b.NewRet(x.b.NewLoad(types.I64, n))
	return f
}

// assignAdd returns (building once) the function (dst, src, bytes) that
// adds src's floats of type t to dst's, bytes of each.
func (h *fredHelpers) assignAdd(t *types.FloatType) *ir.Func {
	name := fortranReducePrefix + "assign_add_" + rules.TypeSuffix(t)
	if f := findFunc(h.m, name); f != nil {
		return f
	}
	dst, src, nb := ir.NewParam("dst", types.I8Ptr), ir.NewParam("src", types.I8Ptr), ir.NewParam("bytes", types.I64)
	f := h.m.NewFunc(name, types.Void, dst, src, nb)
	f.Linkage = enum.LinkageInternal
	x := newFB(f)
	es := int64(floatBits(t) / 8)
	x.loop(x.b.NewSDiv(nb, i64c(es)), func(j value.Value) {
		off := x.b.NewMul(j, i64c(es))
		x.store(x.b.NewFAdd(x.load(t, dst, off), x.load(t, src, off)), dst, off)
	})
	x.b.NewRet(nil)
	return f
}

// findFunc is m's function called name, nil if none.
func findFunc(m *ir.Module, name string) *ir.Func {
	for _, f := range m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// fortranAbort returns (building once) the function that writes msg to
// standard error and aborts.
func fortranAbort(m *ir.Module, suffix, msg string) *ir.Func {
	name := fortranReducePrefix + suffix
	if f := findFunc(m, name); f != nil {
		return f
	}
	f := m.NewFunc(name, types.Void)
	f.Linkage = enum.LinkageInternal
	b := f.NewBlock("entry")
	g := m.NewGlobalDef(name+".msg", constant.NewCharArrayFromString(msg))
	g.Linkage = enum.LinkagePrivate
	g.Immutable = true
	write := rules.Declare(m, "write", types.I64, types.I32, types.I8Ptr, types.I64)
	zero := i64c(0)
	b.NewCall(write, constant.NewInt(types.I32, 2), constant.NewGetElementPtr(g.ContentType, g, zero, zero), i64c(int64(len(msg))))
	b.NewCall(rules.Declare(m, "abort", types.Void))
	b.NewUnreachable()
	return f
}

// fortranAssignStop is the link-time form of assignCheck where f builds
// a descriptor Assign takes with constant fields: elements that carry
// derivatives but are neither real nor complex (a derived type), or an
// allocatable destination. Nil otherwise (the run-time checks remain).
func fortranAssignStop(f *ir.Func, call *ir.InstCall) error {
	if len(call.Args) != 4 {
		return nil
	}
	for i, arg := range call.Args[:2] {
		codes, attrs := descriptorConstFields(f, irutil.StripCasts(arg))
		for _, c := range codes {
			if !assignCodeKnown(c) {
				return errorAt(f, call, "no derivative for the call to '%s' (an array assignment, or the copy-in or copy-out of a section passed to an explicit-shape dummy) of elements of type code %d (a derived type): gozyme differentiates it for real and complex elements only; pass the section to an assumed-shape dummy (v(:)) or copy its real components in a loop", fortranAssignName, c)
			}
		}
		for _, a := range attrs {
			if i == 0 && a == 2 {
				return errorAt(f, call, "no derivative for the call to '%s' into an allocatable array: the runtime may reallocate it and its shadow would not follow; allocate it with the right shape first and assign in a loop", fortranAssignName)
			}
		}
	}
	return nil
}

// assignCodeKnown reports a type code the rule handles: real, complex,
// or one of elements without derivatives.
func assignCodeKnown(c int64) bool {
	return c >= 1 && c <= 24 || c == 27 || c == 28 || c == 34 || c == 35 || c == 39 || c == 40 || c == 43 || c == 44
}

// descriptorConstFields returns the constant type codes and attributes f
// stores into descriptor p (an alloca): whole descriptors (a constant or
// an insertvalue chain over one) and single fields through a
// getelementptr of the descriptor type.
func descriptorConstFields(f *ir.Func, p value.Value) (codes, attrs []int64) {
	record := func(field int64, v value.Value) {
		c, ok := irfacts.Unwrap(v).(*constant.Int)
		if !ok || !c.X.IsInt64() {
			return
		}
		if field == 4 {
			codes = append(codes, c.X.Int64())
		} else if field == 5 {
			attrs = append(attrs, c.X.Int64())
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			st, ok := inst.(*ir.InstStore)
			if !ok {
				continue
			}
			dst := irfacts.Unwrap(st.Dst)
			if irutil.StripCasts(dst) == p && typeanalysis.IsFlangDescriptor(st.Src.Type()) {
				seen := map[int64]bool{}
				v := irfacts.Unwrap(st.Src)
				for {
					iv, ok := v.(*ir.InstInsertValue)
					if !ok {
						break
					}
					if len(iv.Indices) == 1 && !seen[int64(iv.Indices[0])] {
						seen[int64(iv.Indices[0])] = true
						record(int64(iv.Indices[0]), iv.Elem)
					}
					v = irfacts.Unwrap(iv.X)
				}
				if cs, ok := v.(*constant.Struct); ok && len(cs.Fields) > 5 {
					for _, k := range []int64{4, 5} {
						if !seen[k] {
							record(k, cs.Fields[k])
						}
					}
				}
				continue
			}
			g, ok := dst.(*ir.InstGetElementPtr)
			if !ok || irutil.StripCasts(g.Src) != p || !typeanalysis.IsFlangDescriptor(g.ElemType) || len(g.Indices) != 2 {
				continue
			}
			if k, ok := irfacts.Unwrap(g.Indices[1]).(*constant.Int); ok && k.X.IsInt64() {
				record(k.X.Int64(), st.Src)
			}
		}
	}
	return codes, attrs
}
