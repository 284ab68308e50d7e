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

// Loop helpers of the BLAS rules: whole-matrix operations made of one
// level-1 BLAS call per row (row major) or column (column major) of a
// rows x cols matrix with a leading dimension, so that a matrix need not
// be contiguous:
//   - cachem(rm, rows, cols, A, lda) -> T*: a fresh copy of A with leading
//     dimension its inner size (copy per row or column);
//   - frob(rm, rows, cols, A, lda, B, ldb) -> T: sum of A∘B (dot);
//   - scalm(rm, rows, cols, alpha, A, lda): A *= alpha (scal);
//   - axpym(rm, rows, cols, alpha, X, ldx, Y, ldy): Y += alpha X (axpy);
//   - trger(rm, n, n, upper, unit, alpha, u, incu, v, incv, A, lda):
//     A += alpha u vᵀ on A's upper or lower triangle, its diagonal left out
//     where unit (axpy per row or column);
//   - diagaxpy(rm, n, n, alpha, A, lda, x, incx, y, incy): y += alpha
//     diag(A) x, elementwise;
//   - traxpym(rm, n, n, upper, unit, alpha, X, ldx, A, lda): A += alpha X
//     on A's triangle (without its diagonal where unit);
//   - trfrob(rm, n, n, upper, A, lda, B, ldb) -> T: sum of A∘B over the
//     triangle (dot per row or column);
//   - trscalm(rm, n, n, upper, alpha, A, lda): the triangle of A *= alpha;
//   - diagscalem(rm, rows, cols, left, alpha, D, ldd, X, ldx, Y, ldy):
//     Y += alpha diag(D) X (left: row i by D_ii) or alpha X diag(D);
//   - lacpym(rm, rows, cols, part, A, lda, B, ldb): B = A on the whole
//     matrix (part 0), its upper (1) or lower (2) triangle (copy);
//   - trmirror / trmirroradd(rm, n, n, tolower, A, lda): A's strict lower
//     triangle (tolower) or upper one set to (added) the transpose of the
//     other, one copy (axpy) of n-1-i elements per i, as Enzyme's rules do;
//   - trgemv(rm, k, inner, upper, unit, left, layout, tr, alpha, P, ldp, Q,
//     ldq, A, lda): the k x k triangle of A (without a unit diagonal) +=
//     alpha P·Qᵀ (left: P, Q k x inner) or alpha Pᵀ·Q (right: inner x k),
//     one gemv (trans tr) per column of A as Enzyme's trmm rule does;
//   - trdiagaxpy(rm, n, n, lower, alpha, X, ldx, A, lda): A += alpha X on
//     the lower (upper) triangle, one axpy per column (row) from the
//     diagonal on.
// Sizes are i64; one internal function per precision, BLAS integer and
// kind.

// blasHelper returns helper kind for c's precision and integer type,
// building it on first use.
func blasHelper(c *blasCtx, kind string) *ir.Func {
	abi := "c"
	if c.fortran {
		abi = "f"
	}
	name := fmt.Sprintf("__gozyme_blas_%c%s_%s_%s", c.p, kind, c.intT, abi)
	if kind == "trgemv" {
		name += fmt.Sprintf("_%s", c.enumT) // it passes enums on
	}
	for _, f := range c.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	pt := types.NewPointer(c.elem)
	i64 := types.I64
	params := []*ir.Param{ir.NewParam("rm", types.I1), ir.NewParam("rows", i64), ir.NewParam("cols", i64)}
	ret := types.Type(types.Void)
	switch kind {
	case "cachem":
		params = append(params, ir.NewParam("a", pt), ir.NewParam("lda", i64))
		ret = pt
	case "frob":
		params = append(params, ir.NewParam("a", pt), ir.NewParam("lda", i64), ir.NewParam("b", pt), ir.NewParam("ldb", i64))
		ret = c.elem
	case "scalm":
		params = append(params, ir.NewParam("alpha", c.elem), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "axpym":
		params = append(params, ir.NewParam("alpha", c.elem), ir.NewParam("x", pt), ir.NewParam("ldx", i64), ir.NewParam("y", pt), ir.NewParam("ldy", i64))
	case "trger":
		params = append(params, ir.NewParam("upper", types.I1), ir.NewParam("unit", types.I1), ir.NewParam("alpha", c.elem),
			ir.NewParam("u", pt), ir.NewParam("incu", i64), ir.NewParam("v", pt), ir.NewParam("incv", i64), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "diagaxpy":
		params = append(params, ir.NewParam("alpha", c.elem), ir.NewParam("a", pt), ir.NewParam("lda", i64),
			ir.NewParam("x", pt), ir.NewParam("incx", i64), ir.NewParam("y", pt), ir.NewParam("incy", i64))
	case "traxpym":
		params = append(params, ir.NewParam("upper", types.I1), ir.NewParam("unit", types.I1), ir.NewParam("alpha", c.elem),
			ir.NewParam("x", pt), ir.NewParam("ldx", i64), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "trfrob":
		params = append(params, ir.NewParam("upper", types.I1), ir.NewParam("a", pt), ir.NewParam("lda", i64), ir.NewParam("b", pt), ir.NewParam("ldb", i64))
		ret = c.elem
	case "trscalm":
		params = append(params, ir.NewParam("upper", types.I1), ir.NewParam("alpha", c.elem), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "diagscalem":
		params = append(params, ir.NewParam("left", types.I1), ir.NewParam("alpha", c.elem), ir.NewParam("d", pt), ir.NewParam("ldd", i64),
			ir.NewParam("x", pt), ir.NewParam("ldx", i64), ir.NewParam("y", pt), ir.NewParam("ldy", i64))
	}
	switch kind {
	case "lacpym":
		params = append(params, ir.NewParam("part", i64), ir.NewParam("a", pt), ir.NewParam("lda", i64), ir.NewParam("b", pt), ir.NewParam("ldb", i64))
	case "trmirror", "trmirroradd":
		params = append(params, ir.NewParam("tolower", types.I1), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "trgemv":
		params = append(params, ir.NewParam("upper", types.I1), ir.NewParam("unit", types.I1), ir.NewParam("left", types.I1),
			ir.NewParam("layout", c.enumT), ir.NewParam("tr", c.enumT), ir.NewParam("alpha", c.elem),
			ir.NewParam("p", pt), ir.NewParam("ldp", i64), ir.NewParam("q", pt), ir.NewParam("ldq", i64), ir.NewParam("a", pt), ir.NewParam("lda", i64))
	case "trdiagaxpy":
		params = append(params, ir.NewParam("lower", types.I1), ir.NewParam("alpha", c.elem), ir.NewParam("x", pt), ir.NewParam("ldx", i64),
			ir.NewParam("a", pt), ir.NewParam("lda", i64))
	}
	f := c.m.NewFunc(name, ret, params...)
	f.Linkage = enum.LinkageInternal
	entry, loop, exit := f.NewBlock("entry"), f.NewBlock("loop"), f.NewBlock("exit")
	h := *c
	h.b = entry
	h.slot = func(t types.Type) value.Value { return entry.NewAlloca(t) }
	rm, rows, cols := params[0], params[1], params[2]
	var outer, inner value.Value = entry.NewSelect(rm, rows, cols), entry.NewSelect(rm, cols, rows)
	if kind == "diagscalem" {
		// One axpy per row (left) or column of X and Y.
		outer = entry.NewSelect(params[3], rows, cols)
		inner = entry.NewSelect(params[3], cols, rows)
	}
	if kind == "trmirror" || kind == "trmirroradd" {
		outer = entry.NewSub(rows, constant.NewInt(i64, 1))
	}
	if kind == "trgemv" {
		// k columns, the last one empty and left out for a lower unit
		// triangle (an upper one's first is empty and kept, as Enzyme's).
		lowerUnit := entry.NewAnd(entry.NewXor(params[3], constant.True), params[4])
		outer = entry.NewSub(rows, entry.NewZExt(lowerUnit, i64))
	}
	if kind == "trger" {
		// A unit diagonal leaves the last segment empty where segments
		// shrink (lower, column major): no axpy of length 0 there, as in
		// Enzyme's rule.
		tail := entry.NewICmp(enum.IPredEQ, rm, params[3])
		skip := entry.NewZExt(entry.NewAnd(tail, params[4]), i64)
		outer = entry.NewSub(outer, skip)
	}
	var buf value.Value
	if kind == "cachem" {
		buf = h.alloc(entry.NewMul(rows, cols))
	}
	zero := constant.NewInt(i64, 0)
	entry.NewCondBr(entry.NewICmp(enum.IPredSGT, outer, zero), loop, exit)

	h.b = loop
	j := loop.NewPhi(ir.NewIncoming(zero, entry))
	var acc *ir.InstPhi
	if kind == "frob" || kind == "trfrob" {
		acc = loop.NewPhi(ir.NewIncoming(rules.FloatConst(c.elem, 0), entry))
	}
	row := func(p, ld value.Value) value.Value {
		return loop.NewGetElementPtr(c.elem, p, loop.NewMul(j, ld))
	}
	one := h.i(1)
	var next value.Value
	switch kind {
	case "cachem":
		h.blas("copy", inner, row(params[3], params[4]), one, row(buf, inner), one)
	case "frob":
		d := h.blas("dot", inner, row(params[3], params[4]), one, row(params[5], params[6]), one)
		next = loop.NewFAdd(acc, d)
		acc.Incs = append(acc.Incs, ir.NewIncoming(next, loop))
	case "scalm":
		h.blas("scal", inner, params[3], row(params[4], params[5]), one)
	case "axpym":
		h.blas("axpy", inner, params[3], row(params[4], params[5]), one, row(params[6], params[7]), one)
	case "trger":
		upper, unit, alpha := params[3], params[4], params[5]
		u, incu, v, incv, a, lda := params[6], params[7], params[8], params[9], params[10], params[11]
		n := rows
		u64 := loop.NewZExt(unit, i64)
		tail := loop.NewICmp(enum.IPredEQ, rm, upper)
		j0 := loop.NewSelect(tail, loop.NewAdd(j, u64), zero)
		ln := loop.NewSelect(tail, loop.NewSub(loop.NewSub(n, j), u64), loop.NewSub(loop.NewAdd(j, constant.NewInt(i64, 1)), u64))
		sv, incs := loop.NewSelect(rm, u, v), loop.NewSelect(rm, incu, incv)
		wv, incw := loop.NewSelect(rm, v, u), loop.NewSelect(rm, incv, incu)
		sc := loop.NewLoad(c.elem, loop.NewGetElementPtr(c.elem, sv, blasElem(loop, j, n, incs)))
		neg := loop.NewICmp(enum.IPredSLT, incw, zero)
		first := loop.NewAdd(j0, loop.NewSelect(neg, loop.NewSub(ln, n), zero))
		wp := loop.NewGetElementPtr(c.elem, wv, loop.NewMul(first, incw))
		ap := loop.NewGetElementPtr(c.elem, a, loop.NewAdd(loop.NewMul(j, lda), j0))
		h.blas("axpy", ln, loop.NewFMul(alpha, sc), wp, incw, ap, one)
	case "trfrob", "trscalm":
		n, upper := rows, params[3]
		tail := loop.NewICmp(enum.IPredEQ, rm, upper)
		j0 := loop.NewSelect(tail, j, zero)
		ln := loop.NewSelect(tail, loop.NewSub(n, j), loop.NewAdd(j, constant.NewInt(i64, 1)))
		seg := func(p, ld value.Value) value.Value {
			return loop.NewGetElementPtr(c.elem, p, loop.NewAdd(loop.NewMul(j, ld), j0))
		}
		if kind == "trscalm" {
			h.blas("scal", ln, params[4], seg(params[5], params[6]), one)
			break
		}
		d := h.blas("dot", ln, seg(params[4], params[5]), one, seg(params[6], params[7]), one)
		next = loop.NewFAdd(acc, d)
		acc.Incs = append(acc.Incs, ir.NewIncoming(next, loop))
	case "traxpym":
		upper, unit, alpha, x, ldx, a, lda := params[3], params[4], params[5], params[6], params[7], params[8], params[9]
		n := rows
		u64 := loop.NewZExt(unit, i64)
		tail := loop.NewICmp(enum.IPredEQ, rm, upper)
		j0 := loop.NewSelect(tail, loop.NewAdd(j, u64), zero)
		ln := loop.NewSelect(tail, loop.NewSub(loop.NewSub(n, j), u64), loop.NewSub(loop.NewAdd(j, constant.NewInt(i64, 1)), u64))
		xp := loop.NewGetElementPtr(c.elem, x, loop.NewAdd(loop.NewMul(j, ldx), j0))
		ap := loop.NewGetElementPtr(c.elem, a, loop.NewAdd(loop.NewMul(j, lda), j0))
		h.blas("axpy", ln, alpha, xp, one, ap, one)
	case "diagscalem":
		left, alpha, d, ldd, x, ldx, y, ldy := params[3], params[4], params[5], params[6], params[7], params[8], params[9], params[10]
		dj := loop.NewLoad(c.elem, loop.NewGetElementPtr(c.elem, d, loop.NewMul(j, loop.NewAdd(ldd, constant.NewInt(i64, 1)))))
		// Row j (left) or column j: contiguous where it is the layout's
		// inner direction, else strided by the leading dimension.
		contiguous := loop.NewICmp(enum.IPredEQ, left, rm)
		at := func(p, ld value.Value) (value.Value, value.Value) {
			off := loop.NewSelect(contiguous, loop.NewMul(j, ld), j)
			return loop.NewGetElementPtr(c.elem, p, off), loop.NewSelect(contiguous, constant.NewInt(i64, 1), ld)
		}
		xp, incx := at(x, ldx)
		yp, incy := at(y, ldy)
		h.blas("axpy", inner, loop.NewFMul(alpha, dj), xp, incx, yp, incy)
	case "lacpym":
		part, a, lda, b, ldb := params[3], params[4], params[5], params[6], params[7]
		full := loop.NewICmp(enum.IPredEQ, part, zero)
		upper := loop.NewICmp(enum.IPredEQ, part, constant.NewInt(i64, 1))
		tail := loop.NewICmp(enum.IPredEQ, rm, upper)
		j0 := loop.NewSelect(full, zero, loop.NewSelect(tail, j, zero))
		ln := loop.NewSelect(full, inner, loop.NewSelect(tail, loop.NewSub(inner, j), loop.NewAdd(j, constant.NewInt(i64, 1))))
		seg := func(p, ld value.Value) value.Value {
			return loop.NewGetElementPtr(c.elem, p, loop.NewAdd(loop.NewMul(j, ld), j0))
		}
		h.blas("copy", ln, seg(a, lda), one, seg(b, ldb), one)
	case "trmirror", "trmirroradd":
		toLower, a, lda := params[3], params[4], params[5]
		// A(r, c) is at r·ri + c·ci.
		i1 := constant.NewInt(i64, 1)
		ri, ci := loop.NewSelect(rm, lda, i1), loop.NewSelect(rm, i1, lda)
		diag := loop.NewMul(j, loop.NewAdd(ri, ci))
		right := loop.NewGetElementPtr(c.elem, a, loop.NewAdd(diag, ci)) // A(j, j+1), along the row by ci
		below := loop.NewGetElementPtr(c.elem, a, loop.NewAdd(diag, ri)) // A(j+1, j), down the column by ri
		src, incs := loop.NewSelect(toLower, right, below), loop.NewSelect(toLower, ci, ri)
		dst, incd := loop.NewSelect(toLower, below, right), loop.NewSelect(toLower, ri, ci)
		ln := loop.NewSub(loop.NewSub(rows, j), i1)
		if kind == "trmirror" {
			h.blas("copy", ln, src, incs, dst, incd)
		} else {
			h.blas("axpy", ln, h.f(1), src, incs, dst, incd)
		}
	case "trgemv":
		upper, unit, left, layout, tr, alpha := params[3], params[4], params[5], params[6], params[7], params[8]
		p, ldp, q, ldq, a, lda := params[9], params[10], params[11], params[12], params[13], params[14]
		k, inner, i1 := rows, cols, constant.NewInt(i64, 1)
		u64 := loop.NewZExt(unit, i64)
		// Column j of A's triangle: rows r0 .. r0+len-1.
		ln := loop.NewSelect(upper, loop.NewSub(loop.NewAdd(j, i1), u64), loop.NewSub(loop.NewSub(k, j), u64))
		r0 := loop.NewSelect(upper, zero, loop.NewAdd(j, u64))
		at := func(x, r, col, ld value.Value) value.Value {
			off := loop.NewSelect(rm, loop.NewAdd(loop.NewMul(r, ld), col), loop.NewAdd(loop.NewMul(col, ld), r))
			return loop.NewGetElementPtr(c.elem, x, off)
		}
		// Left: A(r0:, j) += alpha P(r0:, :)·Q(j, :)ᵀ; right: alpha
		// P(:, r0:)ᵀ·Q(:, j).
		pp := loop.NewSelect(left, at(p, r0, zero, ldp), at(p, zero, r0, ldp))
		qp := loop.NewSelect(left, at(q, j, zero, ldq), at(q, zero, j, ldq))
		incq := loop.NewSelect(loop.NewICmp(enum.IPredEQ, left, rm), i1, ldq)
		ap := at(a, r0, j, lda)
		inca := loop.NewSelect(rm, lda, i1)
		h.blas("gemv", layout, tr, loop.NewSelect(left, ln, inner), loop.NewSelect(left, inner, ln), alpha, pp, ldp, qp, incq,
			h.f(1), ap, inca)
	case "trdiagaxpy":
		lower, alpha, x, ldx, a, lda := params[3], params[4], params[5], params[6], params[7], params[8]
		i1 := constant.NewInt(i64, 1)
		// Down column j (lower) or along row j from the diagonal.
		step := func(ld value.Value) value.Value {
			return loop.NewSelect(loop.NewICmp(enum.IPredEQ, lower, rm), ld, i1)
		}
		xp := loop.NewGetElementPtr(c.elem, x, loop.NewMul(j, loop.NewAdd(ldx, i1)))
		ap := loop.NewGetElementPtr(c.elem, a, loop.NewMul(j, loop.NewAdd(lda, i1)))
		h.blas("axpy", loop.NewSub(rows, j), alpha, xp, step(ldx), ap, step(lda))
	case "diagaxpy":
		alpha, a, lda, x, incx, y, incy := params[3], params[4], params[5], params[6], params[7], params[8], params[9]
		n := rows
		ad := loop.NewLoad(c.elem, loop.NewGetElementPtr(c.elem, a, loop.NewMul(j, loop.NewAdd(lda, constant.NewInt(i64, 1)))))
		xv := loop.NewLoad(c.elem, loop.NewGetElementPtr(c.elem, x, blasElem(loop, j, n, incx)))
		yp := loop.NewGetElementPtr(c.elem, y, blasElem(loop, j, n, incy))
		loop.NewStore(loop.NewFAdd(loop.NewLoad(c.elem, yp), loop.NewFMul(alpha, loop.NewFMul(ad, xv))), yp)
	}
	j1 := loop.NewAdd(j, constant.NewInt(i64, 1))
	j.Incs = append(j.Incs, ir.NewIncoming(j1, loop))
	loop.NewCondBr(loop.NewICmp(enum.IPredSLT, j1, outer), loop, exit)

	switch kind {
	case "cachem":
		exit.NewRet(buf)
	case "frob", "trfrob":
		exit.NewRet(exit.NewPhi(ir.NewIncoming(rules.FloatConst(c.elem, 0), entry), ir.NewIncoming(next, loop)))
	default:
		exit.NewRet(nil)
	}
	return f
}

// blasElem is the offset of logical element k of an n-element vector with
// increment inc (negative: the last element first in memory).
func blasElem(b *ir.Block, k, n, inc value.Value) value.Value {
	neg := b.NewICmp(enum.IPredSLT, inc, constant.NewInt(types.I64, 0))
	i64 := types.I64
	kk := b.NewSelect(neg, b.NewSub(b.NewAdd(k, constant.NewInt(i64, 1)), n), k)
	return b.NewMul(kk, inc)
}
