package ad

import (
	"fmt"
	"strings"

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

// Forward mode: one pass over a copy of the function that computes, next to
// every active value, its tangent; the shadow of a pointer points at the
// tangents of the memory it points at. Nothing is cached: the tangent rules
// use values the same pass has just computed. Derivative rules come from
// the same table as reverse mode (tangent = Σ ∂f/∂x_i · dx_i).
//
// The generated function takes every Dup parameter followed by its tangent
// (or shadow) and returns {result, tangent of result} (the result alone when
// it carries no tangent, nothing for void).
//
// Batch mode (width N > 1) carries N tangents of every value in the same
// sweep: the primal is computed once and every tangent rule is emitted once
// per lane, from the same rules. Each Dup parameter is then followed by its
// N tangents, and the result's tangents come back as {result, [N x T]}.
type forwardGen struct {
	d     *differ
	m     *ir.Module
	f     *ir.Func
	acts  []activity.Activity
	width int
	act   *activity.Info
	g     *ir.Func
	vmap  map[value.Value]value.Value   // primal -> clone
	lanes []map[value.Value]value.Value // per lane: primal -> tangent (floats) or shadow (pointers)
	tan   map[value.Value]value.Value   // the lane being emitted
	blk   map[*ir.Block]*ir.Block
	ret   types.Type   // what g returns
	ids   loopIDCopies // source loop ID -> its copy in g (loophints.go)
	// errMode: the tangents are error bounds (__enzyme_error_estimate,
	// errorest.go).
	errMode bool
	// positions: each instruction's place in f, for the error logger
	// (errorest.go), built on first use.
	positions map[ir.Instruction]instPlace
}

// forwardName is the generated forward function's name.
func forwardName(f *ir.Func, acts []activity.Activity, width int, errMode bool) string {
	prefix := "__gozyme_fwd_"
	if errMode {
		prefix = "__gozyme_fwderr_"
	}
	name := derivativeName(prefix, f, acts)
	if width > 1 {
		name += fmt.Sprintf("_w%d", width)
	}
	return name
}

// derivativeName names a generated derivative of f: prefix, f's name and
// one letter per parameter activity.
func derivativeName(prefix string, f *ir.Func, acts []activity.Activity) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	sb.WriteString(f.Name())
	sb.WriteByte('_')
	for _, a := range acts {
		sb.WriteByte("codn"[a])
	}
	return sb.String()
}

// remapClone points the operands of a cloned instruction at the clone's
// values (mapValue), and a cloned phi's incoming blocks at the clone's
// blocks (mapBlock).
func remapClone(inst ir.Instruction, mapValue func(value.Value) value.Value, mapBlock func(*ir.Block) *ir.Block) {
	if p, ok := inst.(*ir.InstPhi); ok {
		for _, in := range p.Incs {
			in.X = mapValue(in.X)
			in.Pred = mapBlock(in.Pred.(*ir.Block))
		}
		return
	}
	irutil.RemapOperands(inst, mapValue)
}

// forward returns the forward-mode derivative of f for the activities and
// batch width, generating it on first use (its shell is registered first:
// recursion). errMode asks for error bounds instead of tangents
// (errorest.go).
func (d *differ) forward(f *ir.Func, acts []activity.Activity, width int, errMode bool) (*forwardGen, error) {
	name := forwardName(f, acts, width, errMode)
	if fg, ok := d.fwds[name]; ok {
		return fg, nil
	}
	pf, err := d.prepared(f)
	if err != nil {
		return nil, err
	}
	if err := d.omp.bad[pf]; err != nil {
		return nil, err
	}
	fg := &forwardGen{d: d, m: d.m, f: pf, acts: acts, width: width, vmap: map[value.Value]value.Value{},
		blk: map[*ir.Block]*ir.Block{}, ids: loopIDCopies{}, errMode: errMode}
	for k := 0; k < width; k++ {
		fg.lanes = append(fg.lanes, map[value.Value]value.Value{})
	}
	fg.tan = fg.lanes[0]
	fg.act = d.forwardActivity(pf, acts)
	if err := d.unmetError(pf, fg.act, false); err != nil {
		return nil, err
	}
	d.noteAnalysis(pf, fg.act)
	if err := checkCmpXchg(pf, fg.act); err != nil {
		return nil, err
	}
	if err := d.checkFloatPuns(pf, fg.act); err != nil {
		return nil, err
	}
	if err := d.checkOpaqueBits(pf, fg.act, false); err != nil {
		return nil, err
	}
	if err := d.checkPointerBitsLost(pf, fg.act); err != nil {
		return nil, err
	}
	var params []*ir.Param
	for i, p := range pf.Params {
		np := ir.NewParam("", p.Typ)
		params = append(params, np)
		fg.vmap[p] = np
		if acts[i] == activity.Dup || acts[i] == activity.DupNoNeed {
			for _, lane := range fg.lanes {
				tp := ir.NewParam("", p.Typ)
				params = append(params, tp)
				lane[p] = tp
			}
		}
	}
	rt := pf.Sig.RetType
	switch {
	case (irfacts.CarriesFloat(rt) || types.IsPointer(rt) || irfacts.HasPointerField(rt)) && width > 1:
		fg.ret = types.NewStruct(rt, types.NewArray(uint64(width), rt))
	case irfacts.CarriesFloat(rt) || types.IsPointer(rt) || irfacts.HasPointerField(rt):
		fg.ret = types.NewStruct(rt, rt)
	default:
		fg.ret = rt
	}
	fg.g = d.m.NewFunc(name, fg.ret, params...)
	fg.g.Linkage = enum.LinkageInternal
	inheritTarget(fg.g, pf)
	d.fwds[name] = fg
	if err := fg.generate(); err != nil {
		return nil, err
	}
	return fg, nil
}

// forwardActivity is the activity analysis of forward mode for f (the
// prepared function) and its parameters' activities.
func (d *differ) forwardActivity(pf *ir.Func, acts []activity.Activity) *activity.Info {
	rt := pf.Sig.RetType
	return d.analyzeActivity(pf, forwardSeeds(pf, acts), irfacts.CarriesFloat(rt) || types.IsPointer(rt), types.IsPointer(rt) || irfacts.HasPointerField(rt))
}

// forwardSeeds maps forward-mode activities onto the activity analysis:
// a duplicated float is a varied input, a duplicated pointer is shadowed.
func forwardSeeds(f *ir.Func, acts []activity.Activity) []activity.Activity {
	out := make([]activity.Activity, len(acts))
	for i, p := range f.Params {
		if (acts[i] == activity.Dup || acts[i] == activity.DupNoNeed) && irfacts.CarriesFloat(p.Typ) {
			out[i] = activity.Out
		} else {
			out[i] = acts[i]
		}
	}
	return out
}

func (fg *forwardGen) generate() error {
	f := fg.f
	cfg, err := irutil.NewCFG(f)
	if err != nil {
		return errorAt(f, nil, "%v", err)
	}
	for _, b := range cfg.RPO {
		nb := fg.g.NewBlock("")
		fg.blk[b] = nb
		fg.vmap[b] = nb
	}
	// Tangent phis first: tangents of later values flow into them.
	for _, b := range cfg.RPO {
		for _, inst := range b.Insts {
			if p, ok := inst.(*ir.InstPhi); ok && fg.needsTangent(p) {
				for _, lane := range fg.lanes {
					lane[p] = &ir.InstPhi{Typ: p.Typ}
				}
			}
		}
	}
	for _, b := range cfg.RPO {
		nb := fg.blk[b]
		var phis, rest []ir.Instruction
		for _, inst := range b.Insts {
			if isDebugIntrinsic(inst) {
				continue
			}
			if p, ok := inst.(*ir.InstPhi); ok {
				c, _ := irutil.CloneInst(p, func(v value.Value) value.Value { return v })
				fg.vmap[p] = c.(value.Value)
				phis = append(phis, c)
				if fg.needsTangent(p) {
					for _, lane := range fg.lanes {
						phis = append(phis, lane[p].(ir.Instruction))
					}
				}
				continue
			}
			insts, err := fg.instruction(inst)
			if err != nil {
				return err
			}
			rest = append(rest, insts...)
		}
		nb.Insts = append(phis, rest...)
	}
	// Operands of clones refer to primal values until now; phis get their
	// incomings (and tangent incomings) here.
	for _, b := range cfg.RPO {
		nb := fg.blk[b]
		for _, inst := range nb.Insts {
			remapClone(inst, fg.mapValue, func(b *ir.Block) *ir.Block { return fg.blk[b] })
		}
		for _, inst := range b.Insts {
			p, ok := inst.(*ir.InstPhi)
			if !ok {
				continue
			}
			if !fg.needsTangent(p) {
				continue
			}
			for _, lane := range fg.lanes {
				fg.tan = lane
				tp := lane[p].(*ir.InstPhi)
				for _, in := range p.Incs {
					t, err := fg.tangentOf(p, in.X)
					if err != nil {
						return err
					}
					tp.Incs = append(tp.Incs, ir.NewIncoming(t, fg.blk[in.Pred.(*ir.Block)]))
				}
			}
		}
		if err := fg.terminator(b); err != nil {
			return err
		}
	}
	setMinimalAlignment(fg.g)
	return nil
}

func zeroTangent(t value.Value) bool { return rules.ZeroTangent(t) }

func (fg *forwardGen) mapValue(v value.Value) value.Value {
	if x, ok := fg.vmap[v]; ok {
		return x
	}
	return v
}

// needsTangent: active floats, and pointers with shadows.
func (fg *forwardGen) needsTangent(v value.Value) bool {
	if holdsPointers(v.Type()) && fg.act.HasShadow(v) {
		return true // pointers, and aggregates holding them
	}
	return irfacts.CarriesFloat(v.Type()) && fg.act.Varied[irfacts.Unwrap(v)]
}

// tangentOf returns the tangent (or shadow) of a primal operand: zero for
// constants and values that carry none.
func (fg *forwardGen) tangentOf(at interface{}, v value.Value) (value.Value, error) {
	v = irfacts.Unwrap(v)
	if t, ok := fg.tan[v]; ok {
		return t, nil
	}
	if c, ok := v.(constant.Constant); ok && (types.IsPointer(v.Type()) || irfacts.HasPointerField(v.Type())) {
		// Constant pointers (constshadow.go).
		s, ok, err := fg.d.constantShadow(c, true, false)
		if err != nil {
			return nil, errorAt(fg.f, at, "%v", err)
		}
		if ok {
			return s, nil
		}
	}
	if types.IsPointer(v.Type()) {
		switch v.(type) {
		case *constant.Null, *constant.Undef:
			return v, nil
		}
		if fg.act.HasShadow(v) {
			return nil, errorAt(fg.f, at, "%s has no shadow in forward mode (is it marked enzyme_const? pass it with enzyme_dup and a tangent)", describeValue(v))
		}
		if fg.d.runtimeActivity {
			return v, nil // its own shadow (runtimeactivity.go)
		}
		return constant.NewNull(v.Type().(*types.PointerType)), nil
	}
	if !irfacts.CarriesFloat(v.Type()) && !irfacts.HasPointerField(v.Type()) {
		return nil, errorAt(fg.f, at, "%s has no tangent", describeValue(v))
	}
	if fg.d.runtimeActivity && !irfacts.CarriesFloat(v.Type()) {
		return v, nil
	}
	return rules.ZeroOf(v.Type()), nil // aggregates of pointers without shadows: null shadows
}

// carriesShadows reports a value of pointer-holding aggregate type (no
// floats, so outside the activity analysis) built from values that have
// tangents: its tangent is the same aggregate of their shadows.
func (fg *forwardGen) carriesShadows(inst ir.Instruction) bool {
	v, ok := inst.(value.Value)
	if !ok || irfacts.CarriesFloat(v.Type()) || !irfacts.HasPointerField(v.Type()) {
		return false
	}
	var ops []value.Value
	switch x := inst.(type) {
	case *ir.InstInsertValue:
		ops = []value.Value{x.X, x.Elem}
	case *ir.InstExtractValue:
		ops = []value.Value{x.X}
	default:
		return false
	}
	for _, op := range ops {
		if _, ok := fg.tan[irfacts.Unwrap(op)]; ok {
			return true
		}
	}
	return false
}

// laneTangents returns v's tangent in every lane.
func (fg *forwardGen) laneTangents(at interface{}, v value.Value) ([]value.Value, error) {
	var out []value.Value
	for _, lane := range fg.lanes {
		fg.tan = lane
		t, err := fg.tangentOf(at, v)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// resultTangents extracts the tangents of the result from a call of a
// forward derivative returning {y, dy} (width 1) or {y, [N x T]}.
func resultTangents(fc value.Value, width int) []value.Value {
	if width == 1 {
		return []value.Value{ir.NewExtractValue(fc, 1)}
	}
	out := make([]value.Value, width)
	for k := range out {
		out[k] = ir.NewExtractValue(fc, 1, uint64(k))
	}
	return out
}

// instruction clones a primal instruction and emits its tangent. Operands
// of the returned instructions are still primal values (remapped later),
// except tangents, which are already forward values.
func (fg *forwardGen) instruction(inst ir.Instruction) ([]ir.Instruction, error) {
	if call, ok := inst.(*ir.InstCall); ok {
		stop := fg.d.callStops(fg.f, call, fg.act) // dispatch.go
		if insts, handled, err := fg.call(call); handled {
			return append(stop, insts...), err
		}
		if stop != nil {
			out, err := fg.instructionClone(inst)
			return append(stop, out...), err
		}
	}
	return fg.instructionClone(inst)
}

// instructionClone is instruction for all but the calls fg.call handles.
func (fg *forwardGen) instructionClone(inst ir.Instruction) ([]ir.Instruction, error) {
	c, err := irutil.CloneInst(inst, func(v value.Value) value.Value { return v })
	if err != nil {
		return nil, errorAt(fg.f, inst, "%v", err)
	}
	out := []ir.Instruction{c}
	v, isValue := inst.(value.Value)
	if isValue {
		fg.vmap[v] = c.(value.Value)
	}
	// Emission into a scratch block, whose instructions follow the clone:
	// the tangent of each lane in turn.
	scratch := &ir.Block{}
	for _, lane := range fg.lanes {
		fg.tan = lane
		if err := fg.laneTangent(scratch, inst); err != nil {
			return nil, err
		}
	}
	return append(out, scratch.Insts...), nil
}

// laneTangent emits, into scratch, the tangent of inst in the current lane
// (fg.tan): its value's tangent and its effect on shadow memory.
func (fg *forwardGen) laneTangent(scratch *ir.Block, inst ir.Instruction) error {
	b := &rules.Builder{M: fg.m, B: scratch}
	mv := func(x value.Value) value.Value { return fg.mapValue(irfacts.Unwrap(x)) }
	tg := func(x value.Value) (value.Value, error) { return fg.tangentOf(inst, x) }
	if atomic, err := fg.forwardAtomic(scratch, inst); atomic {
		return err
	}
	switch x := inst.(type) {
	case *ir.InstStore:
		if !fg.act.HasShadow(x.Dst) {
			break
		}
		dst, err := tg(x.Dst)
		if err != nil {
			return err
		}
		if ld, ok := fg.d.intPointerCopy(fg.f, x, fg.act); ok {
			// Integers and pointers copied as one integer (intptrcopy.go).
			s, err := tg(ld.Src)
			if err != nil {
				return err
			}
			copyShadowBytes(scratch, ld, x, s, dst)
			break
		}
		var src value.Value
		if _, ok := fg.tan[irfacts.Unwrap(x.Src)]; !ok && types.IsPointer(x.Src.Type()) && !fg.act.HasShadow(x.Src) && !fg.d.runtimeActivity {
			if err := shadowlessPointerStore(fg.f, x); err != nil {
				return err
			}
		}
		switch {
		case holdsPointers(x.Src.Type()) || irfacts.CarriesFloat(x.Src.Type()):
			if src, err = tg(x.Src); err != nil {
				return err
			}
		default:
			src = nil // integers: the shadow keeps no tangent of them
			lo, hi, ok, err := fg.d.intOverFloat(fg.f, x, fg.act)
			if err != nil {
				return err
			}
			if ok {
				// Floats overwritten by an integer: their tangent is zero
				// (intstore.go).
				if err := fg.d.clearShadowWindow(fg.f, x, x.Dst, scratch, dst, fg.mapValue(irfacts.Unwrap(x.Dst)), lo, hi); err != nil {
					return err
				}
			}
		}
		if src != nil {
			if fg.d.mayAliasPrimal(x.Dst) {
				addr, alias, err := fg.d.guardShadow(fg.f, x, scratch, x.Dst, dst, x.Dst, src.Type())
				if err != nil {
					return err
				}
				if fg.needsTangent(x.Src) {
					// A tangent (or a pointer's own shadow) written where
					// the shadow is the primal is lost to later reads.
					fg.d.inactiveWrite(scratch, fg.f, x, scratch.NewAnd(alias, differsFrom(scratch, src, x.Src)))
				}
				dst = addr
			}
			from := len(scratch.Insts)
			st := scratch.NewStore(src, dst)
			st.Align = x.Align
			if !fg.d.gpu {
				tagShadowAccesses(scratch, from, dst, x) // the shadow has the primal's layout
			}
		}
	case *ir.InstCall:
		if err := fg.memoryCall(scratch, x); err != nil {
			return err
		}
	}
	if v, ok := inst.(value.Value); ok && (fg.needsTangent(v) || fg.carriesShadows(inst)) {
		t, err := fg.tangentRule(b, inst, mv, tg)
		if err != nil {
			return err
		}
		fg.tan[v] = t
	}
	return nil
}

// tangentRule emits the tangent of one value-producing instruction.
func (fg *forwardGen) tangentRule(b *rules.Builder, inst ir.Instruction, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, error) {
	blk := b.B
	if fg.errMode {
		if e, handled, err := fg.errorRule(b, inst, mv, tg); handled {
			return e, err
		}
	}
	tans := func(vs ...value.Value) ([]value.Value, error) { return tangents(tg, vs...) }
	if rule := rules.InstRuleOf(inst); rule != nil && rule.Tangent != nil {
		t, err := tans(rule.Operands(inst)...)
		if err != nil {
			return nil, err
		}
		return rule.Tangent(b, inst, t, mv), nil
	}
	switch x := inst.(type) {
	case *ir.InstFRem:
		return fg.partialsTangent(b, inst, rules.Fmod, []value.Value{x.X, x.Y}, x, mv, tg)
	case *ir.InstInsertValue:
		if !irfacts.CarriesFloat(x.Elem.Type()) && !holdsPointers(x.Elem.Type()) {
			// Integer fields: the tangent aggregate keeps the primal's.
			t, err := tg(x.X)
			if err != nil {
				return nil, err
			}
			return blk.NewInsertValue(t, mv(x.Elem), x.Indices...), nil
		}
		t, err := tans(x.X, x.Elem)
		if err != nil {
			return nil, err
		}
		return blk.NewInsertValue(t[0], t[1], x.Indices...), nil
	case *ir.InstLoad:
		sp, err := tg(x.Src)
		if err != nil {
			return nil, err
		}
		var alias value.Value
		if irfacts.CarriesFloat(x.ElemType) && fg.d.mayAliasPrimal(x.Src) {
			// A pointer read through an inactive shadow is the primal's,
			// its own shadow again: only float tangents are guarded.
			if sp, alias, err = fg.d.guardShadow(fg.f, x, blk, x.Src, sp, x.Src, x.ElemType); err != nil {
				return nil, err
			}
		}
		from := len(blk.Insts)
		ld := blk.NewLoad(x.ElemType, sp)
		ld.Align = x.Align
		if !fg.d.gpu {
			tagShadowAccesses(blk, from, sp, x)
		}
		return zeroUnless(blk, alias, ld), nil
	case *ir.InstGetElementPtr:
		src, err := tg(x.Src)
		if err != nil {
			return nil, err
		}
		g := blk.NewGetElementPtr(x.ElemType, src, append([]value.Value(nil), x.Indices...)...)
		g.InBounds = x.InBounds
		g.Typ = x.Typ
		return g, nil
	case *ir.InstBitCast:
		src, err := tg(x.From)
		if err != nil {
			return nil, err
		}
		return blk.NewBitCast(src, x.To), nil
	case *ir.InstAddrSpaceCast:
		src, err := tg(x.From)
		if err != nil {
			return nil, err
		}
		return blk.NewAddrSpaceCast(src, x.To), nil
	case *ir.InstAlloca:
		a := ir.NewAlloca(x.ElemType)
		a.NElems, a.Align = x.NElems, x.Align
		blk.Insts = append(blk.Insts, a)
		if x.NElems == nil {
			blk.NewStore(rules.ZeroOf(x.ElemType), a)
		} else {
			blk.Insts = append(blk.Insts, zeroFill(fg.m, a, x.ElemType, x.NElems)...)
		}
		return a, nil
	case *ir.InstCall:
		if irfacts.IsAllocation(x) {
			sc := blk.NewCall(x.Callee, irutil.CloneArgs(x.Args)...)
			sc.Typ = x.Typ
			size := allocSizeArg(x)
			if irfacts.CalleeName(x) != "calloc" {
				blk.Insts = append(blk.Insts, memsetZero(fg.m, sc, size)...)
			}
			return sc, nil
		}
		if irfacts.CalleeName(x) == "realloc" {
			// The shadow grows with the buffer; its new tail is as
			// undefined as the primal's.
			sp, err := tg(x.Args[0])
			if err != nil {
				return nil, err
			}
			sc := blk.NewCall(x.Callee, sp, mv(x.Args[1]))
			sc.Typ = x.Typ
			return sc, nil
		}
		if t, ok, err := tangentVectorOp(blk, x, mv, tg); ok {
			return t, err
		}
		callee, _ := x.Callee.(*ir.Func)
		if callee == nil {
			if !fg.d.outsideOnly(x) {
				return nil, indirectCallError(fg.f, x)
			}
			fg.d.stopOutside(blk, fg.f, x)
			return rules.ZeroOf(x.Typ), nil
		}
		if t, err := fg.complexTangent(b, x, mv, tg); t != nil || err != nil {
			return t, err
		}
		rule := mathRuleOf(callee, x.Typ)
		if rule == nil {
			err := errorAt(fg.f, inst, noRuleMsg, callee.Name())
			err.Callee = callee.Name()
			return nil, err
		}
		return fg.partialsTangent(b, inst, rule, x.Args, x, mv, tg)
	case *ir.InstPhi:
		return fg.tan[x], nil
	}
	return nil, errorAt(fg.f, inst, "no forward-mode rule for %s", describe(inst))
}

// partialsTangent is Σ ∂f/∂x_i · dx_i over the arguments with tangents.
func (fg *forwardGen) partialsTangent(b *rules.Builder, inst ir.Instruction, rule *rules.Rule, args []value.Value, result value.Value, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, error) {
	operand := func(i int) value.Value { return mv(args[i]) }
	res := func() value.Value { return mv(result) }
	var sum value.Value
	for i, a := range args {
		a = irfacts.Unwrap(a)
		if !rule.Differentiable(i) || !irfacts.CarriesFloat(a.Type()) || !fg.act.Varied[a] {
			continue
		}
		t, err := tg(a)
		if err != nil {
			return nil, err
		}
		b.Arg = a.Type()
		term := rule.Term(b, operand, res, i, t)
		if sum == nil {
			sum = term
		} else {
			sum = b.FAdd(sum, term)
		}
	}
	if sum == nil {
		return rules.ZeroOf(result.Type()), nil
	}
	return sum, nil
}

// memoryCall mirrors bulk memory operations and frees on shadows.
func (fg *forwardGen) memoryCall(blk *ir.Block, x *ir.InstCall) error {
	switch {
	case irfacts.IsMemTransfer(x) && fg.act.HasShadow(x.Args[0]):
		dst, err := fg.tangentOf(x, x.Args[0])
		if err != nil {
			return err
		}
		n := irfacts.Unwrap(x.Args[2])
		if fg.d.mayAliasPrimal(x.Args[0]) {
			n = countUnless(blk, aliasTest(blk, dst, x.Args[0]), n)
		}
		if fg.act.HasShadow(x.Args[1]) {
			src, err := fg.tangentOf(x, x.Args[1])
			if err != nil {
				return err
			}
			blk.NewCall(x.Callee, append([]value.Value{dst, src, n}, x.Args[3:]...)...)
		} else {
			blk.NewCall(rules.Declare(fg.m, "llvm.memset.p0i8."+rules.TypeSuffix(n.Type()), types.Void, types.I8Ptr, types.I8, n.Type(), types.I1),
				blk.NewBitCast(dst, types.I8Ptr), constant.NewInt(types.I8, 0), n, constant.False)
		}
		// Floats the copy overwrites in part with integers: their tangent
		// is zero, whole (intstore.go). The bytes copied got the source's.
		lo, hi, ok, err := fg.d.intCopyOverFloats(fg.f, x)
		if n, _ := intConstOf(x.Args[2]); ok && (lo < 0 || hi > n) {
			err = fg.d.clearShadowWindow(fg.f, x, x.Args[0], blk, dst, fg.mapValue(irfacts.Unwrap(x.Args[0])), lo, hi)
		}
		return err
	case irfacts.IsMemSet(x) && fg.act.HasShadow(x.Args[0]):
		dst, err := fg.tangentOf(x, x.Args[0])
		if err != nil {
			return err
		}
		n := irfacts.Unwrap(x.Args[2])
		if fg.d.mayAliasPrimal(x.Args[0]) {
			n = countUnless(blk, aliasTest(blk, dst, x.Args[0]), n)
		}
		blk.NewCall(rules.Declare(fg.m, "llvm.memset.p0i8."+rules.TypeSuffix(n.Type()), types.Void, types.I8Ptr, types.I8, n.Type(), types.I1),
			blk.NewBitCast(dst, types.I8Ptr), constant.NewInt(types.I8, 0), n, constant.False)
	case irfacts.IsMaskedStore(x) && fg.act.HasShadow(x.Args[1]):
		mv := func(v value.Value) value.Value { return fg.mapValue(irfacts.Unwrap(v)) }
		tg := func(v value.Value) (value.Value, error) { return fg.tangentOf(x, v) }
		_, _, err := tangentVectorOp(blk, x, mv, tg)
		return err
	case isMemAlign(x) && fg.act.HasShadow(x.Args[0]):
		slot, err := fg.tangentOf(x, x.Args[0])
		if err != nil {
			return err
		}
		var out []ir.Instruction
		memAlignShadow(fg.m, x, slot, &out)
		blk.Insts = append(blk.Insts, out...)
	case isFree(x) && fg.act.HasShadow(x.Args[0]):
		var sp value.Value
		sp, err := fg.tangentOf(x, x.Args[0])
		if err != nil {
			return err
		}
		if fg.d.mayAliasPrimal(x.Args[0]) {
			// Not the primal's memory twice.
			sp = blk.NewSelect(aliasTest(blk, sp, x.Args[0]), constant.NewNull(sp.Type().(*types.PointerType)), sp)
		}
		fg.forgetTreeNode(blk, sp) // shadowlife.go
		blk.NewCall(x.Callee, append([]value.Value{sp}, x.Args[1:]...)...)
	}
	return nil
}

// call handles calls to defined functions (their forward derivative) and to
// functions with a custom forward rule.
func (fg *forwardGen) call(call *ir.InstCall) ([]ir.Instruction, bool, error) {
	if rbTreeOpOf(call) != rbNone {
		if insts, handled, err := fg.rbForwardCall(call); handled {
			return insts, true, err // rbtree.go
		}
	}
	f, ok := call.Callee.(*ir.Func)
	if !ok && !fg.needsTangent(call) {
		if err := fg.d.unknownMemoryCall(fg.f, fg.act, call); err != nil {
			return nil, true, err
		}
	}
	if !ok || fg.d.inactive[f] || strings.HasPrefix(f.Name(), "llvm.") || irfacts.IsFunctionLike(f) || irfacts.IsAllocation(call) {
		return nil, false, nil
	}
	if _, ok := EntryPointMode(f.Name()); ok {
		// Roots are lowered inner-first; one still here depends on this
		// derivative itself.
		return nil, true, errorAt(fg.f, call, "the call of %s is differentiated before it is lowered (Enzyme calls that depend on each other in a cycle)", f.Name())
	}
	if len(f.Blocks) == 0 && !fg.d.inactive[f] && isInactiveLibWriter(f.Name()) {
		if err := inactiveWriterCall(fg.f, fg.act, call, f); err != nil {
			return nil, true, err // its tangent would be left behind
		}
	}
	active := fg.needsTangent(call) || fg.act.CallTouchesActiveMemory(call, fg.d.passes)
	if active && isBlasCall(call) {
		return fg.blasCall(call)
	}
	site := fg.d.omp.sites[call]
	if !active {
		if site != nil {
			return []ir.Instruction{ompPlainCall(site)}, true, nil
		}
		return nil, false, nil
	}
	acts := make([]activity.Activity, len(call.Args))
	var args []value.Value
	for i, a := range call.Args {
		a = irfacts.Unwrap(a)
		args = append(args, a)
		if fg.needsTangent(a) || (irfacts.CarriesFloat(a.Type()) && fg.act.Varied[a]) || (holdsPointers(a.Type()) && activity.IsNullConstant(a)) {
			acts[i] = activity.Dup
			ts, err := fg.laneTangents(call, a)
			if err != nil {
				return nil, true, err
			}
			args = append(args, ts...)
		}
	}
	if c, ok := fg.d.custom[f]; ok {
		if fg.errMode {
			return nil, true, errorAt(fg.f, call, "'%s' has a custom derivative, which gives tangents, not error bounds: floating-point error estimation cannot use it", f.Name())
		}
		if err := fg.d.fortranReductionStop(fg.f, call); err != nil {
			return nil, true, err
		}
		if c.Forward == nil {
			return nil, true, errorAt(fg.f, call, "'%s' has a custom gradient but no forward derivative (enzyme(\"forward\", ...))", f.Name())
		}
		// The rule takes every float or pointer parameter with its
		// tangent; in batch mode it is called once per lane.
		clone, _ := irutil.CloneInst(call, func(v value.Value) value.Value { return v })
		fg.vmap[call] = clone.(value.Value)
		out := []ir.Instruction{clone}
		for _, lane := range fg.lanes {
			fg.tan = lane
			var full []value.Value
			for _, a := range call.Args {
				a = irfacts.Unwrap(a)
				full = append(full, a)
				if irfacts.CarriesFloat(a.Type()) || types.IsPointer(a.Type()) {
					t, err := fg.tangentOf(call, a)
					if err != nil {
						return nil, true, err
					}
					full = append(full, t)
				}
			}
			tc := ir.NewCall(c.Forward, full...)
			if fg.needsTangent(call) {
				lane[call] = tc
			}
			out = append(out, tc)
		}
		return out, true, nil
	}
	if len(f.Blocks) == 0 {
		if !fg.needsTangent(call) {
			if err := fg.d.unknownMemoryCall(fg.f, fg.act, call); err != nil {
				return nil, true, err
			}
		}
		return nil, false, nil // an unknown function: the tangent rule reports it
	}
	callee, err := fg.d.forward(f, acts, fg.width, fg.errMode)
	if err != nil {
		return nil, true, err
	}
	if site != nil && site.fork {
		insts, err := fg.ompForwardFork(call, site, callee, args)
		return insts, true, err
	}
	fc := ir.NewCall(callee.g, args...)
	switch callee.ret.(type) {
	case *types.StructType:
		y := ir.NewExtractValue(fc, 0)
		fg.vmap[call] = y
		out := []ir.Instruction{fc, y}
		for k, dy := range resultTangents(fc, fg.width) {
			out = append(out, dy.(ir.Instruction))
			if fg.needsTangent(call) || irfacts.HasPointerField(call.Typ) {
				fg.lanes[k][call] = dy
			}
		}
		return out, true, nil
	default:
		fg.vmap[call] = fc
		return []ir.Instruction{fc}, true, nil
	}
}

// terminator clones a terminator; a return returns the result with its
// tangent.
func (fg *forwardGen) terminator(b *ir.Block) error {
	nb := fg.blk[b]
	blk := func(v value.Value) *ir.Block { return fg.blk[v.(*ir.Block)] }
	switch t := b.Term.(type) {
	case *ir.TermRet:
		if t.X == nil {
			nb.NewRet(nil)
			return nil
		}
		st, ok := fg.ret.(*types.StructType)
		if !ok {
			nb.NewRet(fg.mapValue(t.X))
			return nil
		}
		dts, err := fg.laneTangents(t, t.X)
		if err != nil {
			return err
		}
		agg := nb.NewInsertValue(constant.NewUndef(st), fg.mapValue(t.X), 0)
		if fg.width == 1 {
			nb.NewRet(nb.NewInsertValue(agg, dts[0], 1))
			return nil
		}
		for k, dt := range dts {
			agg = nb.NewInsertValue(agg, dt, 1, uint64(k))
		}
		nb.NewRet(agg)
	default:
		if !cloneBranch(nb, b.Term, blk, fg.mapValue) {
			return errorAt(fg.f, t, "terminator %s is not supported", describe(t))
		}
		fg.d.copyLoopID(fg.ids, b.Term, nb.Term)
	}
	return nil
}
