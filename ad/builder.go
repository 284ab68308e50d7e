package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// builder emits instructions at the end of one block of a function being
// generated, and declares the functions the emitted code calls.
type builder struct {
	m *ir.Module
	b *ir.Block
	// arg is the type of the argument whose partial a math rule is
	// building: constant partials need no operand (fetching one may cost
	// a cache).
	arg types.Type
	// picked is the pick of the call whose terms are being built
	// (mathRule.pick), where the reverse sweep has it; nil: the first term
	// computes it from the operands (a builder serves one call).
	picked value.Value
}

func (b *builder) fadd(x, y value.Value) value.Value { return b.b.NewFAdd(x, y) }
func (b *builder) fsub(x, y value.Value) value.Value { return b.b.NewFSub(x, y) }
func (b *builder) fmul(x, y value.Value) value.Value { return b.b.NewFMul(x, y) }
func (b *builder) fdiv(x, y value.Value) value.Value { return b.b.NewFDiv(x, y) }
func (b *builder) fneg(x value.Value) value.Value    { return b.b.NewFNeg(x) }

// konst is the float constant v in the type of x.
func (b *builder) konst(x value.Value, v float64) value.Value { return floatConst(x.Type(), v) }

func (b *builder) fcmp(p enum.FPred, x, y value.Value) value.Value { return b.b.NewFCmp(p, x, y) }

func (b *builder) sel(c, x, y value.Value) value.Value { return b.b.NewSelect(c, x, y) }

// intrinsic calls the overloaded LLVM intrinsic llvm.NAME.<type of args[0]>.
// On a GPU, functions the NVPTX backend cannot lower call libdevice.
func (b *builder) intrinsic(name string, args ...value.Value) value.Value {
	t := args[0].Type()
	if isGPUModule(b.m) && !nativeGPUIntrinsic(name) {
		return b.libm(name, args...)
	}
	params := make([]types.Type, len(args))
	for i, a := range args {
		params[i] = a.Type()
	}
	f := declare(b.m, "llvm."+name+"."+typeSuffix(t), t, params...)
	return b.b.NewCall(f, args...)
}

// libm calls a C math function on scalars, picking the float or long double
// spelling (sinf, sinl) from the argument type. On a GPU it calls
// libdevice's (__nv_sin, __nv_sinf), linked after AD.
func (b *builder) libm(name string, args ...value.Value) value.Value {
	t := args[0].Type()
	if isGPUModule(b.m) {
		params := make([]types.Type, len(args))
		for i, a := range args {
			params[i] = a.Type()
		}
		return b.b.NewCall(declare(b.m, deviceMathName(name, t), t, params...), args...)
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
	return b.b.NewCall(declare(b.m, name, t, params...), args...)
}

// declare returns the module's function called name, declaring it when absent.
func declare(m *ir.Module, name string, ret types.Type, params ...types.Type) *ir.Func {
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

// constIntLike is the integer constant v in the (integer) type of x.
func constIntLike(x value.Value, v int64) value.Value {
	return constant.NewInt(x.Type().(*types.IntType), v)
}

// splatLike broadcasts scalar s to the vector type of like (or returns s for
// scalar like).
func splatLike(b *builder, s, like value.Value) value.Value {
	vt, ok := like.Type().(*types.VectorType)
	if !ok {
		return s
	}
	var v value.Value = constant.NewUndef(vt)
	for i := uint64(0); i < vt.Len; i++ {
		v = b.b.NewInsertElement(v, s, constant.NewInt(types.I32, int64(i)))
	}
	return v
}
