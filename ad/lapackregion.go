package ad

import (
	"fmt"
	"github.com/gozyme/gozyme/ad/rules"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Region loops of the lacpy and lascl rules (lapackaux.go): element by
// element over part of a rows x cols matrix with a leading dimension, in
// its own rows i and columns j (element (i, j) at i·ld + j row major, i +
// j·ld column major), for rectangular matrices too:
//   - axpy(rm, rows, cols, part, alpha, X, ldx, Y, ldy): Y += alpha X;
//   - zero(rm, rows, cols, part, A, lda): A = 0;
//   - copy(rm, rows, cols, part, X, ldx, Y, ldy): Y = X;
//   - scal(rm, rows, cols, part, alpha, A, lda): A *= alpha;
//   - frob(rm, rows, cols, part, X, ldx, Y, ldy) -> T: Σ X∘Y.
// The parts: partAll, partUpper (i <= j), partLower (i >= j),
// partHessenberg (i <= j+1), partNone (nothing); partBand stops the
// program (lascl's band storage has no rule). Sizes are i64; one internal
// function per precision and kind.

// regionHelper returns helper kind for c's precision, building it on
// first use.
func regionHelper(c *blasCtx, kind string) *ir.Func {
	name := fmt.Sprintf("__gozyme_lapack_%c_region_%s", c.p, kind)
	for _, f := range c.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	pt := types.NewPointer(c.elem)
	i64 := types.I64
	params := []*ir.Param{ir.NewParam("rm", types.I1), ir.NewParam("rows", i64), ir.NewParam("cols", i64), ir.NewParam("part", i64)}
	switch kind {
	case "axpy":
		params = append(params, ir.NewParam("alpha", c.elem))
	case "scal":
		params = append(params, ir.NewParam("alpha", c.elem))
	}
	switch kind {
	case "zero", "scal":
		params = append(params, ir.NewParam("a", pt), ir.NewParam("lda", i64))
	default:
		params = append(params, ir.NewParam("x", pt), ir.NewParam("ldx", i64), ir.NewParam("y", pt), ir.NewParam("ldy", i64))
	}
	ret := types.Type(types.Void)
	if kind == "frob" {
		ret = c.elem
	}
	f := c.m.NewFunc(name, ret, params...)
	f.Linkage = enum.LinkageInternal
	rm, rows, cols, part := params[0], params[1], params[2], params[3]
	k := func(v int64) value.Value { return constant.NewInt(i64, v) }
	zeroF := rules.FloatConst(c.elem, 0)

	entry, band, cols0, colHead, colBody, rowHead, rowBody, colNext, exit :=
		f.NewBlock("entry"), f.NewBlock("band"), f.NewBlock("start"), f.NewBlock("col"), f.NewBlock("colbody"),
		f.NewBlock("row"), f.NewBlock("rowbody"), f.NewBlock("colnext"), f.NewBlock("exit")
	entry.NewCondBr(entry.NewICmp(enum.IPredEQ, part, k(partBand)), band, cols0)
	band.NewCall(regionStop(c.m), regionMessage(c.m))
	band.NewUnreachable()
	cols0.NewBr(colHead)

	// for j in [0, cols): for i in [lo(j), hi(j)).
	j := colHead.NewPhi(ir.NewIncoming(k(0), cols0))
	var acc *ir.InstPhi
	if kind == "frob" {
		acc = colHead.NewPhi(ir.NewIncoming(zeroF, cols0))
	}
	colHead.NewCondBr(colHead.NewICmp(enum.IPredSLT, j, cols), colBody, exit)
	min := func(b *ir.Block, x, y value.Value) value.Value {
		return b.NewSelect(b.NewICmp(enum.IPredSLT, x, y), x, y)
	}
	// lo, hi by part: all [0, rows); upper [0, min(j+1, rows)); lower
	// [min(j, rows), rows); Hessenberg [0, min(j+2, rows)); none: empty.
	isPart := func(p int64) value.Value { return colBody.NewICmp(enum.IPredEQ, part, k(p)) }
	hi := colBody.NewSelect(isPart(partUpper), min(colBody, colBody.NewAdd(j, k(1)), rows), rows)
	hi = colBody.NewSelect(isPart(partHessenberg), min(colBody, colBody.NewAdd(j, k(2)), rows), hi)
	hi = colBody.NewSelect(isPart(partNone), k(0), hi)
	lo := colBody.NewSelect(isPart(partLower), min(colBody, j, rows), k(0))
	colBody.NewBr(rowHead)

	i := rowHead.NewPhi(ir.NewIncoming(lo, colBody))
	var racc *ir.InstPhi
	if kind == "frob" {
		racc = rowHead.NewPhi(ir.NewIncoming(acc, colBody))
	}
	rowHead.NewCondBr(rowHead.NewICmp(enum.IPredSLT, i, hi), rowBody, colNext)
	at := func(p, ld value.Value) value.Value {
		off := rowBody.NewSelect(rm, rowBody.NewAdd(rowBody.NewMul(i, ld), j), rowBody.NewAdd(i, rowBody.NewMul(j, ld)))
		return rowBody.NewGetElementPtr(c.elem, p, off)
	}
	var rnext value.Value
	switch kind {
	case "axpy":
		alpha, x, ldx, y, ldy := params[4], params[5], params[6], params[7], params[8]
		yp := at(y, ldy)
		rowBody.NewStore(rowBody.NewFAdd(rowBody.NewLoad(c.elem, yp), rowBody.NewFMul(alpha, rowBody.NewLoad(c.elem, at(x, ldx)))), yp)
	case "zero":
		rowBody.NewStore(zeroF, at(params[4], params[5]))
	case "copy":
		rowBody.NewStore(rowBody.NewLoad(c.elem, at(params[4], params[5])), at(params[6], params[7]))
	case "scal":
		ap := at(params[5], params[6])
		rowBody.NewStore(rowBody.NewFMul(params[4], rowBody.NewLoad(c.elem, ap)), ap)
	case "frob":
		x, ldx, y, ldy := params[4], params[5], params[6], params[7]
		rnext = rowBody.NewFAdd(racc, rowBody.NewFMul(rowBody.NewLoad(c.elem, at(x, ldx)), rowBody.NewLoad(c.elem, at(y, ldy))))
		racc.Incs = append(racc.Incs, ir.NewIncoming(rnext, rowBody))
	}
	i.Incs = append(i.Incs, ir.NewIncoming(rowBody.NewAdd(i, k(1)), rowBody))
	rowBody.NewBr(rowHead)

	j.Incs = append(j.Incs, ir.NewIncoming(colNext.NewAdd(j, k(1)), colNext))
	if kind == "frob" {
		acc.Incs = append(acc.Incs, ir.NewIncoming(racc, colNext))
	}
	colNext.NewBr(colHead)
	if kind == "frob" {
		exit.NewRet(acc)
	} else {
		exit.NewRet(nil)
	}
	return f
}

// regionMessage is the run-time error of lascl on band storage.
func regionMessage(m *ir.Module) value.Value {
	const name = "__gozyme_lapack_band_message"
	text := "gozyme: lascl of a band matrix (type B, Q or Z) has no derivative rule\n\x00"
	for _, g := range m.Globals {
		if g.Name() == name {
			return constant.NewGetElementPtr(g.ContentType, g, constant.NewInt(types.I64, 0), constant.NewInt(types.I64, 0))
		}
	}
	data := constant.NewCharArrayFromString(text)
	g := m.NewGlobalDef(name, data)
	g.Linkage = enum.LinkagePrivate
	g.Immutable = true
	zero := constant.NewInt(types.I64, 0)
	return constant.NewGetElementPtr(data.Typ, g, zero, zero)
}

// regionStop is void(i8* msg): writes msg to stderr and aborts (the
// differ's unknownTargetStop, for code built without one).
func regionStop(m *ir.Module) *ir.Func {
	const name = "__gozyme_unknown_callee"
	for _, f := range m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	return (&differ{m: m}).unknownTargetStop()
}
