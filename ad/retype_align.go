package ad

// Pointers aligned by masking their bits: p & -A, as aligned stack and heap
// buffers are carved out of a larger block (Eigen's aligned stack
// variables: alloca of n + 15 bytes, then (p + 15) & -16).

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// mallocAlign is the alignment glibc's malloc (and operator new, which
// calls it) gives every block on x86-64.
const mallocAlign = 16

// alignDown splits an and of a pointer's bits x with -A (A a power of two)
// into x and A: the result is the pointer x moved back by x & (A-1) bytes,
// a getelementptr whose shadow is the shadow of x moved back by the same
// count. That count, taken from the primal's bits, is the right one for
// the shadow only where the shadow of x sits at the same distance from an
// A boundary as x: x must be base + k with base an allocation known to be
// aligned to A, whose shadow is aligned to A too (the shadow of an alloca
// has its alignment, memory.go's callMallocZeroed rounds heap shadows up
// to it; the shadow of a malloc'd block is another malloc'd block). Then
// x & (A-1) = k & (A-1) = (shadow base + k) & (A-1), and the aligned
// shadow is as aligned as the aligned primal (its aligned vector loads do
// not fault). Nil where that is not shown: the pointer stays opaque.
func (w *bodyRewrite) alignDown(inst ir.Instruction) (x value.Value, a int64) {
	and, ok := inst.(*ir.InstAnd)
	if !ok {
		return nil, 0
	}
	x, m := and.X, and.Y
	if _, ok := m.(*constant.Int); !ok {
		x, m = m, x
	}
	c, ok := m.(*constant.Int)
	if !ok || !w.rt.ta.IsPointerBits(x) || c.X.Sign() >= 0 || !c.X.IsInt64() {
		return nil, 0
	}
	a = -c.X.Int64()
	if a < 2 || a&(a-1) != 0 || w.baseAlign(x, 0) < a {
		return nil, 0
	}
	return x, a
}

// baseAlign is the alignment known of the allocation a pointer (or its
// bits) is base + offset into: an alloca's own, the allocator's for a
// heap block (glibc's 16 bytes, or an aligned allocation's constant
// alignment when more); 0 when the base is none of those.
func (w *bodyRewrite) baseAlign(v value.Value, depth int) int64 {
	if depth > 32 {
		return 0
	}
	ta := w.rt.ta
	switch x := v.(type) {
	case *ir.InstPtrToInt:
		return w.baseAlign(x.From, depth+1)
	case *ir.InstBitCast:
		return w.baseAlign(x.From, depth+1)
	case *ir.InstGetElementPtr:
		return w.baseAlign(x.Src, depth+1)
	case *ir.InstAdd:
		switch {
		case ta.IsPointerBits(x.X) && !ta.IsPointerBits(x.Y):
			return w.baseAlign(x.X, depth+1)
		case ta.IsPointerBits(x.Y) && !ta.IsPointerBits(x.X):
			return w.baseAlign(x.Y, depth+1)
		}
	case *ir.InstSub:
		if ta.IsPointerBits(x.X) && !ta.IsPointerBits(x.Y) {
			return w.baseAlign(x.X, depth+1)
		}
	case *ir.InstAlloca:
		return int64(x.Align)
	case *ir.InstCall:
		f, ok := irutil.StripCasts(x.Callee).(*ir.Func)
		if !ok {
			return 0
		}
		switch irfacts.LibName(f) {
		case "malloc", "calloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "aligned_alloc":
			return mallocAlign // an allocator's own attributes say nothing of alignment
		}
	}
	return 0
}
