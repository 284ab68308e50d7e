package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The Fortran runtime's whole-array reductions of real arrays,
//
//	SumReal8(const Descriptor &a, const char *file, int line, int dim, const Descriptor *mask)
//	DotProductReal8(const Descriptor &x, const Descriptor &y, const char *file, int line)
//	MaxvalReal8, MinvalReal8 (as SumReal8)
//
// (and their Real4 twins), which flang-16 calls for sum(v), maxval(v),
// minval(v) and dot_product(x, y) of assumed-shape arrays and sections
// (it inlines real DOT_PRODUCT itself: that rule serves calls from C), get derivative
// rules made as custom derivatives (Custom) of generated functions: the
// primal call stays the runtime's (its compensated sum is the program's
// result).
//
// A descriptor (flang's ISO_Fortran_binding.h CFI_cdesc_t, as flang-16
// builds boxes in the IR: { T*, i64, i32, i8, i8, i8, i8, [rank x [3 x i64]] })
// is read by byte offset: base_addr at 0, version at 16, rank at 20, type
// at 21 (27 float, 28 double), then per dimension at 24 + 24k its lower
// bound, extent (+8) and byte stride (+16). The shape is read from the
// primal descriptor only; the shadow descriptor gives just its base
// address, the shadow array having the primal's layout. A shadow base
// equal to the primal's (run-time activity: memory without derivatives)
// carries none.
//
// Reverse: the augmented forward records the shadow base and the shape
// (a copy of the descriptor with the shadow's base), dot_product also the
// elements of both vectors, so that the reverse reads nothing the program
// may change between the sweeps (a descriptor refilled in a loop); the
// gradient adds the result's adjoint to every element's shadow (dot:
// adj*y into dx, adj*x into dy) and frees the record. Forward: the tangent
// is the sum of the shadows' elements (dot: dx·y + x·dy).
//
// MAXVAL and MINVAL: fortranextrema.go. The array assignment
// (_FortranAAssign, copy-in and copy-out of sections): fortranassign.go.
//
// Only the whole-array reduction without mask is differentiated: a call with a
// DIM other than a constant 0 or a mask that is not a null constant stops
// the link (fortranReductionStop). An element type other than the
// routine's (dot_product of a real(4) and a real(8) vector goes to
// DotProductReal8) aborts at run time with a message.

// fortranReducePrefix begins the names of the generated functions.
const fortranReducePrefix = "__gozyme_fortran_r_"

// fortranReduction describes one runtime routine.
type fortranReduction struct {
	dot  bool
	ext  int // MAXVAL (1), MINVAL (-1)
	elem *types.FloatType
	code int64 // the descriptor's type code of elem
}

var fortranReductions = map[string]fortranReduction{
	"_FortranASumReal8":        {false, 0, types.Double, 28},
	"_FortranASumReal4":        {false, 0, types.Float, 27},
	"_FortranADotProductReal8": {true, 0, types.Double, 28},
	"_FortranADotProductReal4": {true, 0, types.Float, 27},
	"_FortranAMaxvalReal8":     {false, 1, types.Double, 28},
	"_FortranAMaxvalReal4":     {false, 1, types.Float, 27},
	"_FortranAMinvalReal8":     {false, -1, types.Double, 28},
	"_FortranAMinvalReal4":     {false, -1, types.Float, 27},
}

// withFortranReductions returns user's custom derivatives plus generated
// ones for the reductions m declares (without a body, without a user's
// rule, with the runtime's signature). user is not changed.
func withFortranReductions(m *ir.Module, user map[*ir.Func]*Custom) map[*ir.Func]*Custom {
	var out map[*ir.Func]*Custom
	for _, f := range m.Funcs {
		if len(f.Blocks) > 0 || user[f] != nil {
			continue
		}
		red, ok := fortranReductions[f.Name()]
		assign := f.Name() == fortranAssignName && fortranAssignSig(f)
		if !assign && (!ok || !fortranReductionSig(f, red)) {
			continue
		}
		if out == nil {
			out = make(map[*ir.Func]*Custom, len(user)+1)
			for k, v := range user {
				out[k] = v
			}
		}
		if assign {
			out[f] = buildFortranAssign(m, f)
		} else {
			out[f] = buildFortranReduction(m, f, red)
		}
	}
	if out == nil {
		return user
	}
	return out
}

// fortranReductionSig reports whether f has the runtime's signature: Sum
// (box*, i8*, i32, i32, box*) -> T, DotProduct (box*, box*, i8*, i32) -> T.
func fortranReductionSig(f *ir.Func, red fortranReduction) bool {
	if !types.Equal(f.Sig.RetType, red.elem) {
		return false
	}
	want := "ppiip"
	if red.dot {
		want = "pppi"
	}
	if len(f.Sig.Params) != len(want) || f.Sig.Variadic {
		return false
	}
	for i, k := range want {
		t := f.Sig.Params[i]
		if k == 'p' && !types.IsPointer(t) || k == 'i' && !types.Equal(t, types.I32) {
			return false
		}
	}
	return true
}

// fortranReductionStop is the error for an active call of a reduction
// whose form has no rule: a DIM or a mask. Nil for the forms with one and
// for other calls.
func (d *differ) fortranReductionStop(f *ir.Func, call *ir.InstCall) error {
	callee, ok := irutil.StripCasts(call.Callee).(*ir.Func)
	if !ok {
		return nil
	}
	if callee.Name() == fortranAssignName && d.custom[callee] != nil && d.custom[callee].generated() {
		return fortranAssignStop(f, call)
	}
	red, ok := fortranReductions[callee.Name()]
	if !ok || red.dot || d.custom[callee] == nil || !d.custom[callee].generated() || len(call.Args) != 5 {
		return nil
	}
	dim, isInt := irfacts.Unwrap(call.Args[3]).(*constant.Int)
	_, isNull := irfacts.Unwrap(call.Args[4]).(*constant.Null)
	if isInt && dim.X.Sign() == 0 && isNull {
		return nil
	}
	// No Callee: the linker's hint about the routine's missing bitcode
	// would not help here.
	return errorAt(f, call, "no derivative for the call to '%s' with a DIM or MASK argument (sum(a, dim=...), sum(a, mask=...), maxval, minval alike): gozyme differentiates only the whole-array reduction without mask; write the reduction as a loop, or give it a custom derivative", callee.Name())
}

// generated reports a Custom made by buildFortranReduction.
func (c *Custom) generated() bool {
	return c.Augment != nil && c.Augment.Linkage == enum.LinkageInternal && strings.HasPrefix(c.Augment.Name(), fortranReducePrefix)
}

// shadowedParams are new parameters for a rule of f: f's own, each pointer
// followed by its shadow (customArgs).
func shadowedParams(f *ir.Func) []*ir.Param {
	var ps []*ir.Param
	for i, t := range f.Sig.Params {
		ps = append(ps, ir.NewParam(fmt.Sprintf("a%d", i), t))
		if types.IsPointer(t) {
			ps = append(ps, ir.NewParam(fmt.Sprintf("s%d", i), t))
		}
	}
	return ps
}

// buildFortranReduction makes the augmented forward, gradient and
// forward derivative of runtime routine f.
func buildFortranReduction(m *ir.Module, f *ir.Func, red fortranReduction) *Custom {
	base := fortranReducePrefix + f.Name()[len("_FortranA"):]
	params := func() []*ir.Param { return shadowedParams(f) }
	h := &fredHelpers{m: m, red: red, name: f.Name()}
	aug := m.NewFunc(base+"_aug", types.I8Ptr, params()...)
	gps := append(params(), ir.NewParam("d", red.elem), ir.NewParam("tape", types.I8Ptr))
	grad := m.NewFunc(base+"_grad", types.Void, gps...)
	fwd := m.NewFunc(base+"_fwd", red.elem, params()...)
	for _, g := range []*ir.Func{aug, grad, fwd} {
		g.Linkage = enum.LinkageInternal
	}
	switch {
	case red.dot:
		h.dotAug(aug)
		h.dotGrad(grad)
		h.dotFwd(fwd)
	case red.ext != 0:
		h.extAug(aug)
		h.extGrad(grad)
		h.extFwd(fwd)
	default:
		h.sumAug(aug)
		h.sumGrad(grad)
		h.sumFwd(fwd)
	}
	return &Custom{Augment: aug, Gradient: grad, Forward: fwd}
}

// fredHelpers builds the bodies for one routine.
type fredHelpers struct {
	m    *ir.Module
	red  fortranReduction
	name string
}

// fb is a function being built: its entry (for slots) and current block.
type fb struct {
	f     *ir.Func
	entry *ir.Block
	b     *ir.Block
}

func newFB(f *ir.Func) *fb {
	e := f.NewBlock("entry")
	return &fb{f: f, entry: e, b: e}
}

func i64c(v int64) constant.Constant { return constant.NewInt(types.I64, v) }

// bytes is p (any pointer) as an i8*.
func (x *fb) bytes(p value.Value) value.Value {
	if types.Equal(p.Type(), types.I8Ptr) {
		return p
	}
	return x.b.NewBitCast(p, types.I8Ptr)
}

// at is the i8* p + off.
func (x *fb) at(p value.Value, off value.Value) value.Value {
	return x.b.NewGetElementPtr(types.I8, x.bytes(p), off)
}

// load reads a t at byte offset off from p.
func (x *fb) load(t types.Type, p value.Value, off value.Value) value.Value {
	return x.b.NewLoad(t, x.b.NewBitCast(x.at(p, off), types.NewPointer(t)))
}

// store writes v at byte offset off from p.
func (x *fb) store(v value.Value, p value.Value, off value.Value) {
	x.b.NewStore(v, x.b.NewBitCast(x.at(p, off), types.NewPointer(v.Type())))
}

// slot is a stack slot of t in the entry, holding init.
func (x *fb) slot(t types.Type, init value.Value) value.Value {
	a := ir.NewAlloca(t)
	x.entry.Insts = append([]ir.Instruction{a}, x.entry.Insts...)
	x.b.NewStore(init, a)
	return a
}

// ifThen runs body where cond holds.
func (x *fb) ifThen(cond value.Value, body func()) {
	then, next := x.f.NewBlock(""), x.f.NewBlock("")
	x.b.NewCondBr(cond, then, next)
	x.b = then
	body()
	x.b.NewBr(next)
	x.b = next
}

// ifNonNull runs body where pointer p (an i8*) is not null.
func (x *fb) ifNonNull(p value.Value, body func()) {
	x.ifThen(x.b.NewICmp(enum.IPredNE, p, constant.NewNull(types.I8Ptr)), body)
}

// descSize is the bytes of descriptor desc: its 24-byte header and 24
// bytes per dimension.
func (x *fb) descSize(desc value.Value) value.Value {
	return x.b.NewAdd(i64c(24), x.b.NewMul(x.rank(desc), i64c(24)))
}

// loop runs body(i) for i from 0 to n-1 (none where n <= 0).
func (x *fb) loop(n value.Value, body func(i value.Value)) {
	pre := x.b
	head, bodyB, exit := x.f.NewBlock(""), x.f.NewBlock(""), x.f.NewBlock("")
	pre.NewBr(head)
	i := head.NewPhi(ir.NewIncoming(i64c(0), pre))
	head.NewCondBr(head.NewICmp(enum.IPredSLT, i, n), bodyB, exit)
	x.b = bodyB
	body(i)
	next := x.b.NewAdd(i, i64c(1))
	i.Incs = append(i.Incs, ir.NewIncoming(next, x.b))
	x.b.NewBr(head)
	x.b = exit
}

// descShadowBase is the base address of shadow descriptor s, null where s
// is null or its base is the primal descriptor p's (no derivatives).
func (x *fb) descShadowBase(p, s value.Value) value.Value {
	out := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	x.ifNonNull(x.bytes(s), func() {
		sb := x.load(types.I8Ptr, s, i64c(0))
		pb := x.load(types.I8Ptr, p, i64c(0))
		x.b.NewStore(x.b.NewSelect(x.b.NewICmp(enum.IPredEQ, sb, pb), constant.NewNull(types.I8Ptr), sb), out)
	})
	return x.b.NewLoad(types.I8Ptr, out)
}

// rank is descriptor p's rank as an i64.
func (x *fb) rank(p value.Value) value.Value {
	return x.b.NewZExt(x.load(types.I8, p, i64c(20)), types.I64)
}

// checkType aborts with a message where descriptor p is not one this
// layout reads (its version is not flang's 20180515, its rank above 15)
// or its element type is not the routine's.
func (h *fredHelpers) checkType(x *fb, p value.Value) {
	code := x.load(types.I8, p, i64c(21))
	var bad value.Value = x.b.NewICmp(enum.IPredNE, code, constant.NewInt(types.I8, h.red.code))
	bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredNE, x.load(types.I32, p, i64c(16)), constant.NewInt(types.I32, cfiVersion)))
	bad = x.b.NewOr(bad, x.b.NewICmp(enum.IPredUGT, x.rank(p), i64c(15)))
	x.ifThen(bad, func() {
		x.b.NewCall(h.badType())
	})
}

// cfiVersion is the version flang-16's descriptors carry (CFI_VERSION).
const cfiVersion = 20180515

// badType returns (building once) the function that reports an element
// type checkType refuses and aborts.
func (h *fredHelpers) badType() *ir.Func {
	msg := fmt.Sprintf("gozyme: the derivative of '%s' was given an array descriptor it cannot read (a version other than %d, a rank above 15) or whose element type is not the routine's own (type code other than %d)\n", h.name, cfiVersion, h.red.code)
	return fortranAbort(h.m, "badtype_"+h.name, msg)
}

// walk returns (building once) the recursive helper over the elements of
// an array of any rank: add (dims, k, p, d) adds d to every element
// below dimension k from p; sum (dims, k, p) returns their sum. dims
// points to a descriptor's dimensions (24 bytes each: lower bound,
// extent, byte stride).
func (h *fredHelpers) walk(add bool) *ir.Func {
	t := h.red.elem
	name := "__gozyme_fortran_r_sum_" + rules.TypeSuffix(t)
	if add {
		name = "__gozyme_fortran_r_add_" + rules.TypeSuffix(t)
	}
	for _, f := range h.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	dims, k, p := ir.NewParam("dims", types.I8Ptr), ir.NewParam("k", types.I64), ir.NewParam("p", types.I8Ptr)
	ps := []*ir.Param{dims, k, p}
	ret := types.Type(t)
	var d *ir.Param
	if add {
		d = ir.NewParam("d", t)
		ps = append(ps, d)
		ret = types.Void
	}
	f := h.m.NewFunc(name, ret, ps...)
	f.Linkage = enum.LinkageInternal
	x := newFB(f)
	leaf, rec := f.NewBlock("leaf"), f.NewBlock("rec")
	x.b.NewCondBr(x.b.NewICmp(enum.IPredSLT, k, i64c(0)), leaf, rec)
	x.b = leaf
	v := x.load(t, p, i64c(0))
	if add {
		x.store(x.b.NewFAdd(v, d), p, i64c(0))
		x.b.NewRet(nil)
	} else {
		x.b.NewRet(v)
	}
	x.b = rec
	off := x.b.NewMul(k, i64c(24))
	ext := x.load(types.I64, dims, x.b.NewAdd(off, i64c(8)))
	sm := x.load(types.I64, dims, x.b.NewAdd(off, i64c(16)))
	km1 := x.b.NewSub(k, i64c(1))
	var acc value.Value
	if !add {
		acc = x.slot(t, rules.FloatConst(t, 0))
	}
	x.loop(ext, func(i value.Value) {
		q := x.at(p, x.b.NewMul(i, sm))
		if add {
			x.b.NewCall(f, dims, km1, q, d)
			return
		}
		s := x.b.NewCall(f, dims, km1, q)
		x.b.NewStore(x.b.NewFAdd(x.b.NewLoad(t, acc), s), acc)
	})
	if add {
		x.b.NewRet(nil)
	} else {
		x.b.NewRet(x.b.NewLoad(t, acc))
	}
	return f
}

// copyDesc copies descriptor desc (size bytes: descSize) to dst with its
// base address replaced by base (a shadow's or a tangent's).
func (h *fredHelpers) copyDesc(x *fb, dst, desc, base, size value.Value) {
	memcpy := rules.Declare(h.m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, types.I8Ptr, types.I8Ptr, types.I64, types.I1)
	x.b.NewCall(memcpy, dst, x.bytes(desc), size, constant.False)
	x.store(base, dst, i64c(0))
}

// sumAug: (a, sa, file, sfile, line, dim, mask, smask) -> the record: a
// copy of a's descriptor with the shadow's base, null without a shadow.
func (h *fredHelpers) sumAug(f *ir.Func) {
	x := newFB(f)
	a, sa := f.Params[0], f.Params[1]
	h.checkType(x, a)
	sb := x.descShadowBase(a, sa)
	out := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	x.ifNonNull(sb, func() {
		size := x.descSize(a)
		rec := x.b.NewCall(rules.Declare(h.m, "malloc", types.I8Ptr, types.I64), size)
		h.copyDesc(x, rec, a, sb, size)
		x.b.NewStore(rec, out)
	})
	x.b.NewRet(x.b.NewLoad(types.I8Ptr, out))
}

// sumGrad: (..., d, record): every element's shadow += d.
func (h *fredHelpers) sumGrad(f *ir.Func) {
	x := newFB(f)
	d, rec := f.Params[len(f.Params)-2], f.Params[len(f.Params)-1]
	x.ifNonNull(rec, func() {
		k := x.b.NewSub(x.rank(rec), i64c(1))
		x.b.NewCall(h.walk(true), x.at(rec, i64c(24)), k, x.load(types.I8Ptr, rec, i64c(0)), d)
		x.b.NewCall(rules.Declare(h.m, "free", types.Void, types.I8Ptr), rec)
	})
	x.b.NewRet(nil)
}

// sumFwd: (a, ta, ...) -> the sum of ta's elements.
func (h *fredHelpers) sumFwd(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	a, ta := f.Params[0], f.Params[1]
	h.checkType(x, a)
	tb := x.descShadowBase(a, ta)
	out := x.slot(t, rules.FloatConst(t, 0))
	x.ifNonNull(tb, func() {
		k := x.b.NewSub(x.rank(a), i64c(1))
		x.b.NewStore(x.b.NewCall(h.walk(false), x.at(a, i64c(24)), k, tb), out)
	})
	x.b.NewRet(x.b.NewLoad(t, out))
}

// The dot_product record: sx base, sy base, n, x's and y's byte strides
// (8 bytes each), then x's n elements and y's, densely.
const dotHeader = 40

// dotAug: (x, sx, y, sy, file, sfile, line) -> the record, null where
// neither vector has a shadow.
func (h *fredHelpers) dotAug(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	es := i64c(int64(floatBits(t) / 8))
	xd, sx, yd, sy := f.Params[0], f.Params[1], f.Params[2], f.Params[3]
	h.checkType(x, xd)
	h.checkType(x, yd)
	sxb, syb := x.descShadowBase(xd, sx), x.descShadowBase(yd, sy)
	out := x.slot(types.I8Ptr, constant.NewNull(types.I8Ptr))
	null := constant.NewNull(types.I8Ptr)
	any := x.b.NewOr(x.b.NewICmp(enum.IPredNE, sxb, null), x.b.NewICmp(enum.IPredNE, syb, null))
	x.ifThen(any, func() {
		n := x.load(types.I64, xd, i64c(32))
		n = x.b.NewSelect(x.b.NewICmp(enum.IPredSLT, n, i64c(0)), i64c(0), n)
		smx, smy := x.load(types.I64, xd, i64c(40)), x.load(types.I64, yd, i64c(40))
		xb, yb := x.load(types.I8Ptr, xd, i64c(0)), x.load(types.I8Ptr, yd, i64c(0))
		size := x.b.NewAdd(i64c(dotHeader), x.b.NewMul(x.b.NewMul(n, i64c(2)), es))
		rec := x.b.NewCall(rules.Declare(h.m, "malloc", types.I8Ptr, types.I64), size)
		x.store(sxb, rec, i64c(0))
		x.store(syb, rec, i64c(8))
		x.store(n, rec, i64c(16))
		x.store(smx, rec, i64c(24))
		x.store(smy, rec, i64c(32))
		x.loop(n, func(i value.Value) {
			xv := x.load(t, xb, x.b.NewMul(i, smx))
			yv := x.load(t, yb, x.b.NewMul(i, smy))
			x.store(xv, rec, x.b.NewAdd(i64c(dotHeader), x.b.NewMul(i, es)))
			x.store(yv, rec, x.b.NewAdd(i64c(dotHeader), x.b.NewMul(x.b.NewAdd(n, i), es)))
		})
		x.b.NewStore(rec, out)
	})
	x.b.NewRet(x.b.NewLoad(types.I8Ptr, out))
}

// dotGrad: (..., d, record): dx[i] += d*y[i], dy[i] += d*x[i].
func (h *fredHelpers) dotGrad(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	es := i64c(int64(floatBits(t) / 8))
	d, rec := f.Params[len(f.Params)-2], f.Params[len(f.Params)-1]
	x.ifNonNull(rec, func() {
		n := x.load(types.I64, rec, i64c(16))
		for side := 0; side < 2; side++ {
			sb := x.load(types.I8Ptr, rec, i64c(int64(8*side)))
			sm := x.load(types.I64, rec, i64c(int64(24+8*side)))
			x.ifNonNull(sb, func() {
				x.loop(n, func(i value.Value) {
					j := i
					if side == 0 {
						j = x.b.NewAdd(n, i)
					}
					v := x.load(t, rec, x.b.NewAdd(i64c(dotHeader), x.b.NewMul(j, es)))
					off := x.b.NewMul(i, sm)
					old := x.load(t, sb, off)
					x.store(x.b.NewFAdd(old, x.b.NewFMul(d, v)), sb, off)
				})
			})
		}
		x.b.NewCall(rules.Declare(h.m, "free", types.Void, types.I8Ptr), rec)
	})
	x.b.NewRet(nil)
}

// dotFwd: (x, tx, y, ty, ...) -> tx·y + x·ty.
func (h *fredHelpers) dotFwd(f *ir.Func) {
	x := newFB(f)
	t := h.red.elem
	xd, tx, yd, ty := f.Params[0], f.Params[1], f.Params[2], f.Params[3]
	h.checkType(x, xd)
	h.checkType(x, yd)
	txb, tyb := x.descShadowBase(xd, tx), x.descShadowBase(yd, ty)
	null := constant.NewNull(types.I8Ptr)
	hasX, hasY := x.b.NewICmp(enum.IPredNE, txb, null), x.b.NewICmp(enum.IPredNE, tyb, null)
	n := x.load(types.I64, xd, i64c(32))
	smx, smy := x.load(types.I64, xd, i64c(40)), x.load(types.I64, yd, i64c(40))
	xb, yb := x.load(types.I8Ptr, xd, i64c(0)), x.load(types.I8Ptr, yd, i64c(0))
	// A missing tangent reads the primal instead, times zero.
	txp, typ := x.b.NewSelect(hasX, txb, xb), x.b.NewSelect(hasY, tyb, yb)
	acc := x.slot(t, rules.FloatConst(t, 0))
	zero := rules.FloatConst(t, 0)
	x.loop(n, func(i value.Value) {
		ox, oy := x.b.NewMul(i, smx), x.b.NewMul(i, smy)
		xv, yv := x.load(t, xb, ox), x.load(t, yb, oy)
		dxv := x.b.NewSelect(hasX, x.load(t, txp, ox), zero)
		dyv := x.b.NewSelect(hasY, x.load(t, typ, oy), zero)
		term := x.b.NewFAdd(x.b.NewFMul(dxv, yv), x.b.NewFMul(xv, dyv))
		x.b.NewStore(x.b.NewFAdd(x.b.NewLoad(t, acc), term), acc)
	})
	x.b.NewRet(x.b.NewLoad(t, acc))
}
