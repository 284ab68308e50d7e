package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Floating-point error estimation (__enzyme_error_estimate): forward mode
// whose "tangent" of a value is a bound on its relative error, propagated
// with the operations' condition numbers (Enzyme's model, from Wang,
// Zou et al., "Detecting floating-point errors via atomic conditions",
// POPL 2020): an operation f of operands x_i with errors e_i has error
//
//	err(f) = max(ulp(f), Σ_i |x_i / f · ∂f/∂x_i · e_i|)
//
// where ulp(f) is the spacing of the floating-point numbers at f (the
// rounding of f itself). Operations that move values without rounding
// (loads, stores, phis, selects, fneg, fpext, aggregates) carry their
// operand's error unchanged, exactly as they carry tangents; the
// arithmetic, fptrunc and the math functions with derivative rules apply
// the formula. The call returns the error of the function's result (the
// tangent slot of __enzyme_fwddiff); memory passed with a shadow holds
// the errors of its values, as it would hold tangents. The input errors
// are the tangents the caller passes.
//
// Where the program defines or declares enzymeLogError, every operation
// that applies the formula and influences the result (or memory with a
// shadow) reports its error to it, as Enzyme's does; the function's
// parameters choose the form (errorLogger).

// errorRule emits the error of inst when it is an operation that
// rounds; handled is false for the operations that carry errors as
// tangents.
func (fg *forwardGen) errorRule(b *rules.Builder, inst ir.Instruction, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, bool, error) {
	res, ok := inst.(value.Value)
	if !ok {
		return nil, false, nil
	}
	blk := b.B
	var ops []value.Value
	var term func(i int, dif value.Value) value.Value // ∂f/∂x_i · dif
	callee := ""
	switch x := inst.(type) {
	case *ir.InstFAdd, *ir.InstFSub:
		ops = activity.DerivOperands(inst, fg.d.passes)
		term = func(i int, dif value.Value) value.Value { return dif }
	case *ir.InstFMul:
		ops = []value.Value{x.X, x.Y}
		term = func(i int, dif value.Value) value.Value { return blk.NewFMul(dif, mv(ops[1-i])) }
	case *ir.InstFDiv: // ∂/∂x = 1/y, ∂/∂y = -f/y
		ops = []value.Value{x.X, x.Y}
		term = func(i int, dif value.Value) value.Value {
			if i == 0 {
				return blk.NewFDiv(dif, mv(x.Y))
			}
			return blk.NewFDiv(blk.NewFMul(dif, mv(x)), mv(x.Y))
		}
	case *ir.InstFRem:
		ops = []value.Value{x.X, x.Y}
		term = func(i int, dif value.Value) value.Value {
			b.Arg = ops[i].Type()
			return rules.Fmod.Term(b, func(j int) value.Value { return mv(ops[j]) }, func() value.Value { return mv(x) }, i, dif)
		}
	case *ir.InstFPTrunc:
		return fg.truncError(b, x, mv, tg)
	case *ir.InstCall:
		f, _ := x.Callee.(*ir.Func)
		if f == nil || !irfacts.CarriesFloat(x.Typ) {
			return nil, false, nil
		}
		if irfacts.IsMaskedLoad(x) {
			return nil, false, nil
		}
		name := f.Name()
		if strings.HasPrefix(name, "llvm.vector.reduce.") || rules.ComplexJacobian(name) != nil {
			return nil, true, errorAt(fg.f, inst, "floating-point error estimation of '%s' is not supported", name)
		}
		rule := mathRuleOf(f, x.Typ)
		if rule == nil {
			return nil, false, nil // the tangent rule reports it
		}
		callee = name
		for i, a := range x.Args {
			if rule.Differentiable(i) {
				ops = append(ops, a)
			} else {
				ops = append(ops, nil)
			}
		}
		term = func(i int, dif value.Value) value.Value {
			b.Arg = ops[i].Type()
			return rule.Term(b, func(j int) value.Value { return mv(x.Args[j]) }, func() value.Value { return mv(x) }, i, dif)
		}
	default:
		return nil, false, nil
	}
	if err := fg.checkErrorType(inst, res.Type()); err != nil {
		return nil, true, err
	}
	r := mv(res)
	var sum value.Value
	for i, op := range ops {
		if op == nil {
			continue
		}
		op = irfacts.Unwrap(op)
		if !irfacts.CarriesFloat(op.Type()) || !fg.act.Varied[op] || !op.Type().Equal(res.Type()) {
			continue
		}
		e, err := tg(op)
		if err != nil {
			return nil, true, err
		}
		if zeroTangent(e) {
			continue
		}
		dif := blk.NewFDiv(blk.NewFMul(e, mv(op)), r)
		t := b.Intrinsic("fabs", term(i, dif))
		if sum == nil {
			sum = t
		} else {
			sum = blk.NewFAdd(sum, t)
		}
	}
	errv := fg.roundingFloor(b, r, sum)
	if err := fg.logError(b, inst, callee, r, errv); err != nil {
		return nil, true, err
	}
	return errv, true, nil
}

// truncError is the error of an fptrunc: its operand's, in the narrower
// type, and at least the rounding to it.
func (fg *forwardGen) truncError(b *rules.Builder, x *ir.InstFPTrunc, mv func(value.Value) value.Value, tg func(value.Value) (value.Value, error)) (value.Value, bool, error) {
	if err := fg.checkErrorType(x, x.To); err != nil {
		return nil, true, err
	}
	e, err := tg(x.From)
	if err != nil {
		return nil, true, err
	}
	var sum value.Value
	if !zeroTangent(e) {
		sum = b.B.NewFPTrunc(b.Intrinsic("fabs", e), x.To)
	}
	errv := fg.roundingFloor(b, mv(x), sum)
	if err := fg.logError(b, x, "", mv(x), errv); err != nil {
		return nil, true, err
	}
	return errv, true, nil
}

// checkErrorType accepts float and double results (and vectors of them):
// the types whose spacing ulp computes.
func (fg *forwardGen) checkErrorType(inst ir.Instruction, t types.Type) error {
	if _, ok := ulpIntType(t); ok {
		return nil
	}
	return errorAt(fg.f, inst, "floating-point error estimation of %s values is not supported (float and double are)", t)
}

// roundingFloor is max(ulp(r), sum); ulp(r) alone without a sum.
func (fg *forwardGen) roundingFloor(b *rules.Builder, r, sum value.Value) value.Value {
	u := ulp(b, r)
	if sum == nil {
		return u
	}
	return b.Intrinsic("maxnum", u, sum)
}

// ulpIntType is the integer type of t's bits, for float, double and
// vectors of them.
func ulpIntType(t types.Type) (types.Type, bool) {
	switch x := t.(type) {
	case *types.FloatType:
		switch x.Kind {
		case types.FloatKindFloat:
			return types.I32, true
		case types.FloatKindDouble:
			return types.I64, true
		}
	case *types.VectorType:
		if e, ok := ulpIntType(x.ElemType); ok {
			return types.NewVector(x.Len, e), true
		}
	}
	return nil, false
}

// ulp is the distance from |r| to the next larger floating-point number
// (its bits plus one): the size of one rounding step at r.
func ulp(b *rules.Builder, r value.Value) value.Value {
	it, _ := ulpIntType(r.Type())
	a := b.Intrinsic("fabs", r)
	bits := b.B.NewBitCast(a, it)
	var one constant.Constant = constant.NewInt(types.I64, 1)
	if vt, ok := it.(*types.VectorType); ok {
		elem := vt.ElemType.(*types.IntType)
		lanes := make([]constant.Constant, vt.Len)
		for i := range lanes {
			lanes[i] = constant.NewInt(elem, 1)
		}
		one = constant.NewVector(vt, lanes...)
	} else {
		one = constant.NewInt(it.(*types.IntType), 1)
	}
	next := b.B.NewBitCast(b.B.NewAdd(bits, one), r.Type())
	return b.B.NewFSub(next, a)
}

// errorLogger is the program's enzymeLogError and the form its
// parameters say it takes:
//
//	(double res, double err, const char *opcode, const char *callee,
//	 const char *module, const char *function, const char *block)
//	(double res, double err, const char *opcode, const char *callee,
//	 const char *module, const char *function, unsigned block,
//	 unsigned inst, unsigned nOperands, double *operands)
//	(const char *id, double err)
type errorLogger struct {
	f    *ir.Func
	form int // 7, 10 or 2: the number of parameters
}

// findErrorLogger returns the module's enzymeLogError (nil when it has
// none), or an error for one whose parameters fit no form.
func (d *differ) findErrorLogger() (*errorLogger, error) {
	if !d.errLogger.done {
		d.errLogger.lg, d.errLogger.err = d.lookupErrorLogger()
		d.errLogger.done = true
	}
	return d.errLogger.lg, d.errLogger.err
}

// lookupErrorLogger is findErrorLogger's search of the module.
func (d *differ) lookupErrorLogger() (*errorLogger, error) {
	var f *ir.Func
	for _, g := range d.m.Funcs {
		if g.Name() == "enzymeLogError" {
			f = g
		}
	}
	if f == nil {
		return nil, nil
	}
	sig := make([]string, len(f.Params))
	for i, p := range f.Params {
		switch {
		case irfacts.IsFloat(p.Typ) && floatBits(p.Typ) == 64:
			sig[i] = "d"
		case types.IsPointer(p.Typ):
			sig[i] = "p"
		case types.IsInt(p.Typ):
			sig[i] = "i"
		default:
			sig[i] = "?"
		}
	}
	switch strings.Join(sig, "") {
	case "ddppppp":
		return &errorLogger{f: f, form: 7}, nil
	case "ddppppiiip":
		return &errorLogger{f: f, form: 10}, nil
	case "pd":
		return &errorLogger{f: f, form: 2}, nil
	}
	return nil, fmt.Errorf("enzymeLogError takes (double res, double err, const char *opcode, const char *callee, const char *module, const char *function, const char *block), the same with (unsigned block, unsigned inst, unsigned n, double *operands) in place of block, or (const char *id, double err); this one takes %d parameters of other types", len(f.Params))
}

// logError reports the error errv of inst (result r) to the program's
// enzymeLogError, lane by lane for vectors, where inst influences the
// result.
func (fg *forwardGen) logError(b *rules.Builder, inst ir.Instruction, callee string, r, errv value.Value) error {
	if !fg.act.Active(inst.(value.Value)) {
		return nil
	}
	lg, err := fg.d.findErrorLogger()
	if err != nil {
		return errorAt(fg.f, inst, "%v", err)
	}
	if lg == nil {
		return nil
	}
	blk := b.B
	lanes := func(v value.Value) []value.Value {
		vt, ok := v.Type().(*types.VectorType)
		if !ok {
			return []value.Value{v}
		}
		out := make([]value.Value, vt.Len)
		for i := range out {
			out[i] = blk.NewExtractElement(v, constant.NewInt(types.I32, int64(i)))
		}
		return out
	}
	toDouble := func(v value.Value) value.Value {
		if floatBits(v.Type()) < 64 {
			return blk.NewFPExt(v, types.Double)
		}
		return v
	}
	opcode := strings.ToLower(opcodeOf(inst))
	fname := fg.f.Name()
	bi, ii, bname := fg.instPosition(inst)
	module := fg.d.m.SourceFilename
	rs, es := lanes(r), lanes(errv)
	for k := range rs {
		rv, ev := toDouble(rs[k]), toDouble(es[k])
		var args []value.Value
		switch lg.form {
		case 7:
			args = []value.Value{rv, ev, fg.d.cString(opcode), fg.d.cString(callee), fg.d.cString(module), fg.d.cString(fname), fg.d.cString(bname)}
		case 10:
			args = []value.Value{rv, ev, fg.d.cString(opcode), fg.d.cString(callee), fg.d.cString(module), fg.d.cString(fname),
				constant.NewInt(lg.f.Params[6].Typ.(*types.IntType), int64(bi)), constant.NewInt(lg.f.Params[7].Typ.(*types.IntType), int64(ii)),
				constant.NewInt(lg.f.Params[8].Typ.(*types.IntType), 0), constant.NewNull(lg.f.Params[9].Typ.(*types.PointerType))}
		default:
			id := fmt.Sprintf("%s:%s:%d:%d:%s", module, fname, bi, ii, opcode)
			args = []value.Value{fg.d.cString(id), ev}
		}
		for i, a := range args {
			if pt, ok := lg.f.Params[i].Typ.(*types.PointerType); ok && !a.Type().Equal(pt) {
				args[i] = constant.NewBitCast(a.(constant.Constant), pt)
			}
		}
		blk.NewCall(lg.f, args...)
	}
	return nil
}

// instPlace is an instruction's block index, its index in the block, and
// the block's name ("" when unnamed).
type instPlace struct {
	block, inst int
	name        string
}

// instPosition is inst's place in f (-1, -1 for an instruction not in f),
// from a table of f's instructions built once per derivative.
func (fg *forwardGen) instPosition(inst ir.Instruction) (int, int, string) {
	if fg.positions == nil {
		fg.positions = map[ir.Instruction]instPlace{}
		for bi, b := range fg.f.Blocks {
			name := ""
			if !b.IsUnnamed() {
				name = b.Name()
			}
			for ii, x := range b.Insts {
				fg.positions[x] = instPlace{bi, ii, name}
			}
		}
	}
	p, ok := fg.positions[inst]
	if !ok {
		return -1, -1, ""
	}
	return p.block, p.inst, p.name
}

// cString is a constant C string (one global per distinct text).
func (d *differ) cString(s string) value.Value {
	if d.cstrings == nil {
		d.cstrings = map[string]value.Value{}
	}
	if v, ok := d.cstrings[s]; ok {
		return v
	}
	data := constant.NewCharArrayFromString(s + "\x00")
	g := d.m.NewGlobalDef("", data)
	g.Linkage = enum.LinkagePrivate
	g.Immutable = true
	g.UnnamedAddr = enum.UnnamedAddrUnnamedAddr
	zero := constant.NewInt(types.I64, 0)
	v := constant.NewGetElementPtr(data.Typ, g, zero, zero)
	d.cstrings[s] = v
	return v
}
