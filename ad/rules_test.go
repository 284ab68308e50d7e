package ad

import (
	"fmt"
	"strings"
	"testing"
)

// ruleCase is one math function checked against a central finite difference
// at a point, for every argument that carries a derivative.
type ruleCase struct {
	call  string    // C expression in a, b, c
	args  []float64 // the point
	float bool      // float (f-suffixed) variant
	loose bool      // float rounding inside: compare loosely
}

var ruleCases = []ruleCase{
	{"sqrt(a)", []float64{2.3}, false, false}, {"cbrt(a)", []float64{2.3}, false, false},
	{"exp(a)", []float64{0.7}, false, false}, {"exp2(a)", []float64{0.7}, false, false}, {"expm1(a)", []float64{0.7}, false, false},
	{"log(a)", []float64{2.3}, false, false}, {"log2(a)", []float64{2.3}, false, false}, {"log10(a)", []float64{2.3}, false, false},
	{"log1p(a)", []float64{0.7}, false, false},
	{"sin(a)", []float64{0.7}, false, false}, {"cos(a)", []float64{0.7}, false, false}, {"tan(a)", []float64{0.7}, false, false},
	{"asin(a)", []float64{0.3}, false, false}, {"acos(a)", []float64{0.3}, false, false}, {"atan(a)", []float64{0.7}, false, false},
	{"atan2(a, b)", []float64{0.7, 1.3}, false, false},
	{"sinh(a)", []float64{0.7}, false, false}, {"cosh(a)", []float64{0.7}, false, false}, {"tanh(a)", []float64{0.7}, false, false},
	{"fabs(a)", []float64{-0.7}, false, false}, {"fabs(a)", []float64{0.7}, false, false},
	{"copysign(a, b)", []float64{0.7, -1.3}, false, false}, {"copysign(a, b)", []float64{-0.7, -1.3}, false, false},
	{"fmin(a, b)", []float64{0.7, 1.3}, false, false}, {"fmax(a, b)", []float64{0.7, 1.3}, false, false},
	{"fma(a, b, c)", []float64{0.7, 1.3, -0.4}, false, false},
	{"hypot(a, b)", []float64{0.7, 1.3}, false, false},
	{"erf(a)", []float64{0.7}, false, false}, {"erfc(a)", []float64{0.7}, false, false},
	{"floor(a) * a", []float64{2.3}, false, false}, {"ceil(a) * a", []float64{2.3}, false, false}, {"round(a) * a", []float64{2.3}, false, false},
	{"trunc(a) * a", []float64{2.3}, false, false}, {"rint(a) * a", []float64{2.3}, false, false},
	{"pow(a, b)", []float64{1.7, 2.3}, false, false}, {"pow(a, 3.0)", []float64{-1.7}, false, false},
	{"__builtin_powi(a, 5)", []float64{1.3}, false, false},
	{"fmod(a, b)", []float64{5.3, 1.7}, false, false},
	{"a * b + c", []float64{0.7, 1.3, -0.4}, false, false},
	{"(double)((float)a * (float)b)", []float64{0.7, 1.3}, false, true},
	{"-a / b", []float64{0.7, 1.3}, false, false},
	{"a - b", []float64{0.7, 1.3}, false, false},
	{"sinf(a)", []float64{0.7}, true, false}, {"expf(a)", []float64{0.7}, true, false}, {"powf(a, b)", []float64{1.7, 2.3}, true, false},
	{"sqrtf(a)", []float64{2.3}, true, false}, {"atan2f(a, b)", []float64{0.7, 1.3}, true, false}, {"fabsf(a)", []float64{-0.7}, true, false},
	{"erff(a)", []float64{0.7}, true, false}, {"fmaxf(a, b)", []float64{0.7, 1.3}, true, false}, {"hypotf(a, b)", []float64{0.7, 1.3}, true, false},
}

// ruleProgram writes a C program that differentiates every case with
// __enzyme_autodiff (a struct of derivatives for several arguments) and
// compares each derivative with a central finite difference.
func ruleProgram() string {
	var sb strings.Builder
	sb.WriteString(checkPrelude)
	sb.WriteString(`
typedef struct { double a, b; } D2;
typedef struct { double a, b, c; } D3;
typedef struct { float a, b; } F2;
double __enzyme_autodiff(void *, ...);
D2 __enzyme_autodiff_d2(void *, ...);
D3 __enzyme_autodiff_d3(void *, ...);
float __enzyme_autodiff_f(void *, ...);
F2 __enzyme_autodiff_f2(void *, ...);
`)
	var body strings.Builder
	names := []string{"a", "b", "c"}
	for i, c := range ruleCases {
		n := len(c.args)
		typ := "double"
		if c.float {
			typ = "float"
		}
		params := make([]string, n)
		for j := range params {
			params[j] = typ + " " + names[j]
		}
		fmt.Fprintf(&sb, "__attribute__((noinline)) %s f%d(%s) { return %s; }\n", typ, i, strings.Join(params, ", "), c.call)
		pt := make([]string, n)
		for j, v := range c.args {
			pt[j] = fmt.Sprintf("%.17g", v)
		}
		point := strings.Join(pt, ", ")
		tol := "1e-6"
		if c.float || c.loose {
			tol = "2e-3"
		}
		for j := 0; j < n; j++ {
			// Central difference in argument j.
			plus := append([]string(nil), pt...)
			minus := append([]string(nil), pt...)
			plus[j] = fmt.Sprintf("(%s + h)", pt[j])
			minus[j] = fmt.Sprintf("(%s - h)", pt[j])
			fdh := "1e-6"
			if c.float || c.loose {
				fdh = "1e-2"
			}
			var got string
			switch {
			case n == 1 && !c.float:
				got = fmt.Sprintf("__enzyme_autodiff((void *)f%d, %s)", i, point)
			case n == 1:
				got = fmt.Sprintf("__enzyme_autodiff_f((void *)f%d, (float)%s)", i, point)
			case n == 2 && !c.float:
				got = fmt.Sprintf("__enzyme_autodiff_d2((void *)f%d, %s).%s", i, point, names[j])
			case n == 2:
				got = fmt.Sprintf("__enzyme_autodiff_f2((void *)f%d, (float)%s, (float)%s).%s", i, pt[0], pt[1], names[j])
			default:
				got = fmt.Sprintf("__enzyme_autodiff_d3((void *)f%d, %s).%s", i, point, names[j])
			}
			fmt.Fprintf(&body, "\t{ double h = %s; check(\"%s d/d%s\", %s, (f%d(%s) - f%d(%s)) / (2 * h), %s); }\n",
				fdh, strings.ReplaceAll(c.call, `"`, `'`), names[j], got, i, strings.Join(plus, ", "), i, strings.Join(minus, ", "), tol)
		}
	}
	sb.WriteString("int main(void) {\n")
	sb.WriteString(body.String())
	sb.WriteString("\treturn failures != 0;\n}\n")
	return sb.String()
}

func TestMathRules(t *testing.T) {
	t.Parallel()
	src := ruleProgram()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	// With -fno-math-errno clang emits LLVM intrinsics (llvm.sqrt, llvm.sin, ...).
	t.Run("O2-intrinsics", func(t *testing.T) { run(t, buildC(t, src, "2", "-fno-math-errno")) })
}
