package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// checkGPU rejects, in a function AD differentiates on a GPU, what has no
// derivative rule: warp shuffles of floating-point data (a shuffle moves a
// value between threads; its adjoint would move the adjoint back),
// dynamic parallelism (kernels launched from device code) and cooperative
// groups (grid-wide synchronization). Each is an error naming the
// function and line (the kernel is added by Differentiate).
func checkGPU(f *ir.Func) error {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok {
				continue
			}
			name := irfacts.CalleeName(c)
			switch {
			case strings.Contains(name, "cudaLaunchDevice") || strings.Contains(name, "cudaGetParameterBuffer"):
				return errorAt(f, c, "dynamic parallelism (a kernel launched from device code, '%s') is not supported", name)
			case strings.HasPrefix(name, "cudaCG") || strings.Contains(name, "cooperative_groups"):
				return errorAt(f, c, "cooperative groups ('%s') are not supported", name)
			case strings.HasPrefix(name, "llvm.nvvm.shfl.") && len(c.Args) > 1 && fromFloat(c.Args[1], map[value.Value]bool{}):
				return errorAt(f, c, "a warp shuffle of floating-point data (%s) has no derivative rule", describe(c))
			}
		}
	}
	return nil
}

// fromFloat reports whether v is floating point, or an integer made of the
// bits of floating-point values (bitcasts, shifts, truncations: how a
// double crosses a shuffle as two 32-bit halves).
func fromFloat(v value.Value, seen map[value.Value]bool) bool {
	v = irfacts.Unwrap(v)
	if irfacts.CarriesFloat(v.Type()) {
		return true
	}
	if seen[v] {
		return false
	}
	seen[v] = true
	var ops []value.Value
	switch x := v.(type) {
	case *ir.InstBitCast:
		ops = []value.Value{x.From}
	case *ir.InstTrunc:
		ops = []value.Value{x.From}
	case *ir.InstZExt:
		ops = []value.Value{x.From}
	case *ir.InstLShr:
		ops = []value.Value{x.X}
	case *ir.InstAShr:
		ops = []value.Value{x.X}
	case *ir.InstShl:
		ops = []value.Value{x.X}
	case *ir.InstOr:
		ops = []value.Value{x.X, x.Y}
	case *ir.InstAnd:
		ops = []value.Value{x.X, x.Y}
	case *ir.InstExtractElement:
		ops = []value.Value{x.X}
	case *ir.InstExtractValue:
		ops = []value.Value{x.X}
	case *ir.InstPhi:
		ops = irfacts.IncomingValues(x)
	case *ir.InstSelect:
		ops = []value.Value{x.ValueTrue, x.ValueFalse}
	}
	for _, op := range ops {
		if fromFloat(op, seen) {
			return true
		}
	}
	return false
}

// plainLdg replaces the read-only loads of __ldg (llvm.nvvm.ldg.global.*:
// a load through the non-coherent cache) by plain loads, which AD
// differentiates and the backend may turn into ld.global.nc again.
func plainLdg(f *ir.Func) {
	for _, b := range f.Blocks {
		for i, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok || !strings.HasPrefix(irfacts.CalleeName(c), "llvm.nvvm.ldg.global.") || len(c.Args) != 2 {
				continue
			}
			ptr := irfacts.Unwrap(c.Args[0])
			pt, ok := ptr.Type().(*types.PointerType)
			if !ok {
				continue
			}
			ld := ir.NewLoad(pt.ElemType, ptr)
			if a, ok := evalInt(c.Args[1]); ok && a > 0 {
				ld.Align = ir.Align(a)
			}
			ld.LocalIdent = c.LocalIdent
			b.Insts[i] = ld
			irutil.ReplaceAllUses(f, c, ld)
		}
	}
}
