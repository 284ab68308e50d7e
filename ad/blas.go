package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// BLAS calls are differentiated by rule, by name, as Enzyme does
// (BlasDerivatives.td), not through their bodies: a call of cblas_<p><x>,
// or of the Fortran-ABI <p><x>_ (p: d or s), whose routine has a rule in
// blasRules (blasrules.go) gets a derivative made of BLAS calls, whether
// or not the routine has a body in the module (a real OpenBLAS has none).
// The rules emit calls of the BLAS routines themselves in the call's ABI,
// declared where the module lacks them, and of a few loop helpers over
// matrix rows or columns (blashelpers.go); blasad.go fits them into the
// reverse and forward modes.
//
// Reverse mode: in the forward sweep, the inputs the reverse reads that
// the call itself or anything after it may overwrite are copied into
// buffers (Enzyme's -enzyme-lapack-copy=1), freed where the reverse used
// them; the others are read where they lie. Forward mode: the tangent is
// built before the call for routines that write memory (they read their
// outputs' old values), after it where it reads what the call computed.

// blasRule is the derivative of one BLAS routine.
type blasRule struct {
	// sig holds one letter per CBLAS argument: i an integer (size,
	// increment, leading dimension), e an enum (layout, transpose), f a
	// float scalar, p a pointer to the elements, n a pointer to an integer
	// the routine writes (LAPACK's info).
	sig     string
	ret     bool  // returns a float
	after   bool  // its tangent reads what the call computed (forward mode: after the call)
	outputs []int // pointer arguments it writes
	// shape describes input i (a pointer) as its memory is read: a
	// vector or a matrix.
	shape func(c *blasCtx, i int) blasShape
	// needs lists the pointer inputs the reverse reads, given the
	// activity.
	needs func(c *blasCtx) []int
	// needsAfter lists the outputs whose values after the call the
	// reverse reads (a solve's solution).
	needsAfter func(c *blasCtx) []int
	// cacheUplo, where set, copies matrix inputs the reverse reads with
	// lacpy, as Enzyme's LAPACK rules do: the triangle of the uplo it
	// returns (nil: the whole matrix).
	cacheUplo func(c *blasCtx, i int) value.Value
	rev       func(c *blasCtx)
	fwd       func(c *blasCtx)
	// fwdBefore, where set, emits before the call what fwd (after it)
	// needs of the inputs the call overwrites (in c.saved).
	fwdBefore func(c *blasCtx)
}

// blasShape is the memory a pointer argument covers: n elements apart by
// inc (vectors), or rows x cols with leading dimension ld in the call's
// layout (matrices; ld nil for vectors).
type blasShape struct {
	n, inc         value.Value
	rm             value.Value // i1: row major
	rows, cols, ld value.Value
	incIdx, ldIdx  int
	matrix         bool
}

// blasRoutine returns the rule of a call's callee, its precision letter,
// routine name and whether it is the Fortran-ABI name (<p><x>_, every
// argument by address, no layout: column major); nil for other calls.
func blasRoutine(call *ir.InstCall) (*blasRule, byte, string, bool) {
	f, ok := call.Callee.(*ir.Func)
	if !ok {
		return nil, 0, "", false
	}
	name, fortran := f.Name(), false
	switch {
	case strings.HasPrefix(name, "cblas_"):
		name = name[6:]
	case strings.HasSuffix(name, "_") && !strings.HasPrefix(name, "_"):
		name, fortran = name[:len(name)-1], true
	default:
		return nil, 0, "", false
	}
	if len(name) < 2 || (name[0] != 'd' && name[0] != 's') {
		return nil, 0, "", false
	}
	rule := blasRules[name[1:]]
	if rule == nil {
		return nil, 0, "", false
	}
	return rule, name[0], name[1:], fortran
}

// isBlasCall reports a call differentiated by a BLAS rule.
func isBlasCall(call *ir.InstCall) bool {
	r, _, _, _ := blasRoutine(call)
	return r != nil
}

// blasArgIndex maps argument i of a rule's CBLAS signature to the call's
// argument: one less in the Fortran ABI for routines with a layout (-1:
// the layout itself, column major there).
func blasArgIndex(rule *blasRule, fortran bool, i int) int {
	if fortran && rule.sig[0] == 'e' {
		return i - 1
	}
	return i
}

// isBlasFunc reports a function whose calls BLAS rules differentiate.
func isBlasFunc(f *ir.Func) bool { return isBlasCall(&ir.InstCall{Callee: f}) }

// blasCtx is what a rule builds with: the call's arguments and their
// derivatives as the code being emitted sees them, and where it emits.
type blasCtx struct {
	m     *ir.Module
	b     *ir.Block
	call  *ir.InstCall
	p     byte       // precision: 'd' or 's'
	elem  types.Type // double or float
	intT  types.Type // the BLAS integer (the type of the first size)
	enumT types.Type // the type of layout and transpose arguments
	rule  *blasRule
	// fortran: the Fortran ABI (blasRoutine); scalars are passed in
	// slots, which slot allocates.
	fortran bool
	slot    func(t types.Type) value.Value

	arg    func(i int) value.Value // the primal argument
	shadow func(i int) value.Value // a pointer's shadow, nil without one
	act    func(i int) bool        // a float argument carries a derivative
	dfloat func(i int) value.Value // forward: a float argument's tangent
	acc    func(i int, d value.Value)
	dret   value.Value // reverse: the result's adjoint
	res    value.Value // the primal result
	out    value.Value // forward: the result's tangent
	saved  value.Value // forward: what fwdBefore kept for fwd
	cached map[int]value.Value
	// guard, where set, runs body where the shadows of pointer arguments
	// ptrs differ from their primals (reverse mode).
	guard func(ptrs []int, body func())
}

// when runs body under c.guard of ptrs (directly without a guard).
func (c *blasCtx) when(ptrs []int, body func()) {
	if c.guard == nil {
		body()
		return
	}
	c.guard(ptrs, body)
}

// newBlasCtx checks the call's signature against the rule's and fills in
// the types.
func newBlasCtx(m *ir.Module, f *ir.Func, call *ir.InstCall) (*blasCtx, error) {
	rule, p, name, fortran := blasRoutine(call)
	elem := types.Type(types.Double)
	if p == 's' {
		elem = types.Float
	}
	c := &blasCtx{m: m, call: call, p: p, elem: elem, rule: rule, fortran: fortran}
	bad := func() (*blasCtx, error) {
		abi, sig := "CBLAS's", rule.sig
		if fortran {
			abi, sig = "the Fortran BLAS's", sig[-blasArgIndex(rule, true, 0):]
		}
		err := errorAt(f, call, "the call to '%s' has arguments that are not those of %s %s (%d arguments: %s), which gozyme's derivative rule for it expects", irfacts.CalleeName(call), abi, name, len(sig), blasSigWords(sig, fortran))
		err.Callee = irfacts.CalleeName(call)
		return nil, err
	}
	_, intResult := call.Typ.(*types.IntType) // f2c's subroutines return int
	if (rule.ret != types.Equal(call.Typ, elem)) || (!rule.ret && !types.Equal(call.Typ, types.Void) && !(fortran && intResult)) {
		return bad()
	}
	if fortran {
		if c.checkFortran() {
			return c, nil
		}
		return bad()
	}
	if len(call.Args) != len(rule.sig) {
		return bad()
	}
	for i, k := range rule.sig {
		t := call.Args[i].Type()
		switch k {
		case 'i', 'e':
			if _, ok := t.(*types.IntType); !ok {
				return bad()
			}
			if k == 'i' && c.intT == nil {
				c.intT = t
			}
			if k == 'e' && c.enumT == nil {
				c.enumT = t
			}
		case 'f':
			if !types.Equal(t, elem) {
				return bad()
			}
		case 'p':
			pt, ok := t.(*types.PointerType)
			if !ok || !types.Equal(pt.ElemType, elem) {
				return bad()
			}
		case 'n':
			pt, ok := t.(*types.PointerType)
			if !ok || !types.IsInt(pt.ElemType) {
				return bad()
			}
		}
	}
	if c.enumT == nil {
		c.enumT = types.I32
	}
	return c, nil
}

func blasSigWords(sig string, fortran bool) string {
	var w []string
	for _, k := range sig {
		switch k {
		case 'i':
			w = append(w, "int")
		case 'e':
			w = append(w, "enum")
			if fortran {
				w[len(w)-1] = "char"
			}
		case 'f':
			w = append(w, "scalar")
		case 'p':
			w = append(w, "array")
		case 'n':
			w = append(w, "int*")
			if fortran {
				continue
			}
		}
		if fortran {
			w[len(w)-1] += "*"
		}
	}
	return strings.Join(w, ", ")
}

// checkFortran checks a Fortran-ABI call's arguments (each by address;
// integer hidden lengths of character arguments may follow) and fills in
// the types.
func (c *blasCtx) checkFortran() bool {
	sig := c.rule.sig[-blasArgIndex(c.rule, true, 0):] // no layout
	if len(c.call.Args) < len(sig) {
		return false
	}
	for i, a := range c.call.Args {
		if i >= len(sig) {
			if _, ok := a.Type().(*types.IntType); !ok {
				return false
			}
			continue
		}
		pt, ok := a.Type().(*types.PointerType)
		if !ok {
			return false
		}
		switch sig[i] {
		case 'i', 'e':
			it, ok := pt.ElemType.(*types.IntType)
			if !ok && sig[i] == 'e' {
				// A character: flang passes a [1 x i8]*.
				it, ok = types.I8, types.IsArray(pt.ElemType)
			}
			if !ok {
				return false
			}
			if sig[i] == 'i' && c.intT == nil {
				c.intT = it
			}
			if sig[i] == 'e' && c.enumT == nil {
				c.enumT = it
			}
		case 'f':
			if !types.Equal(pt.ElemType, c.elem) {
				return false
			}
		case 'p':
			// flang passes an explicit-shape array as a pointer to it.
			if !types.Equal(arrayElem(pt.ElemType), c.elem) {
				return false
			}
		case 'n':
			if !types.IsInt(pt.ElemType) {
				return false
			}
		}
	}
	if c.enumT == nil {
		c.enumT = types.I8
	}
	return true
}

// fortranLayout is the layout of a Fortran-ABI call: column major.
func (c *blasCtx) fortranLayout() value.Value {
	return constant.NewInt(c.enumT.(*types.IntType), 102)
}

// scalarType is the type a Fortran-ABI call's scalar argument i (CBLAS
// numbering) points to.
func (c *blasCtx) scalarType(i int) types.Type {
	switch c.rule.sig[i] {
	case 'i':
		return c.intT
	case 'e':
		return c.enumT
	}
	return c.elem
}

// fn returns CBLAS routine cblas_<p><name> (Fortran: <p><name>_),
// declared where absent; its arguments follow sig as in blasRule.
func (c *blasCtx) fn(name, sig string, ret bool) *ir.Func {
	if c.fortran && sig[0] == 'e' {
		sig = sig[1:] // no layout
	}
	params := make([]types.Type, len(sig))
	for i, k := range sig {
		switch k {
		case 'i':
			params[i] = c.intT
		case 'e':
			params[i] = c.enumT
		case 'f':
			params[i] = c.elem
		case 'p':
			params[i] = types.NewPointer(c.elem)
		case 'n':
			params[i] = types.NewPointer(c.intT)
		}
	}
	rt := types.Type(types.Void)
	if ret {
		rt = c.elem
	}
	if c.fortran {
		for i, p := range params {
			if !types.IsPointer(p) {
				params[i] = types.NewPointer(p)
			}
		}
		return rules.Declare(c.m, string(c.p)+name+"_", rt, params...)
	}
	return rules.Declare(c.m, "cblas_"+string(c.p)+name, rt, params...)
}

// blasSigs are the CBLAS signatures of the routines the rules call.
var blasSigs = map[string]string{
	"dot": "ipipi", "nrm2": "ipi", "axpy": "ifpipi", "scal": "ifpi", "copy": "ipipi",
	"gemv": "eeiifpipifpi", "ger": "eiifpipipi", "gemm": "eeeiiifpipifpi",
	"trmv": "eeeeipipi", "trsv": "eeeeipipi", "trmm": "eeeeeiifpipi", "trsm": "eeeeeiifpipi",
	"syrk": "eeeiifpifpi", "syr2k": "eeeiifpipifpi", "symm": "eeeiifpipifpi", "symv": "eeifpipifpi",
	"syr": "eeifpipi", "syr2": "eeifpipipi",
	"potrs": "eeiipipin", "trtrs": "eeeeiipipin",
}

// blas emits a call of routine name with args, each converted to the
// routine's parameter type.
func (c *blasCtx) blas(name string, args ...value.Value) value.Value {
	sig := blasSigs[name]
	f := c.fn(name, sig, name == "dot" || name == "nrm2")
	if !c.fortran {
		return callConverted(c.b, f, args...)
	}
	// The Fortran ABI: no layout, scalars in slots, and the hidden lengths
	// of character arguments where the declaration has them.
	var byRef []value.Value
	for i, a := range args {
		switch {
		case i == 0 && sig[0] == 'e':
		case sig[i] == 'p' || sig[i] == 'n':
			byRef = append(byRef, a)
		default:
			t := c.elem
			if sig[i] == 'i' {
				t = c.intT
			} else if sig[i] == 'e' {
				t = c.enumT
			}
			slot := c.slot(t)
			c.b.NewStore(convertTo(c.b, a, t), slot)
			byRef = append(byRef, slot)
		}
	}
	for len(byRef) < len(f.Params) {
		switch t := f.Params[len(byRef)].Typ.(type) {
		case *types.IntType:
			byRef = append(byRef, constant.NewInt(t, 1))
		default:
			byRef = append(byRef, rules.ZeroOf(t))
		}
	}
	return callConverted(c.b, f, byRef...)
}

// callConverted calls f with args converted to its parameter types
// (integers sign-extended or truncated, pointers cast).
func callConverted(b *ir.Block, f *ir.Func, args ...value.Value) *ir.InstCall {
	conv := make([]value.Value, len(args))
	for i, a := range args {
		conv[i] = a
		if i < len(f.Sig.Params) { // beyond: variadic (a K&R declaration)
			conv[i] = convertTo(b, a, f.Sig.Params[i])
		}
	}
	return b.NewCall(f, conv...)
}

// convertTo converts v to type t where the two differ.
func convertTo(b *ir.Block, v value.Value, t types.Type) value.Value {
	if types.Equal(v.Type(), t) {
		return v
	}
	switch to := t.(type) {
	case *types.IntType:
		from, ok := v.Type().(*types.IntType)
		if !ok {
			return v
		}
		if ci, ok := v.(*constant.Int); ok {
			return constant.NewInt(to, ci.X.Int64())
		}
		if from.BitSize < to.BitSize {
			return b.NewSExt(v, to)
		}
		return b.NewTrunc(v, to)
	case *types.PointerType:
		return b.NewBitCast(v, to)
	case *types.FloatType:
		from, ok := v.Type().(*types.FloatType)
		if !ok {
			return v
		}
		if floatBits(from) < floatBits(to) {
			return b.NewFPExt(v, to)
		}
		return b.NewFPTrunc(v, to)
	}
	return v
}

// f is the float constant v; i the BLAS integer v; i64 widens an integer.
func (c *blasCtx) f(v float64) value.Value { return rules.FloatConst(c.elem, v) }
func (c *blasCtx) i(v int64) value.Value   { return constant.NewInt(c.intT.(*types.IntType), v) }
func (c *blasCtx) i64(v value.Value) value.Value {
	return convertTo(c.b, v, types.I64)
}

// sel chooses a or b by i1 cond.
func (c *blasCtx) sel(cond, a, b value.Value) value.Value {
	if types.Equal(a.Type(), b.Type()) {
		return c.b.NewSelect(cond, a, b)
	}
	return c.b.NewSelect(cond, a, convertTo(c.b, b, a.Type()))
}

// eqAny reports v equal to one of the constants (in v's type).
func (c *blasCtx) eqAny(v value.Value, ks ...int64) value.Value {
	it := v.Type().(*types.IntType)
	var r value.Value
	for _, k := range ks {
		if it.BitSize < 64 {
			k &= 1<<it.BitSize - 1
			if it.BitSize == 8 && k > 127 {
				k -= 256
			}
		}
		e := c.b.NewICmp(enum.IPredEQ, v, constant.NewInt(it, k))
		if r == nil {
			r = e
		} else {
			r = c.b.NewOr(r, e)
		}
	}
	return r
}

// CBLAS's and Fortran's codes.
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
	cblasConjT    = 113
)

// rowMajor is an i1: the layout argument says row major.
func (c *blasCtx) rowMajor(layout value.Value) value.Value {
	return c.eqAny(layout, cblasRowMajor, 'R', 'r')
}

// isN is an i1: transpose argument t says no transpose.
func (c *blasCtx) isN(t value.Value) value.Value {
	return c.eqAny(t, cblasNoTrans, 'N', 'n')
}

// transpose is the code of the other transpose, in t's own encoding
// (CBLAS's enum or Fortran's letters).
func (c *blasCtx) transpose(t value.Value) value.Value {
	it := t.Type().(*types.IntType)
	k := func(v int64) value.Value { return constant.NewInt(it, v) }
	// N -> T, n -> t, T/C -> N, t/c -> n, 111 -> 112, 112/113 -> 111.
	r := c.b.NewSelect(c.eqAny(t, 't', 'c'), k('n'), k('N'))
	r = c.b.NewSelect(c.eqAny(t, 'n'), k('t'), r)
	r = c.b.NewSelect(c.eqAny(t, 'N'), k('T'), r)
	r = c.b.NewSelect(c.eqAny(t, cblasTrans, cblasConjT), k(cblasNoTrans), r)
	return c.b.NewSelect(c.eqAny(t, cblasNoTrans), k(cblasTrans), r)
}

// CBLAS's codes for uplo and diag.
const (
	cblasUpper   = 121
	cblasNonUnit = 131
	cblasUnit    = 132
)

// left: an i1 from a side argument.
func (c *blasCtx) left(side value.Value) value.Value { return c.eqAny(side, 141, 'L', 'l') }

// sideCode is the code of a side (141 left, 142 right) in the encoding of
// uplo (CBLAS's enum, else Fortran's letters).
func (c *blasCtx) sideCode(uplo value.Value, left bool) value.Value {
	it := uplo.Type().(*types.IntType)
	cb, ch := int64(142), int64('R')
	if left {
		cb, ch = 141, 'L'
	}
	return c.b.NewSelect(c.eqAny(uplo, cblasUpper, cblasUpper+1), constant.NewInt(it, cb), constant.NewInt(it, ch))
}

// transCode is the code of no transpose or transpose in the encoding of
// uplo.
func (c *blasCtx) transCode(uplo value.Value, trans bool) value.Value {
	it := uplo.Type().(*types.IntType)
	cb, ch := int64(cblasNoTrans), int64('N')
	if trans {
		cb, ch = cblasTrans, 'T'
	}
	return c.b.NewSelect(c.eqAny(uplo, cblasUpper, cblasUpper+1), constant.NewInt(it, cb), constant.NewInt(it, ch))
}

// upper, unit: i1s from uplo and diag arguments.
func (c *blasCtx) upper(uplo value.Value) value.Value { return c.eqAny(uplo, cblasUpper, 'U', 'u') }
func (c *blasCtx) unit(diag value.Value) value.Value  { return c.eqAny(diag, cblasUnit, 'U', 'u') }

// nonUnit is the code for a non-unit diagonal in diag's encoding.
func (c *blasCtx) nonUnit(diag value.Value) value.Value {
	it := diag.Type().(*types.IntType)
	return c.b.NewSelect(c.eqAny(diag, cblasNonUnit, cblasUnit), constant.NewInt(it, cblasNonUnit), constant.NewInt(it, 'N'))
}

// enumConst is a CBLAS code in the type of the call's enums (Fortran: the
// letter).
func (c *blasCtx) enumConst(v int64) value.Value {
	if c.fortran {
		switch v {
		case cblasNoTrans:
			v = 'N'
		case cblasTrans:
			v = 'T'
		}
	}
	return constant.NewInt(c.enumT.(*types.IntType), v)
}

// afterKey is the key of an output's copy after the call in cached.
const afterKey = 1000

// inAfter is in for the value output i has after the call: its copy made
// after the call, else the output itself (nothing changes it before the
// reverse reads it), never the copy of its value before the call.
func (c *blasCtx) inAfter(i int) (value.Value, value.Value) {
	old, had := c.cached[i]
	if p, ok := c.cached[i+afterKey]; ok {
		c.cached[i] = p
	} else {
		delete(c.cached, i)
	}
	v, ld := c.in(i)
	if had {
		c.cached[i] = old
	} else {
		delete(c.cached, i)
	}
	return v, ld
}

// in returns pointer input i as the reverse reads it, with its increment
// (vectors) or leading dimension (matrices): its copy where the forward
// sweep cached it.
func (c *blasCtx) in(i int) (value.Value, value.Value) {
	sh := c.rule.shape(c, i)
	if p, ok := c.cached[i]; ok {
		if sh.matrix {
			return p, c.sel(sh.rm, sh.cols, sh.rows)
		}
		return p, c.i(1)
	}
	if sh.matrix {
		return c.arg(i), c.arg(sh.ldIdx)
	}
	return c.arg(i), c.arg(sh.incIdx)
}

// vec is the shape of a vector argument of n elements with increment at
// argument inc.
func (c *blasCtx) vec(n value.Value, inc int) blasShape {
	return blasShape{n: n, inc: c.arg(inc), incIdx: inc}
}

// mat is the shape of a rows x cols matrix with leading dimension at
// argument ld in layout at argument layout.
func (c *blasCtx) mat(layout int, rows, cols value.Value, ld int) blasShape {
	return blasShape{matrix: true, rm: c.rowMajor(c.arg(layout)), rows: rows, cols: cols, ld: c.arg(ld), ldIdx: ld}
}

// cacheInput copies input i into a fresh buffer (emitted into c.b, from
// primal values): a vector densely, a matrix with leading dimension its
// inner size.
func (c *blasCtx) cacheInput(i int) value.Value {
	sh := c.rule.shape(c, i)
	if sh.matrix && (c.rule.cacheUplo != nil || c.cblasLapack("lacpy", 8) != nil) {
		// Enzyme's rules copy with lacpy; a CBLAS program that has one
		// (Enzyme's harness) sees the same calls.
		var uplo value.Value
		if c.rule.cacheUplo != nil {
			uplo = c.rule.cacheUplo(c, i)
		}
		buf := c.alloc(c.mul(sh.rows, sh.cols))
		c.lacpy(c.arg(0), uplo, false, sh.rows, sh.cols, c.arg(i), sh.ld, buf, c.sel(sh.rm, sh.cols, sh.rows))
		return buf
	}
	if f := c.lapack("lacpy", 7); f != nil && sh.matrix {
		// The program's LAPACK copies the matrix (Fortran: column major).
		buf := c.alloc(c.mul(sh.rows, sh.cols))
		c.lapackCall(f, constant.NewInt(types.I8, 'G'), sh.rows, sh.cols, c.arg(i), sh.ld, buf, sh.rows)
		return buf
	}
	if sh.matrix {
		h := blasHelper(c, "cachem")
		return c.b.NewCall(h, sh.rm, c.i64(sh.rows), c.i64(sh.cols), c.arg(i), c.i64(sh.ld))
	}
	buf := c.alloc(sh.n)
	c.blas("copy", sh.n, c.arg(i), sh.inc, buf, c.i(1))
	return buf
}

// alloc mallocs n elements (at least one).
func (c *blasCtx) alloc(n value.Value) value.Value {
	n64 := c.i64(n)
	pos := c.b.NewICmp(enum.IPredSGT, n64, constant.NewInt(types.I64, 1))
	cnt := c.b.NewSelect(pos, n64, constant.NewInt(types.I64, 1))
	bytes := c.b.NewMul(cnt, constant.NewInt(types.I64, int64(floatBits(c.elem)/8)))
	raw := c.b.NewCall(rules.Declare(c.m, "malloc", types.I8Ptr, types.I64), bytes)
	return c.b.NewBitCast(raw, types.NewPointer(c.elem))
}

// free releases a buffer from alloc.
func (c *blasCtx) free(p value.Value) {
	c.b.NewCall(rules.Declare(c.m, "free", types.Void, types.I8Ptr), c.b.NewBitCast(p, types.I8Ptr))
}

// mul is the product of two BLAS integers, as an i64.
func (c *blasCtx) mul(a, b value.Value) value.Value { return c.b.NewMul(c.i64(a), c.i64(b)) }

// lapack returns the Fortran-ABI LAPACK routine <p><name>_ where the
// module has it (a program calling LAPACK links it) with at least params
// parameters; nil otherwise, and for CBLAS calls.
func (c *blasCtx) lapack(name string, params int) *ir.Func {
	if !c.fortran {
		return nil
	}
	for _, f := range c.m.Funcs {
		if f.Name() == string(c.p)+name+"_" && len(f.Params) >= params {
			return f
		}
	}
	return nil
}

// lapackCall calls Fortran-ABI routine f with args by address (pointers
// as they are, scalars in slots of the types f's parameters point to;
// hidden lengths 1).
func (c *blasCtx) lapackCall(f *ir.Func, args ...value.Value) {
	var byRef []value.Value
	for i, p := range f.Params {
		pt, isPtr := p.Typ.(*types.PointerType)
		switch {
		case i >= len(args):
			if it, ok := p.Typ.(*types.IntType); ok {
				byRef = append(byRef, constant.NewInt(it, 1))
			} else {
				byRef = append(byRef, rules.ZeroOf(p.Typ))
			}
		case types.IsPointer(args[i].Type()):
			byRef = append(byRef, args[i])
		case isPtr:
			slot := c.slot(pt.ElemType)
			c.b.NewStore(convertTo(c.b, args[i], pt.ElemType), slot)
			byRef = append(byRef, slot)
		default:
			byRef = append(byRef, args[i])
		}
	}
	callConverted(c.b, f, byRef...)
}

// arrayElem is the element type of a (nested) array type, else t.
func arrayElem(t types.Type) types.Type {
	for {
		a, ok := t.(*types.ArrayType)
		if !ok {
			return t
		}
		t = a.ElemType
	}
}

// elemPtr is pointer v as a pointer to the elements (a bitcast in c.b
// where it points to an array of them).
func (c *blasCtx) elemPtr(v value.Value) value.Value {
	if v == nil {
		return nil
	}
	if pt, ok := v.Type().(*types.PointerType); ok && !types.Equal(pt.ElemType, c.elem) {
		return c.b.NewBitCast(v, types.NewPointer(c.elem))
	}
	return v
}
