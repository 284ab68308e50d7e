package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The rewrite of one function's body (see retype.go). Each integer value
// the analysis proves to hold floats (or pointers) gets a float (pointer)
// twin defined the same way — a load of the float type through a cast
// pointer, a phi or select of the twins of its operands, a call of a
// function returning the float, fabs/fneg for the sign-bit masks — and the
// integer itself becomes a cast of its twin, for the uses that still want
// an integer. Stores of such values store the twin, calls pass it. Then
// casts of casts fold (bitcast of a bitcast back to the first type is the
// first value), so that no integer stands between a float's definition and
// its float uses, and casts left without uses go. Loads, stores and
// bitcasts of float and double preserve every bit on x86-64, so the
// program computes exactly what it did.

// bodyRewrite is the state of one function's rewrite.
type bodyRewrite struct {
	rt *retyper
	f  *ir.Func
	// twin is the float (pointer) version of each retyped integer value;
	// back is the cast of the twin to the integer type, which takes the
	// integer value's place.
	twin, back map[value.Value]value.Value
	repl       map[value.Value]value.Value
	// tails are casts to place at the end of a block (phi incomings).
	tails map[*ir.Block][]ir.Instruction
	// added are the casts the rewrite made (removed again when unused).
	added   map[ir.Instruction]bool
	changed bool
}

func (rt *retyper) rewriteBody(f *ir.Func) error {
	w := &bodyRewrite{rt: rt, f: f, twin: map[value.Value]value.Value{}, back: map[value.Value]value.Value{},
		repl: map[value.Value]value.Value{}, tails: map[*ir.Block][]ir.Instruction{}, added: map[ir.Instruction]bool{}}
	// Twins first (phis and selects may use twins defined later in the
	// block list), then the blocks rebuilt around them.
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			w.plan(inst)
		}
	}
	for _, b := range f.Blocks {
		w.rebuild(b)
	}
	for b, casts := range w.tails {
		b.Insts = append(b.Insts, casts...)
	}
	if len(w.repl) > 0 {
		w.changed = true
		remapFunc(f, func(v value.Value) value.Value {
			if n, ok := w.repl[v]; ok {
				return n
			}
			return v
		})
	}
	w.foldCasts()
	w.removeDeadCasts()
	if w.changed {
		rt.rewritten[f] = true
	}
	w.recordOpaque()
	return nil
}

// plan creates the twin of an integer definition the analysis proves to
// hold floats (or pointers), with the operands filled in by rebuild.
func (w *bodyRewrite) plan(inst ir.Instruction) {
	v, ok := inst.(value.Value)
	if !ok {
		return
	}
	switch x := inst.(type) {
	case *ir.InstLoad:
		if x.Atomic {
			return
		}
		if t := w.rt.carrierType(x); t != nil {
			ld := ir.NewLoad(t, x.Src)
			ld.Volatile, ld.Align, ld.Metadata = x.Volatile, x.Align, accessMetadata(x.Metadata)
			w.setTwin(x, ld)
		}
	case *ir.InstPhi:
		if t := w.rt.carrierType(x); t != nil {
			p := &ir.InstPhi{Typ: t}
			p.Metadata = x.Metadata
			w.setTwin(x, p)
		}
	case *ir.InstSelect:
		if t := w.rt.carrierType(x); t != nil {
			s := ir.NewSelect(x.Cond, x.ValueTrue, x.ValueFalse)
			s.Typ = t
			w.setTwin(x, s)
		}
	case *ir.InstAnd, *ir.InstOr, *ir.InstXor:
		if t := w.rt.carrierType(v); t != nil && irfacts.IsFloat(rules.ScalarOf(t)) && !packedCarrier(v, t) && signOperand(inst) != nil {
			w.setTwin(v, nil) // made in rebuild: the float operations
		}
		if t := w.rt.carrierType(v); t != nil && types.IsPointer(t) {
			if ptr, _ := w.alignDown(inst); ptr != nil {
				w.setTwin(v, nil) // made in rebuild: a getelementptr back to the boundary
			}
		}
	case *ir.InstShuffleVector:
		if t := w.rt.carrierType(v); t != nil && irfacts.IsFloat(rules.ScalarOf(t)) {
			if _, _, ok := floatLaneMask(x, t); ok {
				w.setTwin(v, nil) // made in rebuild: the shuffle of float lanes
			}
		}
	case *ir.InstCall:
		if g := w.retypedCallee(x); g != nil && !types.Equal(g.Sig.RetType, x.Typ) {
			w.setTwin(x, nil)
		}
	case *ir.InstTrunc:
		if _, _, ok := w.packedLane(x); ok {
			w.setTwin(v, nil) // made in rebuild: the lane's extractelement
		}
	case *ir.InstAdd, *ir.InstSub:
		if t := w.rt.carrierType(v); t != nil && types.IsPointer(t) {
			if ptr, _, _ := w.pointerArith(inst); ptr != nil {
				w.setTwin(v, nil) // made in rebuild: a getelementptr
			}
		}
	}
}

// pointerArith splits integer arithmetic on a pointer's bits (ptrtoint,
// add, inttoptr) into the pointer operand and the byte offset added
// (subtracted when neg), nil when neither operand alone holds a pointer.
func (w *bodyRewrite) pointerArith(inst ir.Instruction) (ptr, off value.Value, neg bool) {
	var x, y value.Value
	switch b := inst.(type) {
	case *ir.InstAdd:
		x, y = b.X, b.Y
		if !w.rt.ta.IsPointerBits(x) && w.rt.ta.IsPointerBits(y) {
			x, y = y, x
		}
	case *ir.InstSub:
		x, y, neg = b.X, b.Y, true
	default:
		return nil, nil, false
	}
	if !w.rt.ta.IsPointerBits(x) || w.rt.ta.IsPointerBits(y) {
		return nil, nil, false
	}
	return x, y, neg
}

// setTwin records a twin (nil: made later) and the integer cast back.
func (w *bodyRewrite) setTwin(v value.Value, twin value.Value) {
	w.twin[v] = twin
	if twin != nil {
		w.back[v] = backCast(twin, v.Type())
	}
}

// retypedCallee is the function with float parameters or return a call of
// the region now calls instead of its callee, nil when unchanged.
func (w *bodyRewrite) retypedCallee(c *ir.InstCall) *ir.Func {
	f, ok := c.Callee.(*ir.Func)
	if !ok {
		return nil
	}
	cp := w.rt.copies[f]
	if cp == nil {
		return nil
	}
	return w.rt.sigs[cp]
}

// rebuild rewrites the instructions of b around the planned twins.
func (w *bodyRewrite) rebuild(b *ir.Block) {
	var out, backs []ir.Instruction
	emit := func(insts ...ir.Instruction) { out = append(out, insts...) }
	nphi := 0
	for _, inst := range b.Insts {
		if _, ok := inst.(*ir.InstPhi); ok {
			nphi++
		}
	}
	for i, inst := range b.Insts {
		v, _ := inst.(value.Value)
		switch x := inst.(type) {
		case *ir.InstLoad:
			if ld, ok := w.twin[x].(*ir.InstLoad); ok {
				ld.Src = w.castPtr(x.Src, ld.ElemType, emit)
				emit(ld, w.back[x].(ir.Instruction))
				w.repl[x] = w.back[x]
				continue
			}
		case *ir.InstPhi:
			if p, ok := w.twin[x].(*ir.InstPhi); ok {
				for _, in := range x.Incs {
					pred := in.Pred.(*ir.Block)
					p.Incs = append(p.Incs, ir.NewIncoming(w.asCarrier(in.X, p.Typ, func(c ...ir.Instruction) {
						w.tails[pred] = append(w.tails[pred], c...)
					}), pred))
				}
				emit(p)
				backs = append(backs, w.back[x].(ir.Instruction))
				w.repl[x] = w.back[x]
				if i == nphi-1 {
					emit(backs...)
					backs = nil
				}
				continue
			}
		case *ir.InstSelect:
			if s, ok := w.twin[x].(*ir.InstSelect); ok {
				s.ValueTrue = w.asCarrier(x.ValueTrue, s.Typ, emit)
				s.ValueFalse = w.asCarrier(x.ValueFalse, s.Typ, emit)
				emit(s, w.back[x].(ir.Instruction))
				w.repl[x] = w.back[x]
				continue
			}
		case *ir.InstStore:
			if w.retypeStore(x, emit) {
				continue
			}
		case *ir.InstCall:
			if g := w.retypedCallee(x); g != nil {
				w.retypeCall(x, g, emit)
				continue
			}
		}
		if v != nil {
			if tr, ok := inst.(*ir.InstTrunc); ok && w.twin[v] == nil {
				if _, planned := w.twin[v]; planned {
					w.extractLane(tr, emit)
					continue
				}
			}
			if _, planned := w.twin[v]; planned && w.twin[v] == nil {
				if ptr, a := w.alignDown(inst); ptr != nil {
					low := ir.NewAnd(ptr, constant.NewInt(types.I64, a-1))
					emit(low)
					w.pointerOffset(v, ptr, low, true, emit)
					continue
				}
			}
			if _, planned := w.twin[v]; planned && isBitwise(inst) {
				w.signOp(inst, emit)
				continue
			}
			if sh, ok := inst.(*ir.InstShuffleVector); ok && w.twin[v] == nil {
				if _, planned := w.twin[v]; planned {
					w.floatShuffle(sh, emit)
					continue
				}
			}
			if _, planned := w.twin[v]; planned && w.twin[v] == nil {
				if ptr, off, neg := w.pointerArith(inst); ptr != nil {
					w.pointerOffset(v, ptr, off, neg, emit)
					continue
				}
			}
		}
		emit(inst)
		if i == nphi-1 && len(backs) > 0 {
			emit(backs...)
			backs = nil
		}
	}
	emit(backs...)
	b.Insts = out
}

func isBitwise(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstAnd, *ir.InstOr, *ir.InstXor:
		return true
	}
	return false
}

// retypeStore stores the twin of an integer holding a float (or pointer),
// or the float a bitcast made the integer from, through a cast pointer.
func (w *bodyRewrite) retypeStore(x *ir.InstStore, emit func(...ir.Instruction)) bool {
	if x.Atomic {
		return false
	}
	t := w.rt.carrierType(x.Src)
	if t == nil {
		// A float's bits stored as an integer, whatever the analysis
		// concluded about the integer's other uses.
		if bc, ok := irfacts.Unwrap(x.Src).(*ir.InstBitCast); ok && isFloatScalarOrVector(bc.From.Type()) {
			t = bc.From.Type()
		}
	}
	if t == nil {
		return false
	}
	val := w.asCarrier(x.Src, t, emit)
	st := ir.NewStore(val, w.castPtr(x.Dst, t, emit))
	st.Volatile, st.Align, st.Metadata = x.Volatile, x.Align, accessMetadata(x.Metadata)
	emit(st)
	w.changed = true
	return true
}

// retypeCall calls the retyped function g instead of the callee: the
// arguments whose parameters became floats (pointers) are passed as
// such, and a result that became one is the call's twin.
func (w *bodyRewrite) retypeCall(x *ir.InstCall, g *ir.Func, emit func(...ir.Instruction)) {
	args := make([]value.Value, len(x.Args))
	for i, a := range x.Args {
		if i >= len(g.Params) || types.Equal(g.Params[i].Typ, a.Type()) {
			args[i] = a
			if old, ok := a.(*ir.Arg); ok {
				// g copies byval arguments itself (explicitByval).
				c := *old
				c.Attrs = withoutByval(old.Attrs)
				args[i] = &c
			}
			continue
		}
		arg := &ir.Arg{Value: w.asCarrier(a, g.Params[i].Typ, emit)}
		if old, ok := a.(*ir.Arg); ok {
			arg.Attrs = valueAttrs(old.Attrs)
		}
		args[i] = arg
	}
	c := ir.NewCall(g, args...)
	c.Tail, c.CallingConv, c.FuncAttrs, c.OperandBundles, c.Metadata = x.Tail, x.CallingConv, x.FuncAttrs, x.OperandBundles, x.Metadata
	c.FastMathFlags = x.FastMathFlags
	if types.Equal(g.Sig.RetType, x.Typ) {
		c.ReturnAttrs = x.ReturnAttrs
		emit(c)
		w.repl[x] = c
		return
	}
	w.twin[x] = c
	w.back[x] = backCast(c, x.Typ)
	emit(c, w.back[x].(ir.Instruction))
	w.repl[x] = w.back[x]
}

// floatShuffle makes a shuffle of integer lanes holding floats (SSE's
// pshufd on a float vector's bits, _mm_shuffle_epi32) the same shuffle of
// the float lanes (floatLaneMask); the integer result is the float
// result's bits.
func (w *bodyRewrite) floatShuffle(sh *ir.InstShuffleVector, emit func(...ir.Instruction)) {
	t := w.rt.carrierType(sh)
	inLen, mask, _ := floatLaneMask(sh, t)
	in := types.NewVector(inLen, rules.ScalarOf(t))
	r := ir.NewShuffleVector(w.asCarrier(sh.X, in, emit), w.asCarrier(sh.Y, in, emit), mask)
	r.Metadata = sh.Metadata
	emit(r)
	w.twin[sh] = r
	w.back[sh] = backCast(r, sh.Typ)
	emit(w.back[sh].(ir.Instruction))
	w.repl[sh] = w.back[sh]
}

// signOp makes a sign-bit mask of a float's bits a float operation:
// and with all but the sign bit is fabs, xor with the sign bit fneg, or
// with it -fabs. A vector mask may apply to some lanes only (cglm's
// _mm_xor_ps with {0, -0.f, 0, -0.f}): the other lanes are x's, picked by
// a shuffle. The integer result is the float result's bits.
func (w *bodyRewrite) signOp(inst ir.Instruction, emit func(...ir.Instruction)) {
	v := inst.(value.Value)
	t := w.rt.carrierType(v)
	x := w.asCarrier(signOperand(inst), t, emit)
	fabs := func(y value.Value) value.Value {
		c := ir.NewCall(rules.Declare(w.rt.d.m, "llvm.fabs."+rules.TypeSuffix(t), t, t), y)
		emit(c)
		return c
	}
	var r value.Value
	switch inst.(type) {
	case *ir.InstAnd:
		r = fabs(x)
	case *ir.InstXor:
		n := ir.NewFNeg(x)
		emit(n)
		r = n
	case *ir.InstOr:
		n := ir.NewFNeg(fabs(x))
		emit(n)
		r = n
	}
	if lanes := signLanesOf(inst); lanes != nil {
		// Lanes the mask leaves alone keep x.
		mask := make([]constant.Constant, len(lanes))
		for i, on := range lanes {
			k := int64(i)
			if on {
				k += int64(len(lanes))
			}
			mask[i] = constant.NewInt(types.I32, k)
		}
		sh := ir.NewShuffleVector(x, r, constant.NewVector(types.NewVector(uint64(len(lanes)), types.I32), mask...))
		emit(sh)
		r = sh
	}
	w.twin[v] = r
	w.back[v] = backCast(r, v.Type())
	emit(w.back[v].(ir.Instruction))
	w.repl[v] = w.back[v]
}

// pointerOffset makes integer arithmetic on a pointer's bits a
// getelementptr on the pointer (by bytes), so that its shadow follows;
// the integer result is the new pointer's bits.
func (w *bodyRewrite) pointerOffset(v, ptr, off value.Value, neg bool, emit func(...ir.Instruction)) {
	p := w.asCarrier(ptr, types.I8Ptr, emit)
	if neg {
		if k, ok := off.(*constant.Int); ok {
			off = constant.NewInt(k.Typ, -k.X.Int64())
		} else {
			n := ir.NewSub(constant.NewInt(off.Type().(*types.IntType), 0), off)
			emit(n)
			off = n
		}
	}
	g := ir.NewGetElementPtr(types.I8, p, off)
	emit(g)
	w.twin[v] = g
	w.back[v] = backCast(g, v.Type())
	emit(w.back[v].(ir.Instruction))
	w.repl[v] = w.back[v]
}

// signOperand is the operand a sign-bit mask applies to (nil when the
// instruction masks something else).
func signOperand(inst ir.Instruction) value.Value {
	x, y, all, ok := bitwiseOperands(inst)
	if !ok {
		return nil
	}
	for _, pair := range [][2]value.Value{{x, y}, {y, x}} {
		if _, ok := signLanes(pair[1], inst.(value.Value).Type(), all); ok {
			return pair[0]
		}
	}
	return nil
}

// signLanesOf is, for a sign-bit mask that applies to some lanes of a
// vector only, which lanes it changes; nil when it applies to all.
func signLanesOf(inst ir.Instruction) []bool {
	x, y, all, ok := bitwiseOperands(inst)
	if !ok {
		return nil
	}
	for _, c := range []value.Value{y, x} {
		if lanes, ok := signLanes(c, inst.(value.Value).Type(), all); ok {
			return lanes
		}
	}
	return nil
}

// bitwiseOperands is the operands of an and, or or xor, and whether it is
// an and (a mask keeping bits: all set but the sign clears the sign);
// ok is false for other instructions.
func bitwiseOperands(inst ir.Instruction) (x, y value.Value, and, ok bool) {
	switch b := inst.(type) {
	case *ir.InstAnd:
		return b.X, b.Y, true, true
	case *ir.InstOr:
		return b.X, b.Y, false, true
	case *ir.InstXor:
		return b.X, b.Y, false, true
	}
	return nil, nil, false, false
}

// isSignBits reports a constant (scalar or splat) that is, per element,
// the sign bit alone, or with all set every bit but the sign.
func isSignBits(c value.Value, t types.Type, all bool) bool {
	lanes, ok := signLanes(c, t, all)
	return ok && lanes == nil
}

// signLanes reports a constant that is, per element, the sign bit alone
// (with all: every bit but the sign) or, in some lanes of a vector, the
// bits that leave the lane as it is (zero; with all: every bit). lanes
// are the elements the mask changes, nil when it changes every one.
func signLanes(c value.Value, t types.Type, all bool) (lanes []bool, ok bool) {

	bits := uint64(0)
	switch tt := t.(type) {
	case *types.IntType:
		bits = tt.BitSize
	case *types.VectorType:
		if it, ok := tt.ElemType.(*types.IntType); ok {
			bits = it.BitSize
		}
	}
	if bits != 32 && bits != 64 {
		return nil, false
	}
	budget := 64
	elems, ok := constLanes(c, &budget)
	if !ok {
		return nil, false
	}
	sign := uint64(1) << (bits - 1)
	op, keep := sign, uint64(0)
	if all {
		op, keep = sign-1, sign|(sign-1)
	}
	changed := make([]bool, len(elems))
	n := 0
	for i, u := range elems {
		u &= sign | (sign - 1)
		switch {
		case u == op:
			changed[i] = true
			n++
		case u == keep && len(elems) > 1:
		default:
			return nil, false
		}
	}
	if n == 0 {
		return nil, false // a mask that changes nothing is no sign operation
	}
	if n == len(elems) {
		return nil, true
	}
	return changed, true
}
