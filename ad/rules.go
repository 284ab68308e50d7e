package ad

import (
	"math"
	"strings"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// partial builds ∂f/∂x_i at the point a (result res = f(a)). The operands
// and the result are fetched lazily: a rule pays only for the values it uses
// (each may cost a cache in the forward sweep).
type partial func(b *builder, a operands, res result) value.Value

// operands returns operand i of the differentiated call, as the reverse
// sweep sees it.
type operands func(i int) value.Value

// result returns the call's result, as the reverse sweep sees it.
type result func() value.Value

// mathRule is the derivative rule of one math function or intrinsic: one
// partial per argument, nil for arguments that carry no derivative (the
// integer exponent of powi). The adjoint rule is Σ d·∂_i into each argument
// and the tangent rule Σ ∂_i·dx_i: both modes come from this one entry.
type mathRule struct {
	partials []partial
	// pick, for functions that return one of their two arguments (fmin,
	// fmax), builds from the operands x and y the i1 "x was returned"
	// (pick.go). Such a rule has no partials: its term for argument i is
	// d where argument i was returned and -0 where it was not (adjZero:
	// adding it changes nothing, not even a zero's sign), a select on the
	// pick (as Enzyme's fmax rule, which adds +0), not d times a 0/1 partial,
	// which the optimizer after AD turns into a branch per partial and
	// which spreads an infinite or NaN adjoint into the argument not
	// returned.
	pick func(b *builder, x, y value.Value) value.Value
}

// differentiable reports whether argument i of a call carries a
// derivative through the rule.
func (rule *mathRule) differentiable(i int) bool {
	if rule.pick != nil {
		return i < 2
	}
	return i < len(rule.partials) && rule.partials[i] != nil
}

// term returns d·∂f/∂x_i (d the adjoint or tangent of the call, x_i its
// argument i).
func (rule *mathRule) term(b *builder, a operands, res result, i int, d value.Value) value.Value {
	if rule.pick == nil {
		return b.fmul(d, rule.partials[i](b, a, res))
	}
	if b.picked == nil {
		b.picked = rule.pick(b, a(0), a(1))
	}
	if i == 0 {
		return b.sel(b.picked, d, adjZero(b.arg))
	}
	return b.sel(b.picked, adjZero(b.arg), d)
}

func unary(p partial) *mathRule { return &mathRule{partials: []partial{p}} }

var (
	zeroPartial partial = func(b *builder, a operands, res result) value.Value { return floatConst(b.arg, 0) }
	onePartial  partial = func(b *builder, a operands, res result) value.Value { return floatConst(b.arg, 1) }
)

// mathRules is the derivative table, keyed by the base name shared by the
// C function (sin, sinf, sinl) and the LLVM intrinsic (llvm.sin.f64).
var mathRules = map[string]*mathRule{
	"sqrt": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(res(), 0.5), res())
	}),
	"cbrt": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(res(), b.fmul(b.konst(a(0), 3), a(0)))
	}),
	"exp":   unary(func(b *builder, a operands, res result) value.Value { return res() }),
	"exp2":  unary(func(b *builder, a operands, res result) value.Value { return b.fmul(res(), b.konst(res(), math.Ln2)) }),
	"expm1": unary(func(b *builder, a operands, res result) value.Value { return b.fadd(res(), b.konst(res(), 1)) }),
	"log":   unary(func(b *builder, a operands, res result) value.Value { return b.fdiv(b.konst(a(0), 1), a(0)) }),
	"log2": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), 1), b.fmul(a(0), b.konst(a(0), math.Ln2)))
	}),
	"log10": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), 1), b.fmul(a(0), b.konst(a(0), math.Ln10)))
	}),
	"log1p": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), 1), b.fadd(a(0), b.konst(a(0), 1)))
	}),
	"sin": unary(func(b *builder, a operands, res result) value.Value { return b.intrinsic("cos", a(0)) }),
	"cos": unary(func(b *builder, a operands, res result) value.Value {
		return b.fneg(b.intrinsic("sin", a(0)))
	}),
	"tan": unary(func(b *builder, a operands, res result) value.Value {
		return b.fadd(b.konst(res(), 1), b.fmul(res(), res()))
	}),
	"asin": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), 1), oneMinusSquareRoot(b, a(0)))
	}),
	"acos": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), -1), oneMinusSquareRoot(b, a(0)))
	}),
	"atan": unary(func(b *builder, a operands, res result) value.Value {
		return b.fdiv(b.konst(a(0), 1), b.fadd(b.konst(a(0), 1), b.fmul(a(0), a(0))))
	}),
	"atan2": {partials: []partial{
		func(b *builder, a operands, res result) value.Value { // ∂/∂y = x/(x²+y²)
			return b.fdiv(a(1), sumOfSquares(b, a(0), a(1)))
		},
		func(b *builder, a operands, res result) value.Value { // ∂/∂x = -y/(x²+y²)
			return b.fdiv(b.fneg(a(0)), sumOfSquares(b, a(0), a(1)))
		},
	}},
	"sinh": unary(func(b *builder, a operands, res result) value.Value { return b.libm("cosh", a(0)) }),
	"cosh": unary(func(b *builder, a operands, res result) value.Value { return b.libm("sinh", a(0)) }),
	"tanh": unary(func(b *builder, a operands, res result) value.Value {
		return b.fsub(b.konst(res(), 1), b.fmul(res(), res()))
	}),
	"fabs": unary(func(b *builder, a operands, res result) value.Value {
		// sign(x), with 0 at 0 (the subgradient PyTorch and Enzyme use).
		x := a(0)
		pos := b.sel(b.fcmp(enum.FPredOGT, x, b.konst(x, 0)), b.konst(x, 1), b.konst(x, 0))
		return b.sel(b.fcmp(enum.FPredOLT, x, b.konst(x, 0)), b.konst(x, -1), pos)
	}),
	"copysign": {partials: []partial{
		func(b *builder, a operands, res result) value.Value {
			// +1 where x and y agree in sign, -1 where copysign flips x.
			return b.fmul(b.intrinsic("copysign", b.konst(a(0), 1), a(0)), b.intrinsic("copysign", b.konst(a(0), 1), a(1)))
		},
		zeroPartial,
	}},
	"fmin":    minMax(true),
	"minnum":  minMax(true),
	"fmax":    minMax(false),
	"maxnum":  minMax(false),
	"fma":     fmaRule,
	"fmuladd": fmaRule,
	"hypot": {partials: []partial{
		func(b *builder, a operands, res result) value.Value { return b.fdiv(a(0), res()) },
		func(b *builder, a operands, res result) value.Value { return b.fdiv(a(1), res()) },
	}},
	// cabs(re, im) of a complex double (std::abs of std::complex<double>),
	// passed as its two parts: |z|, as hypot.
	"cabs": {partials: []partial{
		func(b *builder, a operands, res result) value.Value { return b.fdiv(a(0), res()) },
		func(b *builder, a operands, res result) value.Value { return b.fdiv(a(1), res()) },
	}},
	// frexp(x, &e) = x·2^-e: ∂/∂x = 2^-e = result/x, 1 at x = 0 (where e = 0);
	// the exponent written through the pointer is an integer.
	"frexp": {partials: []partial{
		func(b *builder, a operands, res result) value.Value {
			x := a(0)
			return b.sel(b.fcmp(enum.FPredOEQ, x, b.konst(x, 0)), b.konst(x, 1), b.fdiv(res(), x))
		},
		nil,
	}},
	"erf": unary(func(b *builder, a operands, res result) value.Value {
		return b.fmul(b.konst(a(0), 2/math.Sqrt(math.Pi)), b.intrinsic("exp", b.fneg(b.fmul(a(0), a(0)))))
	}),
	"erfc": unary(func(b *builder, a operands, res result) value.Value {
		return b.fmul(b.konst(a(0), -2/math.Sqrt(math.Pi)), b.intrinsic("exp", b.fneg(b.fmul(a(0), a(0)))))
	}),
	"pow": {partials: []partial{
		func(b *builder, a operands, res result) value.Value { // y·x^(y-1)
			return b.fmul(a(1), b.intrinsic("pow", a(0), b.fsub(a(1), b.konst(a(1), 1))))
		},
		func(b *builder, a operands, res result) value.Value { // x^y·log x
			return b.fmul(res(), b.intrinsic("log", a(0)))
		},
	}},
	"powi": {partials: []partial{
		func(b *builder, a operands, res result) value.Value { // n·x^(n-1)
			n := a(1)
			nm1 := b.b.NewSub(n, constIntLike(n, 1))
			f := b.b.NewSIToFP(n, scalarOf(a(0).Type()))
			return b.fmul(splatLike(b, f, a(0)), powi(b, a(0), nm1))
		},
		nil,
	}},
	"rsqrt": unary(func(b *builder, a operands, res result) value.Value { // -x^(-3/2)/2
		return b.fdiv(b.fmul(b.konst(res(), -0.5), res()), a(0))
	}),
	"exp10": unary(func(b *builder, a operands, res result) value.Value { return b.fmul(res(), b.konst(res(), math.Ln10)) }),
	"fmod":  fmodRule,
	"frem":  fmodRule,
	"floor": unary(zeroPartial), "ceil": unary(zeroPartial), "round": unary(zeroPartial),
	"trunc": unary(zeroPartial), "rint": unary(zeroPartial), "nearbyint": unary(zeroPartial),
	"roundeven": unary(zeroPartial),
}

var fmaRule = &mathRule{partials: []partial{
	func(b *builder, a operands, res result) value.Value { return a(1) },
	func(b *builder, a operands, res result) value.Value { return a(0) },
	onePartial,
}}

// fmodRule: fmod(x, y) = x - y·trunc(x/y).
var fmodRule = &mathRule{partials: []partial{
	onePartial,
	func(b *builder, a operands, res result) value.Value {
		return b.fneg(b.intrinsic("trunc", b.fdiv(a(0), a(1))))
	},
}}

// minMax's terms go to the argument that was returned; NaN arguments are
// ignored as fmin/fmax ignore them. Which one was returned is the rule's
// pick, one bit: where the reverse sweep has it (cached or recomputed,
// pick.go), the terms read it instead of the operands.
func minMax(isMin bool) *mathRule {
	return &mathRule{pick: func(b *builder, x, y value.Value) value.Value {
		pred := enum.FPredOLE
		if !isMin {
			pred = enum.FPredOGE
		}
		cmp := b.fcmp(pred, x, y)
		yNaN := b.fcmp(enum.FPredUNO, y, y)
		return b.b.NewOr(cmp, yNaN)
	}}
}

func oneMinusSquareRoot(b *builder, x value.Value) value.Value {
	return b.intrinsic("sqrt", b.fsub(b.konst(x, 1), b.fmul(x, x)))
}

func sumOfSquares(b *builder, x, y value.Value) value.Value {
	return b.fadd(b.fmul(x, x), b.fmul(y, y))
}

func powi(b *builder, x, n value.Value) value.Value {
	if isGPUModule(b.m) {
		// NVPTX has no __powidf2: libdevice's __nv_powi (i32 exponent).
		if it, ok := n.Type().(*types.IntType); ok && it.BitSize != 32 {
			n = b.b.NewTrunc(n, types.I32)
		}
		f := declare(b.m, deviceMathName("powi", x.Type()), x.Type(), x.Type(), types.I32)
		return b.b.NewCall(f, x, n)
	}
	name := "llvm.powi." + typeSuffix(x.Type()) + "." + typeSuffix(n.Type())
	f := declare(b.m, name, x.Type(), x.Type(), n.Type())
	return b.b.NewCall(f, x, n)
}

// lookupMathRule finds the rule for a callee name: a C math function (with an
// f or l suffix for float and long double) or an llvm.* intrinsic.
func lookupMathRule(callee string, t types.Type) (*mathRule, string) {
	if strings.HasPrefix(callee, "llvm.") {
		base := strings.TrimPrefix(callee, "llvm.")
		if i := strings.IndexByte(base, '.'); i >= 0 {
			base = base[:i]
		}
		r := mathRules[base]
		return r, base
	}
	if strings.HasPrefix(callee, "__nv_") {
		// libdevice (CUDA device math): __nv_sin, __nv_sinf, __nv_fast_sinf.
		callee = strings.TrimPrefix(strings.TrimPrefix(callee, "__nv_"), "fast_")
		if _, ok := mathRules[callee]; !ok && !strings.HasSuffix(callee, "f") {
			return nil, ""
		}
	}
	if r := mathRules[callee]; r != nil {
		return r, callee
	}
	if ft, ok := t.(*types.FloatType); ok && len(callee) > 1 {
		suffix := callee[len(callee)-1]
		if (suffix == 'f' && ft.Kind == types.FloatKindFloat) ||
			(suffix == 'l' && (ft.Kind == types.FloatKindX86_FP80 || ft.Kind == types.FloatKindFP128)) {
			base := callee[:len(callee)-1]
			return mathRules[base], base
		}
	}
	return nil, ""
}
