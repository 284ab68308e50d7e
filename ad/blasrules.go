package ad

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The BLAS rules, one entry per routine (arguments as CBLAS numbers them).
// Notation: op(A) is A or its transpose as the call's transpose argument
// says; dX the shadow of X; α, β the scalars. Reverse rules read dY before
// scaling it (the adjoint of the output's old value comes last).
var blasRules = map[string]*blasRule{
	// r = x·y. Reverse: dx += dr·y, dy += dr·x. Forward: dr = dx·y + x·dy.
	"dot": {
		sig: "ipipi", ret: true,
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(0), i+1) },
		needs: func(c *blasCtx) []int { return blasPick(c.shadow(3) != nil, 1, c.shadow(1) != nil, 3) },
		rev: func(c *blasCtx) {
			if dx := c.shadow(1); dx != nil {
				c.when([]int{1}, func() {
					y, incy := c.in(3)
					c.blas("axpy", c.arg(0), c.dret, y, incy, dx, c.arg(2))
				})
			}
			if dy := c.shadow(3); dy != nil {
				c.when([]int{3}, func() {
					x, incx := c.in(1)
					c.blas("axpy", c.arg(0), c.dret, x, incx, dy, c.arg(4))
				})
			}
		},
		fwd: func(c *blasCtx) {
			var t value.Value
			if dx := c.shadow(1); dx != nil {
				t = c.blas("dot", c.arg(0), dx, c.arg(2), c.arg(3), c.arg(4))
			}
			if dy := c.shadow(3); dy != nil {
				t = c.fsum(t, c.blas("dot", c.arg(0), c.arg(1), c.arg(2), dy, c.arg(4)))
			}
			c.out = t
		},
	},
	// r = ‖x‖. Reverse: dx += (dr/r)·x, r computed again (nrm2). Forward:
	// dr = x·dx / r (Enzyme's forward rule gives sqrt(x·dx)/r).
	"nrm2": {
		sig: "ipi", ret: true, after: true,
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(0), 2) },
		needs: func(c *blasCtx) []int { return blasPick(c.shadow(1) != nil, 1) },
		rev: func(c *blasCtx) {
			if dx := c.shadow(1); dx != nil {
				c.when([]int{1}, func() {
					x, incx := c.in(1)
					// The norm computed again from x, as Enzyme's rule does
					// (the same value as the call's result).
					r := c.blas("nrm2", c.arg(0), x, incx)
					c.blas("axpy", c.positiveInc(c.arg(0), c.arg(2)), c.b.NewFDiv(c.dret, r), x, incx, dx, c.arg(2))
				})
			}
		},
		fwd: func(c *blasCtx) {
			if dx := c.shadow(1); dx != nil {
				t := c.b.NewFDiv(c.blas("dot", c.arg(0), c.arg(1), c.arg(2), dx, c.arg(2)), c.res)
				pos := c.b.NewICmp(enum.IPredSGT, c.arg(2), constant.NewInt(c.arg(2).Type().(*types.IntType), 0))
				c.out = c.b.NewSelect(pos, t, c.f(0)) // BLAS: 0 for incx <= 0
			}
		},
	},
	// y += α·x. Reverse: dα += dy·x, dx += α·dy. Forward: dy += α·dx + dα·x.
	"axpy": {
		sig: "ifpipi", outputs: []int{4},
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(0), i+1) },
		needs: func(c *blasCtx) []int { return blasPick(c.act(1), 2) },
		rev: func(c *blasCtx) {
			dy := c.shadow(4)
			if dy == nil {
				return
			}
			if c.act(1) {
				c.when([]int{4}, func() {
					x, incx := c.in(2)
					c.acc(1, c.blas("dot", c.arg(0), dy, c.arg(5), x, incx))
				})
			}
			if dx := c.shadow(2); dx != nil {
				c.when([]int{4, 2}, func() {
					c.blas("axpy", c.arg(0), c.arg(1), dy, c.arg(5), dx, c.arg(3))
				})
			}
		},
		fwd: func(c *blasCtx) {
			dy := c.shadow(4)
			if dy == nil {
				return
			}
			if dx := c.shadow(2); dx != nil {
				c.blas("axpy", c.arg(0), c.arg(1), dx, c.arg(3), dy, c.arg(5))
			}
			if c.act(1) {
				c.blas("axpy", c.arg(0), c.dfloat(1), c.arg(2), c.arg(3), dy, c.arg(5))
			}
		},
	},
	// x *= α. Reverse: dα += x_old·dx, dx *= α. Forward: dx = α·dx + dα·x_old.
	"scal": {
		sig: "ifpi", outputs: []int{2},
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(0), 3) },
		needs: func(c *blasCtx) []int { return blasPick(c.act(1), 2) },
		rev: func(c *blasCtx) {
			dx := c.shadow(2)
			if dx == nil {
				return
			}
			c.when([]int{2}, func() {
				if c.act(1) {
					x, incx := c.in(2)
					c.acc(1, c.blas("dot", c.positiveInc(c.arg(0), c.arg(3)), x, incx, dx, c.arg(3)))
				}
				c.blas("scal", c.arg(0), c.arg(1), dx, c.arg(3))
			})
		},
		fwd: func(c *blasCtx) {
			dx := c.shadow(2)
			if dx == nil {
				return
			}
			c.blas("scal", c.arg(0), c.arg(1), dx, c.arg(3))
			if c.act(1) {
				c.blas("axpy", c.positiveInc(c.arg(0), c.arg(3)), c.dfloat(1), c.arg(2), c.arg(3), dx, c.arg(3))
			}
		},
	},
	// y = x. Reverse: dx += dy, dy = 0. Forward: dy = dx (0 for a constant x).
	"copy": {
		sig: "ipipi", outputs: []int{3},
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(0), i+1) },
		needs: func(c *blasCtx) []int { return nil },
		rev: func(c *blasCtx) {
			dy := c.shadow(3)
			if dy == nil {
				return
			}
			if dx := c.shadow(1); dx != nil {
				c.when([]int{3, 1}, func() {
					c.blas("axpy", c.arg(0), c.f(1), dy, c.arg(4), dx, c.arg(2))
				})
			}
			c.when([]int{3}, func() {
				c.blas("scal", c.arg(0), c.f(0), dy, c.arg(4))
			})
		},
		fwd: func(c *blasCtx) {
			dy := c.shadow(3)
			if dy == nil {
				return
			}
			if dx := c.shadow(1); dx != nil {
				c.blas("copy", c.arg(0), dx, c.arg(2), dy, c.arg(4))
			} else {
				c.blas("scal", c.arg(0), c.f(0), dy, c.arg(4))
			}
		},
	},
	// y = α·op(A)·x + β·y (layout, trans, m, n, α, A, lda, x, incx, β, y, incy).
	// Reverse: dα += dy·(op(A)x), dA += α·dy·xᵀ (op(A) = A) or α·x·dyᵀ
	// (op(A) = Aᵀ), dx += α·op(A)ᵀ·dy, dβ += dy·y_old, dy *= β.
	"gemv": {
		sig: "eeiifpipifpi", outputs: []int{10},
		shape: func(c *blasCtx, i int) blasShape {
			n := c.isN(c.arg(1))
			switch i {
			case 5:
				return c.mat(0, c.arg(2), c.arg(3), 6)
			case 7:
				return c.vec(c.sel(n, c.arg(3), c.arg(2)), 8)
			}
			return c.vec(c.sel(n, c.arg(2), c.arg(3)), 11)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.shadow(7) != nil || c.act(4), 5, c.shadow(5) != nil || c.act(4), 7, c.act(9), 10)
		},
		rev: func(c *blasCtx) {
			dy := c.shadow(10)
			if dy == nil {
				return
			}
			layout, trans, m, n, incy := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(11)
			isN := c.isN(trans)
			leny := c.sel(isN, m, n)
			if c.act(4) {
				c.when([]int{10}, func() {
					a, lda := c.in(5)
					x, incx := c.in(7)
					tmp := c.alloc(leny)
					c.blas("gemv", layout, trans, m, n, c.f(1), a, lda, x, incx, c.f(0), tmp, c.i(1))
					c.acc(4, c.blas("dot", leny, dy, incy, tmp, c.i(1)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(5); dA != nil {
				c.when([]int{10, 5}, func() {
					x, incx := c.in(7)
					c.blas("ger", layout, m, n, c.arg(4), c.sel(isN, dy, x), c.sel(isN, incy, incx),
						c.sel(isN, x, dy), c.sel(isN, incx, incy), dA, c.arg(6))
				})
			}
			if dx := c.shadow(7); dx != nil {
				c.when([]int{10, 7}, func() {
					a, lda := c.in(5)
					c.blas("gemv", layout, c.transpose(trans), m, n, c.arg(4), a, lda, dy, incy, c.f(1), dx, c.arg(8))
				})
			}
			c.when([]int{10}, func() {
				if c.act(9) {
					y, incyOld := c.in(10)
					c.acc(9, c.blas("dot", leny, dy, incy, y, incyOld))
				}
				c.blas("scal", leny, c.arg(9), dy, incy)
			})
		},
		fwd: func(c *blasCtx) {
			dy := c.shadow(10)
			if dy == nil {
				return
			}
			layout, trans, m, n, incy := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(11)
			leny := c.sel(c.isN(trans), m, n)
			beta := c.firstUse(c.arg(9))
			if dx := c.shadow(7); dx != nil {
				c.blas("gemv", layout, trans, m, n, c.arg(4), c.arg(5), c.arg(6), dx, c.arg(8), beta(), dy, incy)
			}
			if dA := c.shadow(5); dA != nil {
				c.blas("gemv", layout, trans, m, n, c.arg(4), dA, c.arg(6), c.arg(7), c.arg(8), beta(), dy, incy)
			}
			if c.act(4) {
				c.blas("gemv", layout, trans, m, n, c.dfloat(4), c.arg(5), c.arg(6), c.arg(7), c.arg(8), beta(), dy, incy)
			}
			if b := beta(); b == c.arg(9) {
				c.blas("scal", leny, b, dy, incy)
			}
			if c.act(9) {
				c.blas("axpy", leny, c.dfloat(9), c.arg(10), incy, dy, incy)
			}
		},
	},
	// A += α·x·yᵀ (layout, m, n, α, x, incx, y, incy, A, lda).
	// Reverse: dα += xᵀ·dA·y, dx += α·dA·y, dy += α·dAᵀ·x.
	"ger": {
		sig: "eiifpipipi", outputs: []int{8},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 4 {
				return c.vec(c.arg(1), 5)
			}
			return c.vec(c.arg(2), 7)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.shadow(4) != nil || c.act(3), 6, c.shadow(6) != nil || c.act(3), 4)
		},
		rev: func(c *blasCtx) {
			dA := c.shadow(8)
			if dA == nil {
				return
			}
			layout, m, n, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(9)
			noT, t := c.enumConst(cblasNoTrans), c.enumConst(cblasTrans)
			if c.act(3) {
				c.when([]int{8}, func() {
					x, incx := c.in(4)
					y, incy := c.in(6)
					tmp := c.alloc(m)
					c.blas("gemv", layout, noT, m, n, c.f(1), dA, lda, y, incy, c.f(0), tmp, c.i(1))
					c.acc(3, c.blas("dot", m, x, incx, tmp, c.i(1)))
					c.free(tmp)
				})
			}
			if dx := c.shadow(4); dx != nil {
				c.when([]int{8, 4}, func() {
					y, incy := c.in(6)
					c.blas("gemv", layout, noT, m, n, c.arg(3), dA, lda, y, incy, c.f(1), dx, c.arg(5))
				})
			}
			if dy := c.shadow(6); dy != nil {
				c.when([]int{8, 6}, func() {
					x, incx := c.in(4)
					c.blas("gemv", layout, t, m, n, c.arg(3), dA, lda, x, incx, c.f(1), dy, c.arg(7))
				})
			}
		},
		fwd: func(c *blasCtx) {
			dA := c.shadow(8)
			if dA == nil {
				return
			}
			layout, m, n, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(9)
			if dx := c.shadow(4); dx != nil {
				c.blas("ger", layout, m, n, c.arg(3), dx, c.arg(5), c.arg(6), c.arg(7), dA, lda)
			}
			if dy := c.shadow(6); dy != nil {
				c.blas("ger", layout, m, n, c.arg(3), c.arg(4), c.arg(5), dy, c.arg(7), dA, lda)
			}
			if c.act(3) {
				c.blas("ger", layout, m, n, c.dfloat(3), c.arg(4), c.arg(5), c.arg(6), c.arg(7), dA, lda)
			}
		},
	},
	// C = α·op(A)·op(B) + β·C (layout, transa, transb, m, n, k, α, A, lda,
	// B, ldb, β, C, ldc). Reverse: dα += ⟨dC, op(A)op(B)⟩, d op(A) +=
	// α·dC·op(B)ᵀ, d op(B) += α·op(A)ᵀ·dC, dβ += ⟨dC, C_old⟩, dC *= β.
	"gemm": {
		sig: "eeeiiifpipifpi", outputs: []int{12},
		shape: func(c *blasCtx, i int) blasShape {
			m, n, k := c.arg(3), c.arg(4), c.arg(5)
			switch i {
			case 7:
				isN := c.isN(c.arg(1))
				return c.mat(0, c.sel(isN, m, k), c.sel(isN, k, m), 8)
			case 9:
				isN := c.isN(c.arg(2))
				return c.mat(0, c.sel(isN, k, n), c.sel(isN, n, k), 10)
			}
			return c.mat(0, m, n, 13)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.shadow(9) != nil || c.act(6), 7, c.shadow(7) != nil || c.act(6), 9, c.act(11), 12)
		},
		rev: func(c *blasCtx) {
			dC := c.shadow(12)
			if dC == nil {
				return
			}
			layout, ta, tb, m, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(13)
			rm := c.rowMajor(layout)
			if c.act(6) {
				c.when([]int{12}, func() {
					a, lda := c.in(7)
					b, ldb := c.in(9)
					ldt := c.sel(rm, n, m)
					tmp := c.alloc(c.mul(m, n))
					c.blas("gemm", layout, ta, tb, m, n, k, c.f(1), a, lda, b, ldb, c.f(0), tmp, ldt)
					c.acc(6, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dC, c.i64(ldc), tmp, c.i64(ldt)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(7); dA != nil {
				c.when([]int{12, 7}, func() {
					b, ldb := c.in(9)
					isN := c.isN(ta)
					c.blas("gemm", layout, c.sel(isN, ta, tb), c.sel(isN, c.transpose(tb), ta),
						c.sel(isN, m, k), c.sel(isN, k, m), n, c.arg(6),
						c.sel(isN, dC, b), c.sel(isN, ldc, ldb), c.sel(isN, b, dC), c.sel(isN, ldb, ldc),
						c.f(1), dA, c.arg(8))
				})
			}
			if dB := c.shadow(9); dB != nil {
				c.when([]int{12, 9}, func() {
					a, lda := c.in(7)
					isN := c.isN(tb)
					c.blas("gemm", layout, c.sel(isN, c.transpose(ta), tb), c.sel(isN, tb, ta),
						c.sel(isN, k, n), c.sel(isN, n, k), m, c.arg(6),
						c.sel(isN, a, dC), c.sel(isN, lda, ldc), c.sel(isN, dC, a), c.sel(isN, ldc, lda),
						c.f(1), dB, c.arg(10))
				})
			}
			c.when([]int{12}, func() {
				if c.act(11) {
					cOld, ldOld := c.in(12)
					c.acc(11, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dC, c.i64(ldc), cOld, c.i64(ldOld)))
				}
				c.scaleMatrix(rm, m, n, c.arg(11), dC, ldc)
			})
		},
		fwd: func(c *blasCtx) {
			dC := c.shadow(12)
			if dC == nil {
				return
			}
			layout, ta, tb, m, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(13)
			rm := c.rowMajor(layout)
			beta := c.firstUse(c.arg(11))
			if dB := c.shadow(9); dB != nil {
				c.blas("gemm", layout, ta, tb, m, n, k, c.arg(6), c.arg(7), c.arg(8), dB, c.arg(10), beta(), dC, ldc)
			}
			if dA := c.shadow(7); dA != nil {
				c.blas("gemm", layout, ta, tb, m, n, k, c.arg(6), dA, c.arg(8), c.arg(9), c.arg(10), beta(), dC, ldc)
			}
			if c.act(6) {
				c.blas("gemm", layout, ta, tb, m, n, k, c.dfloat(6), c.arg(7), c.arg(8), c.arg(9), c.arg(10), beta(), dC, ldc)
			}
			if b := beta(); b == c.arg(11) {
				c.scaleMatrix(rm, m, n, b, dC, ldc)
			}
			if c.act(11) {
				c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(m), c.i64(n), c.dfloat(11), c.arg(12), c.i64(ldc), dC, c.i64(ldc))
			}
		},
	},
	// x = op(T)·x, T the upper or lower triangle of A, unit diagonal or
	// not (layout, uplo, trans, diag, n, A, lda, x, incx). Reverse: dT +=
	// dx·x_oldᵀ (op = N) or x_old·dxᵀ (op = T) on the triangle, dx =
	// op(T)ᵀ·dx. Forward: dx = op(T)·dx + op(dT)·x_old.
	"trmv": {
		sig: "eeeeipipi", outputs: []int{7},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 5 {
				return c.mat(0, c.arg(4), c.arg(4), 6)
			}
			return c.vec(c.arg(4), 8)
		},
		needs: func(c *blasCtx) []int { return blasPick(c.shadow(5) != nil, 7, c.shadow(7) != nil, 5) },
		rev: func(c *blasCtx) {
			dx := c.shadow(7)
			if dx == nil {
				return
			}
			layout, uplo, trans, diag, n, incx := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(8)
			if dA := c.shadow(5); dA != nil {
				c.when([]int{7, 5}, func() {
					x, incxo := c.in(7)
					c.triangleOuter(layout, uplo, diag, n, c.f(1), trans, dx, incx, x, incxo, dA, c.arg(6))
				})
			}
			c.when([]int{7}, func() {
				a, lda := c.in(5)
				c.blas("trmv", layout, uplo, c.transpose(trans), diag, n, a, lda, dx, incx)
			})
		},
		fwd: func(c *blasCtx) {
			dx := c.shadow(7)
			if dx == nil {
				return
			}
			layout, uplo, trans, diag, n, incx := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(8)
			var tmp value.Value
			if dA := c.shadow(5); dA != nil {
				tmp = c.triangleTimes(layout, uplo, trans, diag, n, dA, c.arg(6), c.arg(7), incx)
			}
			c.blas("trmv", layout, uplo, trans, diag, n, c.arg(5), c.arg(6), dx, incx)
			if tmp != nil {
				c.blas("axpy", n, c.f(1), tmp, c.i(1), dx, incx)
				c.free(tmp)
			}
		},
	},
	// x = op(T)⁻¹·x (layout, uplo, trans, diag, n, A, lda, x, incx).
	// Reverse: db = op(T)⁻ᵀ·dx, dT -= db·xᵀ (op = N) or x·dbᵀ (op = T) on
	// the triangle, x the solution. Forward (after the call): dx =
	// op(T)⁻¹·(db - op(dT)·x).
	"trsv": {
		sig: "eeeeipipi", outputs: []int{7}, after: true,
		shape: func(c *blasCtx, i int) blasShape {
			if i == 5 {
				return c.mat(0, c.arg(4), c.arg(4), 6)
			}
			return c.vec(c.arg(4), 8)
		},
		needs:      func(c *blasCtx) []int { return blasPick(c.shadow(7) != nil, 5) },
		needsAfter: func(c *blasCtx) []int { return blasPick(c.shadow(5) != nil, 7) },
		rev: func(c *blasCtx) {
			dx := c.shadow(7)
			if dx == nil {
				return
			}
			layout, uplo, trans, diag, n, incx := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(8)
			c.when([]int{7}, func() {
				a, lda := c.in(5)
				c.blas("trsv", layout, uplo, c.transpose(trans), diag, n, a, lda, dx, incx)
			})
			if dA := c.shadow(5); dA != nil {
				c.when([]int{7, 5}, func() {
					x, incxn := c.inAfter(7)
					c.triangleOuter(layout, uplo, diag, n, c.f(-1), trans, dx, incx, x, incxn, dA, c.arg(6))
				})
			}
		},
		fwd: func(c *blasCtx) {
			dx := c.shadow(7)
			if dx == nil {
				return
			}
			layout, uplo, trans, diag, n, incx := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(8)
			if dA := c.shadow(5); dA != nil {
				tmp := c.triangleTimes(layout, uplo, trans, diag, n, dA, c.arg(6), c.arg(7), incx)
				c.blas("axpy", n, c.f(-1), tmp, c.i(1), dx, incx)
				c.free(tmp)
			}
			c.blas("trsv", layout, uplo, trans, diag, n, c.arg(5), c.arg(6), dx, incx)
		},
	},
	// B = α·op(T)·B (side left) or α·B·op(T) (layout, side, uplo, transa,
	// diag, m, n, α, A, lda, B, ldb). Reverse: dα += ⟨dB, op(T)B_old⟩, dT
	// += α·dB·B_oldᵀ, α·B_old·dBᵀ, α·B_oldᵀ·dB or α·dBᵀ·B_old (by side and
	// transpose) on the triangle, dB = α·op(T)ᵀ·dB (or α·dB·op(T)ᵀ).
	"trmm": {
		sig: "eeeeeiifpipi", outputs: []int{10},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 8 {
				k := c.sel(c.left(c.arg(1)), c.arg(5), c.arg(6))
				return c.mat(0, k, k, 9)
			}
			return c.mat(0, c.arg(5), c.arg(6), 11)
		},
		needs: func(c *blasCtx) []int {
			// A's copy first, as Enzyme makes them.
			return blasPick(c.shadow(10) != nil || c.act(7), 8, c.shadow(8) != nil || c.act(7), 10)
		},
		rev: func(c *blasCtx) {
			dB := c.shadow(10)
			if dB == nil {
				return
			}
			layout, side, uplo, transa, diag, m, n, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(11)
			rm := c.rowMajor(layout)
			if c.act(7) {
				c.when([]int{10}, func() {
					b, ldbo := c.in(10)
					a, lda := c.in(8)
					tmp, ldt := c.copyMatrix(rm, m, n, b, ldbo)
					c.blas("trmm", layout, side, uplo, transa, diag, m, n, c.f(1), a, lda, tmp, ldt)
					c.acc(7, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dB, c.i64(ldb), tmp, c.i64(ldt)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(8); dA != nil {
				c.when([]int{10, 8}, func() {
					b, ldbo := c.in(10)
					c.triangleGemv(layout, side, uplo, transa, diag, m, n, c.arg(7), dB, ldb, b, ldbo, dA, c.arg(9))
				})
			}
			c.when([]int{10}, func() {
				a, lda := c.in(8)
				c.blas("trmm", layout, side, uplo, c.transpose(transa), diag, m, n, c.arg(7), a, lda, dB, ldb)
			})
		},
		fwd: func(c *blasCtx) {
			dB := c.shadow(10)
			if dB == nil {
				return
			}
			layout, side, uplo, transa, diag, m, n, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(11)
			rm := c.rowMajor(layout)
			var terms []value.Value
			var ldt value.Value
			if dA := c.shadow(8); dA != nil {
				var t value.Value
				t, ldt = c.copyMatrix(rm, m, n, c.arg(10), ldb)
				c.blas("trmm", layout, side, uplo, transa, c.nonUnit(diag), m, n, c.arg(7), dA, c.arg(9), t, ldt)
				minus := c.b.NewSelect(c.unit(diag), c.b.NewFNeg(c.arg(7)), c.f(0))
				c.b.NewCall(blasHelper(c, "diagscalem"), rm, c.i64(m), c.i64(n), c.left(side), minus, dA, c.i64(c.arg(9)),
					c.arg(10), c.i64(ldb), t, c.i64(ldt))
				terms = append(terms, t)
			}
			if c.act(7) {
				var t value.Value
				t, ldt = c.copyMatrix(rm, m, n, c.arg(10), ldb)
				c.blas("trmm", layout, side, uplo, transa, diag, m, n, c.dfloat(7), c.arg(8), c.arg(9), t, ldt)
				terms = append(terms, t)
			}
			c.blas("trmm", layout, side, uplo, transa, diag, m, n, c.arg(7), c.arg(8), c.arg(9), dB, ldb)
			for _, t := range terms {
				c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(m), c.i64(n), c.f(1), t, c.i64(ldt), dB, c.i64(ldb))
				c.free(t)
			}
		},
	},
	// B = α·op(T)⁻¹·B (side left) or α·B·op(T)⁻¹. Reverse: G = op(T)⁻ᵀ·dB
	// (or dB·op(T)⁻ᵀ), dα += ⟨G, B_old⟩, dT -= G·Xᵀ, X·Gᵀ, Xᵀ·G or Gᵀ·X on
	// the triangle (X the solution), dB = α·G. Forward: dB = op(T)⁻¹·(α·dB
	// + dα·B_old - op(dT)·X) (or on the right).
	"trsm": {
		sig: "eeeeeiifpipi", outputs: []int{10}, after: true,
		shape: func(c *blasCtx, i int) blasShape {
			if i == 8 {
				k := c.sel(c.left(c.arg(1)), c.arg(5), c.arg(6))
				return c.mat(0, k, k, 9)
			}
			return c.mat(0, c.arg(5), c.arg(6), 11)
		},
		needs:      func(c *blasCtx) []int { return blasPick(c.act(7), 10, c.shadow(10) != nil, 8) },
		needsAfter: func(c *blasCtx) []int { return blasPick(c.shadow(8) != nil, 10) },
		rev: func(c *blasCtx) {
			dB := c.shadow(10)
			if dB == nil {
				return
			}
			layout, side, uplo, transa, diag, m, n, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(11)
			rm := c.rowMajor(layout)
			c.when([]int{10}, func() {
				a, lda := c.in(8)
				c.blas("trsm", layout, side, uplo, c.transpose(transa), diag, m, n, c.f(1), a, lda, dB, ldb)
			})
			if c.act(7) {
				c.when([]int{10}, func() {
					b, ldbo := c.in(10)
					c.acc(7, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dB, c.i64(ldb), b, c.i64(ldbo)))
				})
			}
			if dA := c.shadow(8); dA != nil {
				c.when([]int{10, 8}, func() {
					x, ldx := c.inAfter(10)
					c.triangleGemm(layout, side, uplo, transa, diag, m, n, c.f(-1), dB, ldb, x, ldx, dA, c.arg(9))
				})
			}
			c.when([]int{10}, func() {
				c.scaleMatrix(rm, m, n, c.arg(7), dB, ldb)
			})
		},
		fwdBefore: func(c *blasCtx) {
			if c.shadow(10) != nil && c.act(7) {
				c.saved, _ = c.copyMatrix(c.rowMajor(c.arg(0)), c.arg(5), c.arg(6), c.arg(10), c.arg(11))
			}
		},
		fwd: func(c *blasCtx) {
			dB := c.shadow(10)
			if dB == nil {
				return
			}
			layout, side, uplo, transa, diag, m, n, ldb := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(11)
			rm := c.rowMajor(layout)
			ldt := c.sel(rm, n, m)
			c.scaleMatrix(rm, m, n, c.arg(7), dB, ldb)
			if c.saved != nil {
				c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(m), c.i64(n), c.dfloat(7), c.saved, c.i64(ldt), dB, c.i64(ldb))
				c.free(c.saved)
			}
			if dA := c.shadow(8); dA != nil {
				t, _ := c.copyMatrix(rm, m, n, c.arg(10), ldb)
				c.blas("trmm", layout, side, uplo, transa, c.nonUnit(diag), m, n, c.f(1), dA, c.arg(9), t, ldt)
				minus := c.b.NewSelect(c.unit(diag), c.f(-1), c.f(0))
				c.b.NewCall(blasHelper(c, "diagscalem"), rm, c.i64(m), c.i64(n), c.left(side), minus, dA, c.i64(c.arg(9)),
					c.arg(10), c.i64(ldb), t, c.i64(ldt))
				c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(m), c.i64(n), c.f(-1), t, c.i64(ldt), dB, c.i64(ldb))
				c.free(t)
			}
			c.blas("trsm", layout, side, uplo, transa, diag, m, n, c.f(1), c.arg(8), c.arg(9), dB, ldb)
		},
	},
	// C = α·op(A)·op(A)ᵀ + β·C on C's triangle (layout, uplo, trans, n, k,
	// α, A, lda, β, C, ldc). Reverse: dα += ⟨dC, op(A)op(A)ᵀ⟩ and dβ +=
	// ⟨dC, C_old⟩ over the triangle, d op(A) += α·(S + diag(dC))·op(A) with
	// S the symmetric matrix of dC's triangle (symm), dC *= β on the
	// triangle. Forward: dC = β·dC + α·(dop(A)·op(A)ᵀ + op(A)·dop(A)ᵀ)
	// (syr2k) + dα·op(A)op(A)ᵀ (syrk) + dβ·C_old.
	"syrk": {
		sig: "eeeiifpifpi", outputs: []int{9},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 6 {
				isN := c.isN(c.arg(2))
				return c.mat(0, c.sel(isN, c.arg(3), c.arg(4)), c.sel(isN, c.arg(4), c.arg(3)), 7)
			}
			return c.mat(0, c.arg(3), c.arg(3), 10)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.act(5) || c.shadow(6) != nil, 6, c.act(8), 9)
		},
		rev: func(c *blasCtx) {
			dC := c.shadow(9)
			if dC == nil {
				return
			}
			layout, uplo, trans, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(10)
			rm, upper, isN := c.rowMajor(layout), c.upper(uplo), c.isN(trans)
			if c.act(5) {
				c.when([]int{9}, func() {
					a, lda := c.in(6)
					tmp := c.alloc(c.mul(n, n))
					c.blas("gemm", layout, trans, c.transpose(trans), n, n, k, c.f(1), a, lda, a, lda, c.f(0), tmp, n)
					c.acc(5, c.b.NewCall(blasHelper(c, "trfrob"), rm, c.i64(n), c.i64(n), upper, dC, c.i64(ldc), tmp, c.i64(n)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(6); dA != nil {
				c.when([]int{9, 6}, func() {
					a, lda := c.in(6)
					c.symmetricTimes(layout, uplo, isN, n, k, c.arg(5), dC, ldc, a, lda, dA, c.arg(7))
				})
			}
			c.when([]int{9}, func() {
				if c.act(8) {
					cOld, ldOld := c.in(9)
					c.acc(8, c.b.NewCall(blasHelper(c, "trfrob"), rm, c.i64(n), c.i64(n), upper, dC, c.i64(ldc), cOld, c.i64(ldOld)))
				}
				c.lascl(layout, uplo, false, c.arg(8), n, dC, ldc)
			})
		},
		fwd: func(c *blasCtx) {
			dC := c.shadow(9)
			if dC == nil {
				return
			}
			layout, uplo, trans, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(10)
			rm, upper := c.rowMajor(layout), c.upper(uplo)
			beta := c.firstUse(c.arg(8))
			if dA := c.shadow(6); dA != nil {
				c.blas("syr2k", layout, uplo, trans, n, k, c.arg(5), c.arg(6), c.arg(7), dA, c.arg(7), beta(), dC, ldc)
			}
			if c.act(5) {
				c.blas("syrk", layout, uplo, trans, n, k, c.dfloat(5), c.arg(6), c.arg(7), beta(), dC, ldc)
			}
			if b := beta(); b == c.arg(8) {
				c.lascl(layout, uplo, false, b, n, dC, ldc)
			}
			if c.act(8) {
				c.b.NewCall(blasHelper(c, "traxpym"), rm, c.i64(n), c.i64(n), upper, constant.False, c.dfloat(8), c.arg(9), c.i64(ldc), dC, c.i64(ldc))
			}
		},
	},
	// y = α·S·x + β·y, S symmetric from A's triangle (layout, uplo, n, α,
	// A, lda, x, incx, β, y, incy). Reverse: dα += dy·(Sx), dA += α·(dy·xᵀ
	// + x·dyᵀ) on the triangle (its diagonal once), dx += α·S·dy, dβ +=
	// dy·y_old, dy *= β.
	"symv": {
		sig: "eeifpipifpi", outputs: []int{9},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 4 {
				return c.mat(0, c.arg(2), c.arg(2), 5)
			}
			return c.vec(c.arg(2), i+1)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.shadow(6) != nil || c.act(3), 4, c.shadow(4) != nil || c.act(3), 6, c.act(8), 9)
		},
		rev: func(c *blasCtx) {
			dy := c.shadow(9)
			if dy == nil {
				return
			}
			layout, uplo, n, incy := c.arg(0), c.arg(1), c.arg(2), c.arg(10)
			if c.act(3) {
				c.when([]int{9}, func() {
					a, lda := c.in(4)
					x, incx := c.in(6)
					tmp := c.alloc(n)
					c.blas("symv", layout, uplo, n, c.f(1), a, lda, x, incx, c.f(0), tmp, c.i(1))
					c.acc(3, c.blas("dot", n, dy, incy, tmp, c.i(1)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(4); dA != nil {
				c.when([]int{9, 4}, func() {
					x, incx := c.in(6)
					rm, upper := c.rowMajor(layout), c.upper(uplo)
					for k, unit := range []value.Value{constant.False, constant.True} {
						u, incu, v, incv := dy, incy, x, incx
						if k == 1 {
							u, incu, v, incv = x, incx, dy, incy
						}
						c.b.NewCall(blasHelper(c, "trger"), rm, c.i64(n), c.i64(n), upper, unit, c.arg(3),
							u, c.i64(incu), v, c.i64(incv), dA, c.i64(c.arg(5)))
					}
				})
			}
			if dx := c.shadow(6); dx != nil {
				c.when([]int{9, 6}, func() {
					a, lda := c.in(4)
					c.blas("symv", layout, uplo, n, c.arg(3), a, lda, dy, incy, c.f(1), dx, c.arg(7))
				})
			}
			c.when([]int{9}, func() {
				if c.act(8) {
					y, incyOld := c.in(9)
					c.acc(8, c.blas("dot", n, dy, incy, y, incyOld))
				}
				c.blas("scal", n, c.arg(8), dy, incy)
			})
		},
		fwd: func(c *blasCtx) {
			dy := c.shadow(9)
			if dy == nil {
				return
			}
			layout, uplo, n, incy := c.arg(0), c.arg(1), c.arg(2), c.arg(10)
			beta := c.firstUse(c.arg(8))
			if dx := c.shadow(6); dx != nil {
				c.blas("symv", layout, uplo, n, c.arg(3), c.arg(4), c.arg(5), dx, c.arg(7), beta(), dy, incy)
			}
			if dA := c.shadow(4); dA != nil {
				c.blas("symv", layout, uplo, n, c.arg(3), dA, c.arg(5), c.arg(6), c.arg(7), beta(), dy, incy)
			}
			if c.act(3) {
				c.blas("symv", layout, uplo, n, c.dfloat(3), c.arg(4), c.arg(5), c.arg(6), c.arg(7), beta(), dy, incy)
			}
			if b := beta(); b == c.arg(8) {
				c.blas("scal", n, b, dy, incy)
			}
			if c.act(8) {
				c.blas("axpy", n, c.dfloat(8), c.arg(9), incy, dy, incy)
			}
		},
	},
	// C = α·S·B + β·C (side left) or α·B·S + β·C, S symmetric from A's
	// triangle (layout, side, uplo, m, n, α, A, lda, B, ldb, β, C, ldc).
	// Reverse: dα += ⟨dC, SB⟩, dB += α·S·dC (or α·dC·S), dA += dS + dSᵀ on
	// the triangle (its diagonal once) with dS = α·dC·Bᵀ (or α·Bᵀ·dC), dβ
	// += ⟨dC, C_old⟩, dC *= β.
	"symm": {
		sig: "eeeiifpipifpi", outputs: []int{11},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 6 {
				k := c.sel(c.left(c.arg(1)), c.arg(3), c.arg(4))
				return c.mat(0, k, k, 7)
			}
			return c.mat(0, c.arg(3), c.arg(4), i+1)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.shadow(8) != nil || c.act(5), 6, c.shadow(6) != nil || c.act(5), 8, c.act(10), 11)
		},
		rev: func(c *blasCtx) {
			dC := c.shadow(11)
			if dC == nil {
				return
			}
			layout, side, uplo, m, n, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(12)
			rm := c.rowMajor(layout)
			if c.act(5) {
				c.when([]int{11}, func() {
					a, lda := c.in(6)
					b, ldb := c.in(8)
					ldt := c.sel(rm, n, m)
					tmp := c.alloc(c.mul(m, n))
					c.blas("symm", layout, side, uplo, m, n, c.f(1), a, lda, b, ldb, c.f(0), tmp, ldt)
					c.acc(5, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dC, c.i64(ldc), tmp, c.i64(ldt)))
					c.free(tmp)
				})
			}
			if dA := c.shadow(6); dA != nil {
				// Enzyme's rule: syr2k adds α(B·dCᵀ + dC·Bᵀ) (left) or
				// α(Bᵀ·dC + dCᵀ·B) to the triangle, twice the diagonal's
				// share, of which half is taken back.
				c.when([]int{11, 6}, func() {
					b, ldb := c.in(8)
					left := c.left(side)
					k, inner := c.sel(left, m, n), c.sel(left, n, m)
					diag := c.b.NewAdd(c.arg(7), constant.NewInt(c.arg(7).Type().(*types.IntType), 1))
					tmp := c.alloc(k)
					c.blas("copy", k, dA, diag, tmp, c.i(1))
					c.blas("syr2k", layout, uplo, c.sideTrans(side), k, inner, c.arg(5), b, ldb, dC, ldc, c.f(1), dA, c.arg(7))
					c.blas("axpy", k, c.f(-1), dA, diag, tmp, c.i(1))
					c.blas("axpy", k, c.f(0.5), tmp, c.i(1), dA, diag)
					c.free(tmp)
				})
			}
			if dB := c.shadow(8); dB != nil {
				c.when([]int{11, 8}, func() {
					a, lda := c.in(6)
					c.blas("symm", layout, side, uplo, m, n, c.arg(5), a, lda, dC, ldc, c.f(1), dB, c.arg(9))
				})
			}
			c.when([]int{11}, func() {
				if c.act(10) {
					cOld, ldOld := c.in(11)
					c.acc(10, c.b.NewCall(blasHelper(c, "frob"), rm, c.i64(m), c.i64(n), dC, c.i64(ldc), cOld, c.i64(ldOld)))
				}
				c.scaleMatrix(rm, m, n, c.arg(10), dC, ldc)
			})
		},
		fwd: func(c *blasCtx) {
			dC := c.shadow(11)
			if dC == nil {
				return
			}
			layout, side, uplo, m, n, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(12)
			rm := c.rowMajor(layout)
			beta := c.firstUse(c.arg(10))
			if dB := c.shadow(8); dB != nil {
				c.blas("symm", layout, side, uplo, m, n, c.arg(5), c.arg(6), c.arg(7), dB, c.arg(9), beta(), dC, ldc)
			}
			if dA := c.shadow(6); dA != nil {
				c.blas("symm", layout, side, uplo, m, n, c.arg(5), dA, c.arg(7), c.arg(8), c.arg(9), beta(), dC, ldc)
			}
			if c.act(5) {
				c.blas("symm", layout, side, uplo, m, n, c.dfloat(5), c.arg(6), c.arg(7), c.arg(8), c.arg(9), beta(), dC, ldc)
			}
			if b := beta(); b == c.arg(10) {
				c.scaleMatrix(rm, m, n, b, dC, ldc)
			}
			if c.act(10) {
				c.b.NewCall(blasHelper(c, "axpym"), rm, c.i64(m), c.i64(n), c.dfloat(10), c.arg(11), c.i64(ldc), dC, c.i64(ldc))
			}
		},
	},
	// C = α·(op(A)·op(B)ᵀ + op(B)·op(A)ᵀ) + β·C on C's triangle (layout,
	// uplo, trans, n, k, α, A, lda, B, ldb, β, C, ldc). Reverse as syrk's:
	// d op(A) += α·(S + diag(dC))·op(B), d op(B) += α·(S + diag(dC))·op(A).
	"syr2k": {
		sig: "eeeiifpipifpi", outputs: []int{11},
		shape: func(c *blasCtx, i int) blasShape {
			if i == 6 || i == 8 {
				isN := c.isN(c.arg(2))
				return c.mat(0, c.sel(isN, c.arg(3), c.arg(4)), c.sel(isN, c.arg(4), c.arg(3)), i+1)
			}
			return c.mat(0, c.arg(3), c.arg(3), 12)
		},
		needs: func(c *blasCtx) []int {
			return blasPick(c.act(5) || c.shadow(8) != nil, 6, c.act(5) || c.shadow(6) != nil, 8, c.act(10), 11)
		},
		rev: func(c *blasCtx) {
			dC := c.shadow(11)
			if dC == nil {
				return
			}
			layout, uplo, trans, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(12)
			rm, upper, isN := c.rowMajor(layout), c.upper(uplo), c.isN(trans)
			if c.act(5) {
				c.when([]int{11}, func() {
					a, lda := c.in(6)
					b, ldb := c.in(8)
					tmp := c.alloc(c.mul(n, n))
					c.blas("syr2k", layout, uplo, trans, n, k, c.f(1), a, lda, b, ldb, c.f(0), tmp, n)
					c.acc(5, c.b.NewCall(blasHelper(c, "trfrob"), rm, c.i64(n), c.i64(n), upper, dC, c.i64(ldc), tmp, c.i64(n)))
					c.free(tmp)
				})
			}
			for _, pair := range [][2]int{{6, 8}, {8, 6}} {
				d := c.shadow(pair[0])
				if d == nil {
					continue
				}
				pair := pair
				c.when([]int{11, pair[0]}, func() {
					o, ldo := c.in(pair[1])
					c.symmetricTimes(layout, uplo, isN, n, k, c.arg(5), dC, ldc, o, ldo, d, c.arg(pair[0]+1))
				})
			}
			c.when([]int{11}, func() {
				if c.act(10) {
					cOld, ldOld := c.in(11)
					c.acc(10, c.b.NewCall(blasHelper(c, "trfrob"), rm, c.i64(n), c.i64(n), upper, dC, c.i64(ldc), cOld, c.i64(ldOld)))
				}
				c.b.NewCall(blasHelper(c, "trscalm"), rm, c.i64(n), c.i64(n), upper, c.arg(10), dC, c.i64(ldc))
			})
		},
		fwd: func(c *blasCtx) {
			dC := c.shadow(11)
			if dC == nil {
				return
			}
			layout, uplo, trans, n, k, ldc := c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(12)
			rm, upper := c.rowMajor(layout), c.upper(uplo)
			beta := c.firstUse(c.arg(10))
			if dA := c.shadow(6); dA != nil {
				c.blas("syr2k", layout, uplo, trans, n, k, c.arg(5), dA, c.arg(7), c.arg(8), c.arg(9), beta(), dC, ldc)
			}
			if dB := c.shadow(8); dB != nil {
				c.blas("syr2k", layout, uplo, trans, n, k, c.arg(5), c.arg(6), c.arg(7), dB, c.arg(9), beta(), dC, ldc)
			}
			if c.act(5) {
				c.blas("syr2k", layout, uplo, trans, n, k, c.dfloat(5), c.arg(6), c.arg(7), c.arg(8), c.arg(9), beta(), dC, ldc)
			}
			if b := beta(); b == c.arg(10) {
				c.b.NewCall(blasHelper(c, "trscalm"), rm, c.i64(n), c.i64(n), upper, b, dC, c.i64(ldc))
			}
			if c.act(10) {
				c.b.NewCall(blasHelper(c, "traxpym"), rm, c.i64(n), c.i64(n), upper, constant.False, c.dfloat(10), c.arg(11), c.i64(ldc), dC, c.i64(ldc))
			}
		},
	},
	// A = A + α·x·xᵀ on A's triangle (layout, uplo, n, α, x, incx, A, lda).
	// Reverse: dx += α·(S + diag(dA))·x, dα += xᵀ·(S + diag(dA))·x / 2, S
	// the symmetric matrix of dA's triangle. Forward: dA += α·(x·dxᵀ +
	// dx·xᵀ) (syr2) + dα·x·xᵀ (syr) on the triangle.
	"syr": {
		sig: "eeifpipi", outputs: []int{6},
		shape: func(c *blasCtx, i int) blasShape { return c.vec(c.arg(2), 5) },
		needs: func(c *blasCtx) []int { return blasPick(c.shadow(4) != nil || c.act(3), 4) },
		rev: func(c *blasCtx) {
			dA := c.shadow(6)
			if dA == nil {
				return
			}
			layout, uplo, n, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(7)
			rm := c.rowMajor(layout)
			if c.act(3) {
				c.when([]int{6}, func() {
					x, incx := c.in(4)
					tmp := c.alloc(n)
					c.blas("symv", layout, uplo, n, c.f(1), dA, lda, x, incx, c.f(0), tmp, c.i(1))
					c.b.NewCall(blasHelper(c, "diagaxpy"), rm, c.i64(n), c.i64(n), c.f(1), dA, c.i64(lda), x, c.i64(incx), tmp, constant.NewInt(types.I64, 1))
					c.acc(3, c.b.NewFMul(c.f(0.5), c.blas("dot", n, x, incx, tmp, c.i(1))))
					c.free(tmp)
				})
			}
			if dx := c.shadow(4); dx != nil {
				c.when([]int{6, 4}, func() {
					x, incx := c.in(4)
					c.blas("symv", layout, uplo, n, c.arg(3), dA, lda, x, incx, c.f(1), dx, c.arg(5))
					c.b.NewCall(blasHelper(c, "diagaxpy"), rm, c.i64(n), c.i64(n), c.arg(3), dA, c.i64(lda), x, c.i64(incx), dx, c.i64(c.arg(5)))
				})
			}
		},
		fwd: func(c *blasCtx) {
			dA := c.shadow(6)
			if dA == nil {
				return
			}
			layout, uplo, n, incx, lda := c.arg(0), c.arg(1), c.arg(2), c.arg(5), c.arg(7)
			if dx := c.shadow(4); dx != nil {
				c.blas("syr2", layout, uplo, n, c.arg(3), c.arg(4), incx, dx, incx, dA, lda)
			}
			if c.act(3) {
				c.blas("syr", layout, uplo, n, c.dfloat(3), c.arg(4), incx, dA, lda)
			}
		},
	},
}

// blasPick returns the indices whose conditions hold, from (cond, index) pairs.
func blasPick(pairs ...interface{}) []int {
	var out []int
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].(bool) {
			out = append(out, pairs[i+1].(int))
		}
	}
	return out
}

// fsum adds y to x (x nil: y).
func (c *blasCtx) fsum(x, y value.Value) value.Value {
	if x == nil {
		return y
	}
	return c.b.NewFAdd(x, y)
}

// scaleMatrix scales the rows x cols matrix a (leading dimension lda) by
// beta: with the module's cblas_<p>lascl (Fortran: <p>lascl_) where it
// has one (as Enzyme's rule calls it: layout, 'G', 0, 0, 1.0, beta, rows,
// cols, a, lda, info), else with scal per row or column.
func (c *blasCtx) scaleMatrix(rm, rows, cols, beta, a, lda value.Value) {
	if f := c.lapack("lascl", 10); f != nil {
		// Fortran: the program's LAPACK dlascl (type 'G', kl = ku = 0, from
		// 1 to beta; info in a slot).
		info := c.slot(c.intT)
		c.lapackCall(f, constant.NewInt(types.I8, 'G'), c.i(0), c.i(0), c.f(1), beta, rows, cols, a, lda, info)
		return
	}
	for _, fn := range c.m.Funcs {
		if c.fortran || fn.Name() != "cblas_"+string(c.p)+"lascl" || len(fn.Params) != 11 || types.IsPointer(fn.Params[10].Typ) {
			continue
		}
		callConverted(c.b, fn, c.arg(0), constant.NewInt(types.I8, 'G'), constant.NewInt(types.I32, 0), constant.NewInt(types.I32, 0),
			c.f(1), beta, rows, cols, a, lda, constant.NewInt(types.I32, 0))
		return
	}
	c.b.NewCall(blasHelper(c, "scalm"), rm, c.i64(rows), c.i64(cols), beta, a, c.i64(lda))
}

// firstUse returns a function giving beta on its first call and 1 after:
// the first term accumulated into an output scales its old tangent by
// beta (Enzyme's FirstUse), the others add to it.
func (c *blasCtx) firstUse(beta value.Value) func() value.Value {
	used := false
	return func() value.Value {
		if used {
			return c.f(1)
		}
		used = true
		return beta
	}
}

// triangleOuter adds alpha·d·xᵀ (trans N) or alpha·x·dᵀ (trans T) to the
// triangle of dA that the call's uplo and diag name (the derivative of
// op(T)·x for T's entries).
func (c *blasCtx) triangleOuter(layout, uplo, diag, n, alpha, trans, d, incd, x, incx, dA, lda value.Value) {
	isN := c.isN(trans)
	c.b.NewCall(blasHelper(c, "trger"), c.rowMajor(layout), c.i64(n), c.i64(n), c.upper(uplo), c.unit(diag), alpha,
		c.sel(isN, d, x), c.i64(c.sel(isN, incd, incx)), c.sel(isN, x, d), c.i64(c.sel(isN, incx, incd)), dA, c.i64(lda))
}

// triangleTimes returns a fresh vector op(dT)·x, dT the triangle of dA the
// call names (without its diagonal for a unit diagonal, which is no
// variable).
func (c *blasCtx) triangleTimes(layout, uplo, trans, diag, n, dA, lda, x, incx value.Value) value.Value {
	tmp := c.alloc(n)
	c.blas("copy", n, x, incx, tmp, c.i(1))
	c.blas("trmv", layout, uplo, trans, c.nonUnit(diag), n, dA, lda, tmp, c.i(1))
	minus := c.b.NewSelect(c.unit(diag), c.f(-1), c.f(0))
	c.b.NewCall(blasHelper(c, "diagaxpy"), c.rowMajor(layout), c.i64(n), c.i64(n), minus, dA, c.i64(lda), x, c.i64(incx), tmp, constant.NewInt(types.I64, 1))
	return tmp
}

// copyMatrix returns a fresh copy of the rows x cols matrix a (leading
// dimension lda) and its leading dimension (the inner size).
func (c *blasCtx) copyMatrix(rm, rows, cols, a, lda value.Value) (value.Value, value.Value) {
	p := c.b.NewCall(blasHelper(c, "cachem"), rm, c.i64(rows), c.i64(cols), a, c.i64(lda))
	return p, c.sel(rm, cols, rows)
}

// triangleGemm adds to the triangle of dA (k x k, k = m on the left, n on
// the right) alpha·g·xᵀ (left, op N), alpha·x·gᵀ (left, op T), alpha·xᵀ·g
// (right, op N) or alpha·gᵀ·x (right, op T), g and x being m x n: the
// derivative of op(T)·B or B·op(T) for T's entries.
func (c *blasCtx) triangleGemm(layout, side, uplo, transa, diag, m, n, alpha, g, ldg, x, ldx, dA, lda value.Value) {
	left, isN := c.left(side), c.isN(transa)
	k, inner := c.sel(left, m, n), c.sel(left, n, m)
	noT := c.sel(isN, transa, c.transpose(transa))
	t := c.transpose(noT)
	gFirst := c.b.NewICmp(enum.IPredEQ, left, isN)
	tmp := c.alloc(c.mul(k, k))
	c.blas("gemm", layout, c.sel(left, noT, t), c.sel(left, t, noT), k, k, inner, alpha,
		c.sel(gFirst, g, x), c.sel(gFirst, ldg, ldx), c.sel(gFirst, x, g), c.sel(gFirst, ldx, ldg), c.f(0), tmp, k)
	c.b.NewCall(blasHelper(c, "traxpym"), c.rowMajor(layout), c.i64(k), c.i64(k), c.upper(uplo), c.unit(diag), c.f(1), tmp, c.i64(k), dA, c.i64(lda))
	c.free(tmp)
}

// sideTrans is Enzyme's side_to_trans: no transpose for the left side,
// transpose for the right, in side's encoding (CBLAS's enum, else the
// letter in side's case).
func (c *blasCtx) sideTrans(side value.Value) value.Value {
	left := c.left(side)
	it := side.Type().(*types.IntType)
	k := func(v int64) value.Value { return constant.NewInt(it, v) }
	small := c.eqAny(side, 'l', 'r')
	letter := c.b.NewSelect(left, c.b.NewSelect(small, k('n'), k('N')), c.b.NewSelect(small, k('t'), k('T')))
	return c.b.NewSelect(c.eqAny(side, 141, 142), c.b.NewSelect(left, k(cblasNoTrans), k(cblasTrans)), letter)
}

// triangleGemv adds to the triangle of dA (k x k, k = m on the left, n on
// the right) the derivative of op(T)·B or B·op(T) for T's entries, with
// g the adjoint and x the old value of B (m x n): alpha·g·xᵀ (left, op N),
// alpha·x·gᵀ (left, op T), alpha·xᵀ·g (right, op N) or alpha·gᵀ·x (right,
// op T), one gemv per column of the triangle (Enzyme's trmm rule).
func (c *blasCtx) triangleGemv(layout, side, uplo, transa, diag, m, n, alpha, g, ldg, x, ldx, dA, lda value.Value) {
	left, isN := c.left(side), c.isN(transa)
	gFirst := c.b.NewICmp(enum.IPredEQ, left, isN)
	tr := c.sideTrans(side)
	callConverted(c.b, blasHelper(c, "trgemv"), c.rowMajor(layout), c.i64(c.sel(left, m, n)), c.i64(c.sel(left, n, m)),
		c.upper(uplo), c.unit(diag), left, layout, tr, alpha,
		c.sel(gFirst, g, x), c.i64(c.sel(gFirst, ldg, ldx)), c.sel(gFirst, x, g), c.i64(c.sel(gFirst, ldx, ldg)), dA, c.i64(lda))
}

// symmetricTimes adds alpha·(S + diag(dC))·op(X) to d op(X) (an n x k
// operand, op by isN): S the symmetric matrix of dC's triangle (symm on
// the left, or on the right of X for a transposed operand), the diagonal
// once more (the derivative of a syrk-like product for op(X)).
func (c *blasCtx) symmetricTimes(layout, uplo, isN, n, k, alpha, dC, ldc, x, ldx, dX, lddx value.Value) {
	rows, cols := c.sel(isN, n, k), c.sel(isN, k, n)
	// The side in lower case, as Enzyme's syrk rule writes it.
	it := uplo.Type().(*types.IntType)
	side := c.b.NewSelect(c.cblasEnum(uplo), c.sel(isN, constant.NewInt(it, 141), constant.NewInt(it, 142)),
		c.sel(isN, constant.NewInt(it, 'l'), constant.NewInt(it, 'r')))
	c.blas("symm", layout, side, uplo, rows, cols,
		alpha, dC, ldc, x, ldx, c.f(1), dX, lddx)
	c.b.NewCall(blasHelper(c, "diagscalem"), c.rowMajor(layout), c.i64(rows), c.i64(cols), isN, alpha, dC, c.i64(ldc),
		x, c.i64(ldx), dX, c.i64(lddx))
}

// positiveInc is n where inc > 0, else 0: scal and nrm2 do nothing (nrm2
// returns 0) for a non-positive increment, so their derivative terms,
// made of routines that accept one, must do nothing too.
func (c *blasCtx) positiveInc(n, inc value.Value) value.Value {
	pos := c.b.NewICmp(enum.IPredSGT, inc, constant.NewInt(inc.Type().(*types.IntType), 0))
	return c.sel(pos, n, constant.NewInt(n.Type().(*types.IntType), 0))
}
