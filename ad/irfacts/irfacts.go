// Package irfacts answers the questions about IR values, types and calls
// that every part of the AD engine asks: which types carry derivatives or
// pointers, which calls allocate, copy or set memory, what a function's
// enzyme attributes say. It depends on llir and irutil only.
package irfacts

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Unwrap returns the value a call argument (*ir.Arg) passes; other values
// unchanged.
func Unwrap(v value.Value) value.Value {
	if x, ok := v.(*ir.Arg); ok {
		return x.Value
	}
	return v
}

// IsFloat reports whether t is a floating-point scalar.
func IsFloat(t types.Type) bool {
	_, ok := t.(*types.FloatType)
	return ok
}

// CarriesFloat reports whether values of type t can carry a derivative held
// in registers: floating-point scalars, vectors of them, and aggregates that
// contain any.
func CarriesFloat(t types.Type) bool {
	switch t := t.(type) {
	case *types.FloatType:
		return true
	case *types.VectorType:
		return IsFloat(t.ElemType)
	case *types.ArrayType:
		return CarriesFloat(t.ElemType)
	case *types.StructType:
		for _, f := range t.Fields {
			if CarriesFloat(f) {
				return true
			}
		}
	}
	return false
}

// HoldsPointers reports a pointer, or an aggregate with pointer fields: the
// values whose shadows hold shadow pointers.
func HoldsPointers(t types.Type) bool { return types.IsPointer(t) || HasPointerField(t) }

// HasPointerField reports an aggregate with a pointer among its fields (a
// tape returned beside an integer result): its tangent holds their shadows.
func HasPointerField(t types.Type) bool {
	switch t := t.(type) {
	case *types.ArrayType:
		return types.IsPointer(t.ElemType) || HasPointerField(t.ElemType)
	case *types.StructType:
		for _, f := range t.Fields {
			if types.IsPointer(f) || HasPointerField(f) {
				return true
			}
		}
	}
	return false
}

// ContainsPointer reports a pointer type, a vector of pointers or an
// aggregate with a pointer anywhere inside.
func ContainsPointer(t types.Type) bool {
	switch t := t.(type) {
	case *types.PointerType:
		return true
	case *types.VectorType:
		return types.IsPointer(t.ElemType)
	case *types.ArrayType:
		return ContainsPointer(t.ElemType)
	case *types.StructType:
		for _, f := range t.Fields {
			if ContainsPointer(f) {
				return true
			}
		}
	}
	return false
}

// ContainsFloatBytes reports whether a region of type t (nil: unknown)
// may hold floating point.
func ContainsFloatBytes(t types.Type) bool {
	if t == nil || types.Equal(t, types.I8) {
		return true
	}
	return CarriesFloat(t)
}

// IncomingValues lists a phi's incoming values.
func IncomingValues(p *ir.InstPhi) []value.Value {
	ops := make([]value.Value, len(p.Incs))
	for i, in := range p.Incs {
		ops[i] = in.X
	}
	return ops
}

// IncomingFrom returns phi p's incoming value from block pred.
func IncomingFrom(p *ir.InstPhi, pred *ir.Block) (value.Value, bool) {
	for _, in := range p.Incs {
		if in.Pred == pred {
			return in.X, true
		}
	}
	return nil, false
}

// Interposable reports linkages whose definition another one may replace
// at link time with different contents.
func Interposable(l enum.Linkage) bool {
	switch l {
	case enum.LinkageWeak, enum.LinkageLinkOnce, enum.LinkageCommon, enum.LinkageExternWeak:
		return true
	}
	return false
}

// AddrSpaceShared is the NVPTX address space of __shared__ variables.
const AddrSpaceShared = 3

// IsSharedGlobal reports a __shared__ variable: per-block memory, without
// an initializer, that every thread of a block sees.
func IsSharedGlobal(g *ir.Global) bool { return g.AddrSpace == AddrSpaceShared }

// SharedGlobalOf returns the __shared__ variable constant pointer c points
// into (through constant casts and getelementptrs), or nil.
func SharedGlobalOf(c constant.Constant) *ir.Global {
	if g, ok := ConstantBase(c).(*ir.Global); ok && IsSharedGlobal(g) {
		return g
	}
	return nil
}

// ConstantBase is what pointer constant c points into: c through constant
// bitcasts, address-space casts and getelementptrs.
func ConstantBase(c constant.Constant) constant.Constant {
	for {
		switch x := c.(type) {
		case *constant.ExprBitCast:
			c = x.From
		case *constant.ExprAddrSpaceCast:
			c = x.From
		case *constant.ExprGetElementPtr:
			c = x.Src
		default:
			return c
		}
	}
}

// Function attributes by which the AD engine recognizes a function-like
// or allocation-like function (Enzyme marks them the same way):
// "enzyme_math"="log1p", "enzyme_allocator"="N" with N the index of the
// byte-size argument.
const (
	AttrMath      = "enzyme_math"
	AttrAllocator = "enzyme_allocator"
)

// FuncAttr returns the value of f's string attribute key ("" when unset).
func FuncAttr(f *ir.Func, key string) string {
	for _, a := range f.FuncAttrs {
		if p, ok := a.(ir.AttrPair); ok && p.Key == key {
			return p.Value
		}
	}
	return ""
}

// IsFunctionLike reports a function declared to behave like a math
// function: its calls are differentiated by that function's rule, never
// through its body.
func IsFunctionLike(f *ir.Func) bool { return FuncAttr(f, AttrMath) != "" }

// IsLLVMIntrinsic reports an llvm.* intrinsic.
func IsLLVMIntrinsic(f interface{ Name() string }) bool {
	return strings.HasPrefix(f.Name(), "llvm.")
}

// CalleeName is the name of the function a call calls directly (casts
// stripped), or "": for a declaration __real_NAME, NAME (LibName).
func CalleeName(c *ir.InstCall) string {
	if f, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
		return LibName(f)
	}
	return ""
}

// LibName is the name of the library function f calls: its own, or NAME
// for a declaration __real_NAME, which only the linker's --wrap=NAME
// resolves (to NAME itself: a wrapper of malloc calls libc's malloc
// through __real_malloc).
func LibName(f *ir.Func) string {
	name := funcName(f)
	if n, ok := strings.CutPrefix(name, "__real_"); ok && len(f.Blocks) == 0 && n != "" {
		return n
	}
	return name
}

// funcName is f.Name() without its cost on the names functions have:
// llir's Name reads every name as a number first (strconv.ParseInt,
// whose error allocates) to quote the numeric ones; a name starting with
// a letter, '_', '.' or '$' is none.
func funcName(f *ir.Func) string {
	if n := f.GlobalName; n != "" {
		switch c := n[0]; {
		case c == '_' || c == '.' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			return n
		}
	}
	return f.Name()
}

// IsAllocation reports calls that return fresh heap memory (the C and C++
// allocators, and functions declared allocation-like).
func IsAllocation(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false
	}
	if FuncAttr(f, AttrAllocator) != "" {
		return true
	}
	switch LibName(f) {
	case "malloc", "calloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "aligned_alloc":
		return true
	}
	return false
}

// IsRealloc reports a call of realloc.
func IsRealloc(c *ir.InstCall) bool { return CalleeName(c) == "realloc" }

// IsMemTransfer reports memcpy/memmove, intrinsic or libc.
func IsMemTransfer(c *ir.InstCall) bool {
	n := CalleeName(c)
	return n == "memcpy" || n == "memmove" || strings.HasPrefix(n, "llvm.memcpy.") || strings.HasPrefix(n, "llvm.memmove.")
}

// IsMemSet reports memset, intrinsic or libc.
func IsMemSet(c *ir.InstCall) bool {
	n := CalleeName(c)
	return n == "memset" || strings.HasPrefix(n, "llvm.memset.")
}

// IsMaskedLoad and IsMaskedStore report the masked memory intrinsics of
// vectorized (-O3) code.
func IsMaskedLoad(c *ir.InstCall) bool { return strings.HasPrefix(CalleeName(c), "llvm.masked.load.") }

// IsMaskedStore: see IsMaskedLoad.
func IsMaskedStore(c *ir.InstCall) bool {
	return strings.HasPrefix(CalleeName(c), "llvm.masked.store.")
}

// IsFloatAtomic reports an atomicrmw fadd or fsub.
func IsFloatAtomic(x *ir.InstAtomicRMW) bool {
	return x.Op == enum.AtomicOpFAdd || x.Op == enum.AtomicOpFSub
}
