// Package rules holds the derivative rules of math functions and
// intrinsics as data (one entry serves the tangent and the adjoint), the
// complex runtime's Jacobians, and the Builder that rules emit their
// partials with.
package rules

import (
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Builder emits instructions at the end of block B of a function being
// generated, and declares the functions the emitted code calls in M.
type Builder struct {
	M *ir.Module
	B *ir.Block
	// Arg is the type of the argument whose partial a math rule is
	// building: constant partials need no operand (fetching one may cost
	// a cache).
	Arg types.Type
	// Picked is the pick of the call whose terms are being built
	// (Rule.Pick), where the reverse sweep has it; nil: the first term
	// computes it from the operands (a builder serves one call).
	Picked value.Value
	// Sibling, where the sweep sets it, returns the value the primal
	// computed with the math function name (a base name: "cos") of the
	// differentiated call's own operands, where the sweep has it, or nil
	// where the primal computes none: a rule that needs that function of
	// its operands takes it (SiblingOf) instead of calling it again.
	Sibling func(name string) value.Value
}

// SiblingOf is Sibling's value for name, nil where there is none.
func (b *Builder) SiblingOf(name string) value.Value {
	if b.Sibling == nil {
		return nil
	}
	return b.Sibling(name)
}

func (b *Builder) FAdd(x, y value.Value) value.Value { return b.B.NewFAdd(x, y) }
func (b *Builder) FSub(x, y value.Value) value.Value { return b.B.NewFSub(x, y) }
func (b *Builder) FMul(x, y value.Value) value.Value { return b.B.NewFMul(x, y) }
func (b *Builder) FDiv(x, y value.Value) value.Value { return b.B.NewFDiv(x, y) }
func (b *Builder) FNeg(x value.Value) value.Value    { return b.B.NewFNeg(x) }

// Konst is the float constant v in the type of x.
func (b *Builder) Konst(x value.Value, v float64) value.Value { return FloatConst(x.Type(), v) }

func (b *Builder) FCmp(p enum.FPred, x, y value.Value) value.Value { return b.B.NewFCmp(p, x, y) }

func (b *Builder) Sel(c, x, y value.Value) value.Value { return b.B.NewSelect(c, x, y) }

// Intrinsic calls the overloaded LLVM intrinsic llvm.NAME.<type of args[0]>.
// On a GPU, functions the NVPTX backend cannot lower call libdevice.
func (b *Builder) Intrinsic(name string, args ...value.Value) value.Value {
	t := args[0].Type()
	if IsGPUModule(b.M) && !NativeGPUIntrinsic(name) {
		return b.Libm(name, args...)
	}
	params := make([]types.Type, len(args))
	for i, a := range args {
		params[i] = a.Type()
	}
	f := Declare(b.M, "llvm."+name+"."+TypeSuffix(t), t, params...)
	return b.B.NewCall(f, args...)
}

// Libm calls a C math function on scalars, picking the float or long double
// spelling (sinf, sinl) from the argument type. On a GPU it calls
// libdevice's (__nv_sin, __nv_sinf), linked after AD.
func (b *Builder) Libm(name string, args ...value.Value) value.Value {
	t := args[0].Type()
	if IsGPUModule(b.M) {
		params := make([]types.Type, len(args))
		for i, a := range args {
			params[i] = a.Type()
		}
		return b.B.NewCall(Declare(b.M, DeviceMathName(name, t), t, params...), args...)
	}
	if ft, ok := t.(*types.FloatType); ok {
		switch ft.Kind {
		case types.FloatKindFloat:
			name += "f"
		case types.FloatKindX86_FP80, types.FloatKindFP128:
			name += "l"
		}
	}
	params := make([]types.Type, len(args))
	for i, a := range args {
		params[i] = a.Type()
	}
	return b.B.NewCall(Declare(b.M, name, t, params...), args...)
}

// Declare returns the module's function called name, declaring it when absent.
func Declare(m *ir.Module, name string, ret types.Type, params ...types.Type) *ir.Func {
	for _, f := range m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	ps := make([]*ir.Param, len(params))
	for i, p := range params {
		ps[i] = ir.NewParam("", p)
	}
	return m.NewFunc(name, ret, ps...)
}

// ConstIntLike is the integer constant v in the (integer) type of x.
func ConstIntLike(x value.Value, v int64) value.Value {
	return constant.NewInt(x.Type().(*types.IntType), v)
}

// SplatLike broadcasts scalar s to the vector type of like (or returns s for
// scalar like).
func SplatLike(b *Builder, s, like value.Value) value.Value {
	vt, ok := like.Type().(*types.VectorType)
	if !ok {
		return s
	}
	var v value.Value = constant.NewUndef(vt)
	for i := uint64(0); i < vt.Len; i++ {
		v = b.B.NewInsertElement(v, s, constant.NewInt(types.I32, int64(i)))
	}
	return v
}

// IsGPUModule reports device code for an NVIDIA GPU.
func IsGPUModule(m *ir.Module) bool { return strings.HasPrefix(m.TargetTriple, "nvptx") }

// DeviceMathName is the libdevice function the derivative code calls for
// a math function name ("cos") on values of type t: __nv_cos, __nv_cosf.
func DeviceMathName(name string, t types.Type) string {
	if ft, ok := t.(*types.FloatType); ok && ft.Kind == types.FloatKindFloat {
		return "__nv_" + name + "f"
	}
	return "__nv_" + name
}

// NativeGPUIntrinsic reports the LLVM math intrinsics the NVPTX backend
// selects instructions for; the others (llvm.cos, llvm.exp, llvm.pow, ...)
// it cannot lower, so derivative code on a GPU calls libdevice instead.
func NativeGPUIntrinsic(name string) bool {
	switch name {
	case "sqrt", "fabs", "fma", "fmuladd", "copysign", "minnum", "maxnum", "minimum", "maximum",
		"floor", "ceil", "trunc", "rint", "nearbyint", "round", "roundeven":
		return true
	}
	return false
}
