package ad

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// LAPACK's auxiliary routines lacpy (copy a matrix, or its upper or lower
// triangle) and lascl (multiply a matrix, or a triangle or the upper
// Hessenberg part of it, by cto/cfrom) where the program calls them, in
// the ABIs of the other LAPACK rules: cblas_<p>lacpy(layout, uplo, m, n,
// A, lda, B, ldb) and cblas_<p>lascl(layout, type, kl, ku, cfrom, cto, m,
// n, A, lda, info) (Enzyme's test harness: info by value), and the Fortran
// <p>lacpy_ and <p>lascl_. The part a call touches is decided at run time
// from its uplo or type letter, in the matrix's own rows and columns (a
// row-major matrix's upper triangle is its upper triangle), and the rules'
// loops (lapackregion.go) touch that part only.
func init() {
	blasRules["lacpy"] = lacpyRule
	blasRules["lascl"] = lasclRule
}

// Parts of a matrix a region loop covers (lapackregion.go).
const (
	partNone       = -1
	partAll        = 0
	partUpper      = 1 // i <= j
	partLower      = 2 // i >= j
	partHessenberg = 3 // i <= j+1
	partBand       = 4 // lascl's band storage: no rule
)

// lacpy: B = A on the part uplo names ('U': upper triangle, 'L': lower,
// else all), the rest of B left as it was. Reverse: dA += dB and dB = 0 on
// the part (A and B do not overlap, as LAPACK requires). Forward: dB = dA
// there (0 for a constant A).
var lacpyRule = &blasRule{
	sig: "eeiipipi", outputs: []int{6},
	shape: func(c *blasCtx, i int) blasShape { return c.mat(0, c.arg(2), c.arg(3), i+1) },
	rev: func(c *blasCtx) {
		dB := c.shadow(6)
		if dB == nil {
			return
		}
		rm, m, n, ldb := c.rowMajor(c.arg(0)), c.i64(c.arg(2)), c.i64(c.arg(3)), c.i64(c.arg(7))
		part := c.lacpyPart(c.arg(1))
		if dA := c.shadow(4); dA != nil {
			c.when([]int{6, 4}, func() {
				c.b.NewCall(regionHelper(c, "axpy"), rm, m, n, part, c.f(1), dB, ldb, dA, c.i64(c.arg(5)))
			})
		}
		c.when([]int{6}, func() {
			c.b.NewCall(regionHelper(c, "zero"), rm, m, n, part, dB, ldb)
		})
	},
	fwd: func(c *blasCtx) {
		dB := c.shadow(6)
		if dB == nil {
			return
		}
		rm, m, n, ldb := c.rowMajor(c.arg(0)), c.i64(c.arg(2)), c.i64(c.arg(3)), c.i64(c.arg(7))
		part := c.lacpyPart(c.arg(1))
		if dA := c.shadow(4); dA != nil {
			c.b.NewCall(regionHelper(c, "copy"), rm, m, n, part, dA, c.i64(c.arg(5)), dB, ldb)
			return
		}
		c.b.NewCall(regionHelper(c, "zero"), rm, m, n, part, dB, ldb)
	},
}

// lascl: A = A·cto/cfrom on the part type names ('G': all, 'U' and 'L':
// a triangle, 'H': upper Hessenberg; the band types 'B', 'Q' and 'Z' stop
// the program: no rule). Where LAPACK leaves A alone (another letter, a
// zero or NaN cfrom, a NaN cto, lda too small) the derivative is the
// identity. With r = cto/cfrom and S = Σ dA∘A_old over the part:
// reverse: dcto += S/cfrom, dcfrom -= S·cto/cfrom², then dA *= r there;
// forward (before the call): dA = r·dA + (dcto/cfrom - dcfrom·cto/cfrom²)·A
// there.
var lasclRule = &blasRule{
	sig: "eeiiffiipii", outputs: []int{8},
	shape: func(c *blasCtx, i int) blasShape { return c.mat(0, c.arg(6), c.arg(7), 9) },
	needs: func(c *blasCtx) []int { return blasPick(c.shadow(8) != nil && (c.act(4) || c.act(5)), 8) },
	rev: func(c *blasCtx) {
		dA := c.shadow(8)
		if dA == nil {
			return
		}
		c.when([]int{8}, func() {
			rm, m, n, lda, part := c.lasclPart()
			cfrom, cto := c.arg(4), c.arg(5)
			if c.act(4) || c.act(5) {
				a, ldc := c.in(8)
				s := c.b.NewCall(regionHelper(c, "frob"), rm, m, n, part, a, c.i64(ldc), dA, lda)
				if c.act(5) {
					c.acc(5, c.b.NewFDiv(s, cfrom))
				}
				if c.act(4) {
					c.acc(4, c.b.NewFNeg(c.b.NewFDiv(c.b.NewFMul(s, cto), c.b.NewFMul(cfrom, cfrom))))
				}
			}
			c.b.NewCall(regionHelper(c, "scal"), rm, m, n, part, c.b.NewFDiv(cto, cfrom), dA, lda)
		})
	},
	fwd: func(c *blasCtx) {
		dA := c.shadow(8)
		if dA == nil {
			return
		}
		rm, m, n, lda, part := c.lasclPart()
		cfrom, cto := c.arg(4), c.arg(5)
		c.b.NewCall(regionHelper(c, "scal"), rm, m, n, part, c.b.NewFDiv(cto, cfrom), dA, lda)
		var coef value.Value
		if c.act(5) {
			coef = c.b.NewFDiv(c.dfloat(5), cfrom)
		}
		if c.act(4) {
			t := c.b.NewFNeg(c.b.NewFDiv(c.b.NewFMul(c.dfloat(4), cto), c.b.NewFMul(cfrom, cfrom)))
			coef = c.fsum(coef, t)
		}
		if coef != nil {
			c.b.NewCall(regionHelper(c, "axpy"), rm, m, n, part, coef, c.arg(8), lda, dA, lda)
		}
	},
}

// lacpyPart is the part (i64) lacpy's uplo letter names.
func (c *blasCtx) lacpyPart(uplo value.Value) value.Value {
	k := func(v int64) value.Value { return constant.NewInt(types.I64, v) }
	return c.b.NewSelect(c.eqAny(uplo, 'U', 'u'), k(partUpper), c.b.NewSelect(c.eqAny(uplo, 'L', 'l'), k(partLower), k(partAll)))
}

// lasclPart is the layout (i1 row major), the sizes and leading dimension
// (i64) and the part (i64) of a lascl call: partNone where LAPACK leaves A
// alone; for a band type, the program stops.
func (c *blasCtx) lasclPart() (rm, m, n, lda, part value.Value) {
	rm, m, n, lda = c.rowMajor(c.arg(0)), c.i64(c.arg(6)), c.i64(c.arg(7)), c.i64(c.arg(9))
	t := c.arg(1)
	k := func(v int64) value.Value { return constant.NewInt(types.I64, v) }
	part = k(partNone)
	for _, p := range []struct {
		letters []int64
		part    int64
	}{{[]int64{'G', 'g'}, partAll}, {[]int64{'U', 'u'}, partUpper}, {[]int64{'L', 'l'}, partLower},
		{[]int64{'H', 'h'}, partHessenberg}, {[]int64{'B', 'b', 'Q', 'q', 'Z', 'z'}, partBand}} {
		part = c.b.NewSelect(c.eqAny(t, p.letters...), k(p.part), part)
	}
	cfrom, cto := c.arg(4), c.arg(5)
	// LAPACK's checks: cfrom zero or NaN, cto NaN, lda < max(1, the
	// leading size): nothing changes.
	inner := c.b.NewSelect(rm, n, m)
	short := c.b.NewICmp(enum.IPredSLT, lda, c.b.NewSelect(c.b.NewICmp(enum.IPredSGT, inner, k(1)), inner, k(1)))
	bad := c.b.NewOr(c.b.NewFCmp(enum.FPredUEQ, cfrom, c.f(0)), c.b.NewFCmp(enum.FPredUNO, cto, cto))
	banded := c.b.NewICmp(enum.IPredEQ, part, k(partBand))
	bad = c.b.NewOr(bad, c.b.NewAnd(short, c.b.NewXor(banded, constant.True)))
	part = c.b.NewSelect(bad, k(partNone), part)
	return rm, m, n, lda, part
}
