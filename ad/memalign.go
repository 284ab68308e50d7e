package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// posix_memalign(&p, alignment, size) allocates and returns the memory
// through its first argument. Where that slot has a shadow, the shadow slot
// receives a shadow allocation made the same way and zeroed; the reverse
// sweep frees it at the reverse of the call (as for malloc).

func isMemAlign(c *ir.InstCall) bool { return irfacts.CalleeName(c) == "posix_memalign" }

// memAlignShadow emits, after the primal call x, the shadow allocation
// into the shadow slot slot, and returns the shadow pointer.
func memAlignShadow(m *ir.Module, x *ir.InstCall, slot value.Value, out *[]ir.Instruction) value.Value {
	slot = bitCastTo(out, slot, types.NewPointer(types.I8Ptr))
	args := []value.Value{slot, irfacts.Unwrap(x.Args[1]), irfacts.Unwrap(x.Args[2])}
	c := ir.NewCall(x.Callee, args...)
	c.Typ = x.Typ
	sp := ir.NewLoad(types.I8Ptr, slot)
	*out = append(*out, c, sp)
	*out = append(*out, memsetZero(m, sp, irfacts.Unwrap(x.Args[2]))...)
	return sp
}
