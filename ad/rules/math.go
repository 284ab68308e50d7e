package rules

import (
	"math"
	"strings"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Partial builds ∂f/∂x_i at the point a (result res = f(a)). The operands
// and the result are fetched lazily: a rule pays only for the values it uses
// (each may cost a cache in the forward sweep).
type Partial func(b *Builder, a Operands, res Result) value.Value

// Operands returns operand i of the differentiated call, as the reverse
// sweep sees it.
type Operands func(i int) value.Value

// Result returns the call's result, as the reverse sweep sees it.
type Result func() value.Value

// Rule is the derivative rule of one math function or intrinsic: one
// partial per argument, nil for arguments that carry no derivative (the
// integer exponent of powi). The adjoint rule is Σ d·∂_i into each argument
// and the tangent rule Σ ∂_i·dx_i: both modes come from this one entry.
type Rule struct {
	Partials []Partial
	// Pick, for functions that return one of their two arguments (fmin,
	// fmax), builds from the operands x and y the i1 "x was returned"
	// (ad/pick.go). Such a rule has no Partials: its term for argument i is
	// d where argument i was returned and -0 where it was not (AdjZero:
	// adding it changes nothing, not even a zero's sign), a select on the
	// pick (as Enzyme's fmax rule, which adds +0), not d times a 0/1 partial,
	// which the optimizer after AD turns into a branch per partial and
	// which spreads an infinite or NaN adjoint into the argument not
	// returned.
	Pick func(b *Builder, x, y value.Value) value.Value
}

// Differentiable reports whether argument i of a call carries a
// derivative through the rule.
func (rule *Rule) Differentiable(i int) bool {
	if rule.Pick != nil {
		return i < 2
	}
	return i < len(rule.Partials) && rule.Partials[i] != nil
}

// Term returns d·∂f/∂x_i (d the adjoint or tangent of the call, x_i its
// argument i).
func (rule *Rule) Term(b *Builder, a Operands, res Result, i int, d value.Value) value.Value {
	if rule.Pick == nil {
		return b.FMul(d, rule.Partials[i](b, a, res))
	}
	if b.Picked == nil {
		b.Picked = rule.Pick(b, a(0), a(1))
	}
	if i == 0 {
		return b.Sel(b.Picked, d, AdjZero(b.Arg))
	}
	return b.Sel(b.Picked, AdjZero(b.Arg), d)
}

func unary(p Partial) *Rule { return &Rule{Partials: []Partial{p}} }

var (
	zeroPartial Partial = func(b *Builder, a Operands, res Result) value.Value { return FloatConst(b.Arg, 0) }
	onePartial  Partial = func(b *Builder, a Operands, res Result) value.Value { return FloatConst(b.Arg, 1) }
)

// mathRules is the derivative table, keyed by the base name shared by the
// C function (sin, sinf, sinl) and the LLVM intrinsic (llvm.sin.f64).
var mathRules = map[string]*Rule{
	"sqrt": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(res(), 0.5), res())
	}),
	"cbrt": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(res(), b.FMul(b.Konst(a(0), 3), a(0)))
	}),
	"exp":   unary(func(b *Builder, a Operands, res Result) value.Value { return res() }),
	"exp2":  unary(func(b *Builder, a Operands, res Result) value.Value { return b.FMul(res(), b.Konst(res(), math.Ln2)) }),
	"expm1": unary(func(b *Builder, a Operands, res Result) value.Value { return b.FAdd(res(), b.Konst(res(), 1)) }),
	"log":   unary(func(b *Builder, a Operands, res Result) value.Value { return b.FDiv(b.Konst(a(0), 1), a(0)) }),
	"log2": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), 1), b.FMul(a(0), b.Konst(a(0), math.Ln2)))
	}),
	"log10": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), 1), b.FMul(a(0), b.Konst(a(0), math.Ln10)))
	}),
	"log1p": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), 1), b.FAdd(a(0), b.Konst(a(0), 1)))
	}),
	"sin": unary(func(b *Builder, a Operands, res Result) value.Value {
		if c := b.SiblingOf("cos"); c != nil {
			return c
		}
		return b.Intrinsic("cos", a(0))
	}),
	"cos": unary(func(b *Builder, a Operands, res Result) value.Value {
		if s := b.SiblingOf("sin"); s != nil {
			return b.FNeg(s)
		}
		return b.FNeg(b.Intrinsic("sin", a(0)))
	}),
	"tan": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FAdd(b.Konst(res(), 1), b.FMul(res(), res()))
	}),
	"asin": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), 1), oneMinusSquareRoot(b, a(0)))
	}),
	"acos": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), -1), oneMinusSquareRoot(b, a(0)))
	}),
	"atan": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(b.Konst(a(0), 1), b.FAdd(b.Konst(a(0), 1), b.FMul(a(0), a(0))))
	}),
	"atan2": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value { // ∂/∂y = x/(x²+y²)
			return b.FDiv(a(1), sumOfSquares(b, a(0), a(1)))
		},
		func(b *Builder, a Operands, res Result) value.Value { // ∂/∂x = -y/(x²+y²)
			return b.FDiv(b.FNeg(a(0)), sumOfSquares(b, a(0), a(1)))
		},
	}},
	"sinh": unary(func(b *Builder, a Operands, res Result) value.Value { return b.Libm("cosh", a(0)) }),
	"cosh": unary(func(b *Builder, a Operands, res Result) value.Value { return b.Libm("sinh", a(0)) }),
	"tanh": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FSub(b.Konst(res(), 1), b.FMul(res(), res()))
	}),
	"asinh": unary(func(b *Builder, a Operands, res Result) value.Value { // 1/sqrt(x²+1)
		return b.FDiv(b.Konst(a(0), 1), b.Intrinsic("sqrt", b.FAdd(b.FMul(a(0), a(0)), b.Konst(a(0), 1))))
	}),
	"acosh": unary(func(b *Builder, a Operands, res Result) value.Value { // 1/sqrt(x²-1)
		return b.FDiv(b.Konst(a(0), 1), b.Intrinsic("sqrt", b.FSub(b.FMul(a(0), a(0)), b.Konst(a(0), 1))))
	}),
	"atanh": unary(func(b *Builder, a Operands, res Result) value.Value { // 1/(1-x²)
		return b.FDiv(b.Konst(a(0), 1), b.FSub(b.Konst(a(0), 1), b.FMul(a(0), a(0))))
	}),
	"fabs": unary(func(b *Builder, a Operands, res Result) value.Value {
		// sign(x), with 0 at 0 (the subgradient PyTorch and Enzyme use).
		x := a(0)
		pos := b.Sel(b.FCmp(enum.FPredOGT, x, b.Konst(x, 0)), b.Konst(x, 1), b.Konst(x, 0))
		return b.Sel(b.FCmp(enum.FPredOLT, x, b.Konst(x, 0)), b.Konst(x, -1), pos)
	}),
	"copysign": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value {
			// +1 where x and y agree in sign, -1 where copysign flips x.
			return b.FMul(b.Intrinsic("copysign", b.Konst(a(0), 1), a(0)), b.Intrinsic("copysign", b.Konst(a(0), 1), a(1)))
		},
		zeroPartial,
	}},
	"fmin":    minMax(true),
	"minnum":  minMax(true),
	"fmax":    minMax(false),
	"maxnum":  minMax(false),
	"fma":     fmaRule,
	"fmuladd": fmaRule,
	"hypot": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value { return b.FDiv(a(0), res()) },
		func(b *Builder, a Operands, res Result) value.Value { return b.FDiv(a(1), res()) },
	}},
	// cabs(re, im) of a complex double (std::abs of std::complex<double>),
	// passed as its two parts: |z|, as hypot.
	"cabs": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value { return b.FDiv(a(0), res()) },
		func(b *Builder, a Operands, res Result) value.Value { return b.FDiv(a(1), res()) },
	}},
	// frexp(x, &e) = x·2^-e: ∂/∂x = 2^-e = result/x, 1 at x = 0 (where e = 0);
	// the exponent written through the pointer is an integer.
	"frexp": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value {
			x := a(0)
			return b.Sel(b.FCmp(enum.FPredOEQ, x, b.Konst(x, 0)), b.Konst(x, 1), b.FDiv(res(), x))
		},
		nil,
	}},
	"erf": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FMul(b.Konst(a(0), 2/math.Sqrt(math.Pi)), b.Intrinsic("exp", b.FNeg(b.FMul(a(0), a(0)))))
	}),
	"erfc": unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FMul(b.Konst(a(0), -2/math.Sqrt(math.Pi)), b.Intrinsic("exp", b.FNeg(b.FMul(a(0), a(0)))))
	}),
	"pow": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value { // y·x^(y-1)
			return b.FMul(a(1), b.Intrinsic("pow", a(0), b.FSub(a(1), b.Konst(a(1), 1))))
		},
		func(b *Builder, a Operands, res Result) value.Value { // x^y·log x
			return b.FMul(res(), b.Intrinsic("log", a(0)))
		},
	}},
	"powi": {Partials: []Partial{
		func(b *Builder, a Operands, res Result) value.Value { // n·x^(n-1)
			n := a(1)
			nm1 := b.B.NewSub(n, ConstIntLike(n, 1))
			f := b.B.NewSIToFP(n, ScalarOf(a(0).Type()))
			return b.FMul(SplatLike(b, f, a(0)), powi(b, a(0), nm1))
		},
		nil,
	}},
	"rsqrt": unary(func(b *Builder, a Operands, res Result) value.Value { // -x^(-3/2)/2
		return b.FDiv(b.FMul(b.Konst(res(), -0.5), res()), a(0))
	}),
	"exp10": unary(func(b *Builder, a Operands, res Result) value.Value { return b.FMul(res(), b.Konst(res(), math.Ln10)) }),
	"fmod":  Fmod,
	"frem":  Fmod,
	// Fortran's MOD and MODULO of reals, calls into its runtime
	// (a, p, source file, line): a - aint(a/p)*p and a - floor(a/p)*p.
	"_FortranAModReal4": Fmod, "_FortranAModReal8": Fmod,
	"_FortranAModuloReal4": floorMod, "_FortranAModuloReal8": floorMod,
	"floor": unary(zeroPartial), "ceil": unary(zeroPartial), "round": unary(zeroPartial),
	"trunc": unary(zeroPartial), "rint": unary(zeroPartial), "nearbyint": unary(zeroPartial),
	"roundeven": unary(zeroPartial),
}

var fmaRule = &Rule{Partials: []Partial{
	func(b *Builder, a Operands, res Result) value.Value { return a(1) },
	func(b *Builder, a Operands, res Result) value.Value { return a(0) },
	onePartial,
}}

// Fmod: fmod(x, y) = x - y·trunc(x/y).
var Fmod = &Rule{Partials: []Partial{
	onePartial,
	func(b *Builder, a Operands, res Result) value.Value {
		return b.FNeg(b.Intrinsic("trunc", b.FDiv(a(0), a(1))))
	},
}}

// floorMod is Fmod with the quotient rounded down (Fortran's MODULO).
var floorMod = &Rule{Partials: []Partial{
	onePartial,
	func(b *Builder, a Operands, res Result) value.Value {
		return b.FNeg(b.Intrinsic("floor", b.FDiv(a(0), a(1))))
	},
}}

// minMax's terms go to the argument that was returned; NaN arguments are
// ignored as fmin/fmax ignore them. Which one was returned is the rule's
// pick, one bit: where the reverse sweep has it (cached or recomputed,
// ad/pick.go), the terms read it instead of the operands.
func minMax(isMin bool) *Rule {
	return &Rule{Pick: func(b *Builder, x, y value.Value) value.Value {
		pred := enum.FPredOLE
		if !isMin {
			pred = enum.FPredOGE
		}
		cmp := b.FCmp(pred, x, y)
		yNaN := b.FCmp(enum.FPredUNO, y, y)
		return b.B.NewOr(cmp, yNaN)
	}}
}

func oneMinusSquareRoot(b *Builder, x value.Value) value.Value {
	return b.Intrinsic("sqrt", b.FSub(b.Konst(x, 1), b.FMul(x, x)))
}

func sumOfSquares(b *Builder, x, y value.Value) value.Value {
	return b.FAdd(b.FMul(x, x), b.FMul(y, y))
}

func powi(b *Builder, x, n value.Value) value.Value {
	if IsGPUModule(b.M) {
		// NVPTX has no __powidf2: libdevice's __nv_powi (i32 exponent).
		if it, ok := n.Type().(*types.IntType); ok && it.BitSize != 32 {
			n = b.B.NewTrunc(n, types.I32)
		}
		f := Declare(b.M, DeviceMathName("powi", x.Type()), x.Type(), x.Type(), types.I32)
		return b.B.NewCall(f, x, n)
	}
	name := "llvm.powi." + TypeSuffix(x.Type()) + "." + TypeSuffix(n.Type())
	f := Declare(b.M, name, x.Type(), x.Type(), n.Type())
	return b.B.NewCall(f, x, n)
}

// x86Approx: the packed reciprocal and reciprocal square root
// approximations (_mm_rsqrt_ps, _mm_rcp_ps and the AVX forms, 12 bits
// exact), differentiated as the functions they approximate, by their
// result r: d rsqrt(x) = -r/(2x), d rcp(x) = -r*r. Code refines r by Newton
// or Goldschmidt steps (the n-body benchmarks' vrsqrtps), whose own
// derivatives then give the refined function's; the lookup table's steps
// have no derivative to take. The scalar .ss forms, which pass lanes 1-3
// of their argument through, have no rule.
var x86Approx = map[string]*Rule{
	"llvm.x86.sse.rsqrt.ps":     rsqrtApprox,
	"llvm.x86.avx.rsqrt.ps.256": rsqrtApprox,
	"llvm.x86.sse.rcp.ps":       rcpApprox,
	"llvm.x86.avx.rcp.ps.256":   rcpApprox,
}

var (
	rsqrtApprox = unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FDiv(res(), b.FMul(b.Konst(a(0), -2), a(0)))
	})
	rcpApprox = unary(func(b *Builder, a Operands, res Result) value.Value {
		return b.FNeg(b.FMul(res(), res()))
	})
)

// Lookup finds the rule for a callee name: a C math function (with an
// f or l suffix for float and long double) or an llvm.* intrinsic.
func Lookup(callee string, t types.Type) (*Rule, string) {
	if r := x86Approx[callee]; r != nil {
		return r, callee
	}
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
