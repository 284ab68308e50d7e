package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The LAPACK rules: Cholesky factorization (potrf), the solve with its
// factor (potrs) and the triangular solve (trtrs), in the ABIs Enzyme's
// rules take: cblas_<p><x>(layout, ..., int *info) (Enzyme's test
// harness) and the Fortran <p><x>_. Only the uplo triangle of A is read
// (and, for potrf, written): its entries are the variables. The reverse
// rules emit the BLAS/LAPACK call sequences of Enzyme's (its integration
// test ReverseMode/blas.cpp checks them) where those are right; scratch
// matrices are zeroed (calloc) so that the triangle they leave unset holds
// no garbage.
func init() {
	blasRules["potrf"] = potrfRule
	blasRules["potrs"] = potrsRule
	blasRules["trtrs"] = trtrsRule
}

// potrf: A = L·Lᵀ (uplo L) or Uᵀ·U (uplo U), the factor written over A's
// triangle (layout, uplo, n, A, lda, info). With F the factor and F̄ its
// adjoint (the triangle of dA), lower: P = Φ(Lᵀ·L̄) (the lower triangle,
// half the diagonal), M = L⁻ᵀ·P·L⁻¹, Ā = M + Mᵀ off the diagonal and M's
// diagonal, on the lower triangle; upper is its transpose. Forward: with
// dS the symmetric matrix of dA's triangle, lower: dL = L·Φ(L⁻¹·dS·L⁻ᵀ),
// upper: dU = Φ(U⁻ᵀ·dS·U⁻¹)·U; dA's other triangle is left as it was.
var potrfRule = &blasRule{
	sig: "eeipin", outputs: []int{3}, after: true,
	shape:      func(c *blasCtx, i int) blasShape { return c.mat(0, c.arg(2), c.arg(2), 4) },
	needsAfter: func(c *blasCtx) []int { return blasPick(c.shadow(3) != nil, 3) },
	cacheUplo:  func(c *blasCtx, i int) value.Value { return c.arg(1) },
	rev: func(c *blasCtx) {
		dA := c.shadow(3)
		if dA == nil {
			return
		}
		layout, uplo, n, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(4)
		c.when([]int{3}, func() {
			f, ldf := c.inAfter(3)
			diagN := c.letterLike(uplo, cblasNonUnit, 'N', false)
			tri := c.calloc(c.mul(n, n))
			c.lacpy(layout, uplo, false, n, n, dA, lda, tri, n)
			c.blas("trmm", layout, c.uploSide(uplo, false), uplo, c.transCode(uplo, true), diagN, n, n, c.f(1), f, ldf, tri, n)
			tmp := c.alloc(n)
			np1 := c.b.NewAdd(n, c.i(1))
			c.blas("copy", n, tri, np1, tmp, c.i(1))
			c.blas("scal", n, c.f(0.5), tmp, c.i(1))
			c.lascl(layout, uplo, true, c.f(0), n, tri, n)
			c.blas("copy", n, tmp, c.i(1), tri, np1)
			c.blas("trsm", layout, c.uploSide(uplo, true), uplo, c.transCode(uplo, false), diagN, n, n, c.f(1), f, ldf, tri, n)
			c.blas("trsm", layout, c.uploSide(uplo, false), uplo, c.transCode(uplo, true), diagN, n, n, c.f(1), f, ldf, tri, n)
			c.b.NewCall(blasHelper(c, "trmirroradd"), c.rowMajor(layout), c.i64(n), c.i64(n), c.lower(uplo), tri, c.i64(n))
			c.lacpy(layout, uplo, false, n, n, tri, n, dA, lda)
			c.free(tmp)
			c.free(tri)
		})
	},
	fwd: func(c *blasCtx) {
		dA := c.shadow(3)
		if dA == nil {
			return
		}
		layout, uplo, n, a, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)
		lower := c.lower(uplo)
		diagN := c.letterLike(uplo, cblasNonUnit, 'N', false)
		noT := c.letterLike(uplo, cblasNoTrans, 'N', true)
		tr := c.letterLike(uplo, cblasTrans, 'T', true)
		np1 := c.b.NewAdd(lda, c.i(1))
		// Keep dA's other triangle (and diagonal), then make dA symmetric.
		tri := c.alloc(c.mul(n, n))
		c.lacpy(layout, uplo, true, n, n, dA, lda, tri, n)
		c.b.NewCall(blasHelper(c, "trmirror"), c.rowMajor(layout), c.i64(n), c.i64(n), c.b.NewXor(lower, constant.True), dA, c.i64(lda))
		c.blas("trsm", layout, c.sideCode(uplo, true), uplo, c.sel(lower, noT, tr), diagN, n, n, c.f(1), a, lda, dA, lda)
		c.blas("trsm", layout, c.sideCode(uplo, false), uplo, c.sel(lower, tr, noT), diagN, n, n, c.f(1), a, lda, dA, lda)
		c.blas("scal", n, c.f(0.5), dA, np1)
		tmp := c.alloc(n)
		c.blas("copy", n, dA, np1, tmp, c.i(1))
		c.lascl(layout, uplo, true, c.f(0), n, dA, lda)
		c.blas("copy", n, tmp, c.i(1), dA, np1)
		c.blas("trmm", layout, c.uploSide(uplo, false), uplo, c.transCode(uplo, false), diagN, n, n, c.f(1), a, lda, dA, lda)
		c.blas("copy", n, dA, np1, tmp, c.i(1))
		c.lacpy(layout, uplo, true, n, n, tri, n, dA, lda)
		c.blas("copy", n, tmp, c.i(1), dA, np1)
		c.free(tmp)
		c.free(tri)
	},
}

// potrs: X = S⁻¹·B with S = F·Fᵀ (uplo L) or Fᵀ·F (U), F the factor in A's
// triangle, X written over B (layout, uplo, n, nrhs, A, lda, B, ldb,
// info). Reverse: with P = X̄·Bᵀ + B·X̄ᵀ (syr2k, B the right-hand side
// before the call), F̄ -= the triangle of S⁻¹·P·S⁻¹·F = L⁻ᵀ·L⁻¹·P·L⁻ᵀ
// (lower) or F·S⁻¹·P·S⁻¹ = U⁻ᵀ·P·U⁻¹·U⁻ᵀ (upper), three trsm as Enzyme
// does; then B̄ = S⁻¹·X̄ (potrs). Forward: dX = S⁻¹·(dB - dS·X), dS·X =
// dF·(Fᵀ·X) + F·(dFᵀ·X) (lower; upper with the transposes swapped).
var potrsRule = &blasRule{
	sig: "eeiipipin", outputs: []int{6}, after: true,
	shape: func(c *blasCtx, i int) blasShape {
		if i == 4 {
			return c.mat(0, c.arg(2), c.arg(2), 5)
		}
		return c.mat(0, c.arg(2), c.arg(3), 7)
	},
	needs: func(c *blasCtx) []int {
		dB := c.shadow(6) != nil
		return blasPick(dB && c.shadow(4) != nil, 6, dB, 4)
	},
	cacheUplo: func(c *blasCtx, i int) value.Value {
		if i == 4 {
			return c.arg(1)
		}
		return nil
	},
	rev: func(c *blasCtx) {
		dB := c.shadow(6)
		if dB == nil {
			return
		}
		layout, uplo, n, nrhs, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(7)
		f, ldf := c.in(4)
		diagN := c.letterLike(uplo, cblasNonUnit, 'N', false)
		noT, tr := c.transCode(uplo, false), c.transCode(uplo, true)
		if dA := c.shadow(4); dA != nil {
			c.when([]int{6, 4}, func() {
				b, ldbo := c.in(6)
				tri := c.calloc(c.mul(n, n))
				c.blas("syr2k", layout, c.letterLike(uplo, cblasUpper, 'U', false), noT, n, nrhs, c.f(1), b, ldbo, dB, ldb, c.f(0), tri, n)
				c.b.NewCall(blasHelper(c, "trmirror"), c.rowMajor(layout), c.i64(n), c.i64(n), constant.True, tri, c.i64(n))
				c.blas("trsm", layout, c.uploSide(uplo, true), uplo, tr, diagN, n, n, c.f(1), f, ldf, tri, n)
				c.blas("trsm", layout, c.uploSide(uplo, false), uplo, noT, diagN, n, n, c.f(1), f, ldf, tri, n)
				c.blas("trsm", layout, c.uploSide(uplo, false), uplo, tr, diagN, n, n, c.f(1), f, ldf, tri, n)
				c.b.NewCall(blasHelper(c, "trdiagaxpy"), c.rowMajor(layout), c.i64(n), c.i64(n), c.lower(uplo), c.f(-1), tri, c.i64(n), dA, c.i64(c.arg(5)))
				c.free(tri)
			})
		}
		c.when([]int{6}, func() {
			c.blas("potrs", layout, uplo, n, nrhs, f, ldf, dB, ldb, c.slot(c.intT))
		})
	},
	fwd: func(c *blasCtx) {
		dB := c.shadow(6)
		if dB == nil {
			return
		}
		layout, uplo, n, nrhs, a, lda, x, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(7)
		if dA := c.shadow(4); dA != nil {
			rm := c.rowMajor(layout)
			left := c.sideCode(uplo, true)
			diagN := c.letterLike(uplo, cblasNonUnit, 'N', false)
			noT, tr := c.transCode(uplo, false), c.transCode(uplo, true)
			lower := c.lower(uplo)
			in, out := c.sel(lower, tr, noT), c.sel(lower, noT, tr)
			u, ldu := c.copyMatrix(rm, n, nrhs, x, ldb)
			c.blas("trmm", layout, left, uplo, in, diagN, n, nrhs, c.f(1), a, lda, u, ldu)
			c.blas("trmm", layout, left, uplo, out, diagN, n, nrhs, c.f(1), dA, lda, u, ldu)
			w, _ := c.copyMatrix(rm, n, nrhs, x, ldb)
			c.blas("trmm", layout, left, uplo, in, diagN, n, nrhs, c.f(1), dA, lda, w, ldu)
			c.blas("trmm", layout, left, uplo, out, diagN, n, nrhs, c.f(1), a, lda, w, ldu)
			c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(n), c.i64(nrhs), c.f(-1), u, c.i64(ldu), dB, c.i64(ldb))
			c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(n), c.i64(nrhs), c.f(-1), w, c.i64(ldu), dB, c.i64(ldb))
			c.free(u)
			c.free(w)
		}
		c.blas("potrs", layout, uplo, n, nrhs, a, lda, dB, ldb, c.slot(c.intT))
	},
}

// trtrs: X = op(A)⁻¹·B on A's triangle, X written over B (layout, uplo,
// trans, diag, n, nrhs, A, lda, B, ldb, info). Reverse: B̄ = op(A)⁻ᵀ·X̄;
// Ā -= B̄·Xᵀ (op N) or X·B̄ᵀ (op T) on the triangle, not on a unit
// diagonal. Forward: dX = op(A)⁻¹·(dB - op(dA)·X).
var trtrsRule = &blasRule{
	sig: "eeeeiipipin", outputs: []int{8}, after: true,
	shape: func(c *blasCtx, i int) blasShape {
		if i == 6 {
			return c.mat(0, c.arg(4), c.arg(4), 7)
		}
		return c.mat(0, c.arg(4), c.arg(5), 9)
	},
	// A does not change in the call: its copy, where later code may
	// overwrite it, is made after the call as Enzyme's is.
	needsAfter: func(c *blasCtx) []int {
		dB := c.shadow(8) != nil
		return blasPick(dB, 6, dB && c.shadow(6) != nil, 8)
	},
	cacheUplo: func(c *blasCtx, i int) value.Value {
		if i == 6 {
			return c.arg(1)
		}
		return nil
	},
	rev: func(c *blasCtx) {
		dB := c.shadow(8)
		if dB == nil {
			return
		}
		layout, uplo, trans, diag, n, nrhs, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(9)
		a, lda := c.inAfter(6)
		c.when([]int{8}, func() {
			c.blas("trtrs", layout, uplo, c.transpose(trans), diag, n, nrhs, a, lda, dB, ldb, c.slot(c.intT))
		})
		if dA := c.shadow(6); dA != nil {
			c.when([]int{8, 6}, func() {
				x, ldx := c.inAfter(8)
				ldda := c.arg(7)
				tri := c.calloc(c.mul(n, n))
				c.lacpy(layout, uplo, false, n, n, dA, ldda, tri, n)
				isN := c.isN(trans)
				c.blas("gemm", layout, c.transCode(uplo, false), c.transCode(uplo, true), n, n, nrhs, c.f(-1),
					c.sel(isN, dB, x), c.sel(isN, ldb, ldx), c.sel(isN, x, dB), c.sel(isN, ldx, ldb), c.f(1), tri, n)
				// A unit diagonal is no variable: it keeps its adjoint.
				c.blas("copy", c.sel(c.unit(diag), n, c.i(0)), dA, c.b.NewAdd(ldda, c.i(1)), tri, c.b.NewAdd(n, c.i(1)))
				c.lacpy(layout, uplo, false, n, n, tri, n, dA, ldda)
				c.free(tri)
			})
		}
	},
	fwd: func(c *blasCtx) {
		dB := c.shadow(8)
		if dB == nil {
			return
		}
		layout, uplo, trans, diag, n, nrhs, a, lda, x, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(7), c.arg(8), c.arg(9)
		if dA := c.shadow(6); dA != nil {
			rm := c.rowMajor(layout)
			t, ldt := c.copyMatrix(rm, n, nrhs, x, ldb)
			c.blas("trmm", layout, c.sideCode(uplo, true), uplo, trans, c.nonUnit(diag), n, nrhs, c.f(1), dA, lda, t, ldt)
			minus := c.b.NewSelect(c.unit(diag), c.f(-1), c.f(0))
			c.b.NewCall(blasHelper(c, "diagscalem"), rm, c.i64(n), c.i64(nrhs), constant.True, minus, dA, c.i64(lda),
				x, c.i64(ldb), t, c.i64(ldt))
			c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(n), c.i64(nrhs), c.f(-1), t, c.i64(ldt), dB, c.i64(ldb))
			c.free(t)
		}
		c.blas("trtrs", layout, uplo, trans, diag, n, nrhs, a, lda, dB, ldb, c.slot(c.intT))
	},
}

// lower: an i1 from an uplo argument.
func (c *blasCtx) lower(uplo value.Value) value.Value {
	return c.b.NewXor(c.upper(uplo), constant.True)
}

// cblasEnum: an i1, uplo is CBLAS's enum (not a letter).
func (c *blasCtx) cblasEnum(uplo value.Value) value.Value {
	return c.eqAny(uplo, cblasUpper, cblasUpper+1)
}

// letterLike is a code in uplo's encoding: CBLAS's cb, else the letter ch,
// in lower case where keepCase and uplo is ('u', 'l').
func (c *blasCtx) letterLike(uplo value.Value, cb, ch int64, keepCase bool) value.Value {
	it := uplo.Type().(*types.IntType)
	letter := value.Value(constant.NewInt(it, ch))
	if keepCase {
		letter = c.b.NewSelect(c.eqAny(uplo, 'u', 'l'), constant.NewInt(it, ch+'a'-'A'), letter)
	}
	return c.b.NewSelect(c.cblasEnum(uplo), constant.NewInt(it, cb), letter)
}

// uploSide is the side a triangle's factor multiplies on in Enzyme's
// rules: left for lower, right for upper (opposite: the other one).
func (c *blasCtx) uploSide(uplo value.Value, opposite bool) value.Value {
	left := c.lower(uplo)
	if opposite {
		left = c.upper(uplo)
	}
	return c.b.NewSelect(left, c.sideCode(uplo, true), c.sideCode(uplo, false))
}

// uploChar is LAPACK's letter for uplo's triangle (the other one where
// flip), in uplo's case (CBLAS's enum: upper case), as an i8.
func (c *blasCtx) uploChar(uplo value.Value, flip bool) value.Value {
	up := c.upper(uplo)
	if flip {
		up = c.b.NewXor(up, constant.True)
	}
	small := c.eqAny(uplo, 'u', 'l')
	k := func(v int64) value.Value { return constant.NewInt(types.I8, v) }
	return c.b.NewSelect(up, c.b.NewSelect(small, k('u'), k('U')), c.b.NewSelect(small, k('l'), k('L')))
}

// lacpy copies the rows x cols matrix a into b: uplo's triangle (the other
// one where flip; nil: all of it). With the module's cblas_<p>lacpy
// (layout, uplo, m, n, A, lda, B, ldb; Enzyme's harness) or <p>lacpy_
// where it has one, else a loop of copies.
func (c *blasCtx) lacpy(layout, uplo value.Value, flip bool, rows, cols, a, lda, b, ldb value.Value) {
	ch := value.Value(constant.NewInt(types.I8, 0))
	part := value.Value(constant.NewInt(types.I64, 0))
	if uplo != nil {
		ch = c.uploChar(uplo, flip)
		up := c.upper(uplo)
		if flip {
			up = c.b.NewXor(up, constant.True)
		}
		part = c.b.NewSelect(up, constant.NewInt(types.I64, 1), constant.NewInt(types.I64, 2))
	}
	if f := c.lapack("lacpy", 7); f != nil {
		if uplo == nil {
			ch = constant.NewInt(types.I8, 'G')
		}
		c.lapackCall(f, ch, rows, cols, a, lda, b, ldb)
		return
	}
	if f := c.cblasLapack("lacpy", 8); f != nil {
		callConverted(c.b, f, layout, ch, rows, cols, a, lda, b, ldb)
		return
	}
	c.b.NewCall(blasHelper(c, "lacpym"), c.rowMajor(layout), c.i64(rows), c.i64(cols), part, a, c.i64(lda), b, c.i64(ldb))
}

// lascl multiplies uplo's triangle (the other one where flip) of the n x n
// matrix a by cto: the module's cblas_<p>lascl (Enzyme's harness: layout,
// type, kl, ku, cfrom, cto, m, n, A, lda, info) or <p>lascl_ where it has
// one, else a loop of scal.
func (c *blasCtx) lascl(layout, uplo value.Value, flip bool, cto, n, a, lda value.Value) {
	ch := c.uploChar(uplo, flip)
	if f := c.lapack("lascl", 10); f != nil {
		c.lapackCall(f, ch, c.i(0), c.i(0), c.f(1), cto, n, n, a, lda, c.slot(c.intT))
		return
	}
	if f := c.cblasLapack("lascl", 11); f != nil && !types.IsPointer(f.Params[10].Typ) {
		callConverted(c.b, f, layout, ch, c.i(0), c.i(0), c.f(1), cto, n, n, a, lda, constant.NewInt(types.I32, 0))
		return
	}
	up := c.upper(uplo)
	if flip {
		up = c.b.NewXor(up, constant.True)
	}
	c.b.NewCall(blasHelper(c, "trscalm"), c.rowMajor(layout), c.i64(n), c.i64(n), up, cto, a, c.i64(lda))
}

// cblasLapack returns the module's cblas_<p><name> with params parameters
// (a CBLAS-ABI call only), else nil.
func (c *blasCtx) cblasLapack(name string, params int) *ir.Func {
	if c.fortran {
		return nil
	}
	for _, f := range c.m.Funcs {
		if f.Name() == "cblas_"+string(c.p)+name && len(f.Params) == params {
			return f
		}
	}
	return nil
}

// calloc is alloc with the elements zeroed.
func (c *blasCtx) calloc(n value.Value) value.Value {
	n64 := c.i64(n)
	pos := c.b.NewICmp(enum.IPredSGT, n64, constant.NewInt(types.I64, 1))
	cnt := c.b.NewSelect(pos, n64, constant.NewInt(types.I64, 1))
	raw := c.b.NewCall(rules.Declare(c.m, "calloc", types.I8Ptr, types.I64, types.I64), cnt, constant.NewInt(types.I64, int64(floatBits(c.elem)/8)))
	return c.b.NewBitCast(raw, types.NewPointer(c.elem))
}
