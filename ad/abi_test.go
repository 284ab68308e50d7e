package ad

import (
	"strings"
	"testing"
)

func TestCallABI(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "call_abi.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if !strings.Contains(out, "y = 1.69") {
				t.Errorf("printf in the forward sweep did not run:\n%s", out)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want string }{
		{"external without body", `
double mystery(double);
double __enzyme_autodiff(void *, ...);
double f(double x) { return mystery(x) * x; }
int main(void) { return (int)__enzyme_autodiff((void *)f, 1.0); }
`, "cannot differentiate 'f': no derivative for the call to 'mystery'"},
		{"external reading active memory", `
void ext_sum(const double *x, int n, double *out);
double __enzyme_autodiff(void *, ...);
double f(double *x) { double s; ext_sum(x, 3, &s); return s * x[0]; }
int main(void) { double x[3] = {1, 2, 3}, dx[3] = {0}; __enzyme_autodiff((void *)f, x, dx); return (int)dx[0]; }
`, "cannot differentiate 'f': no derivative for the call to 'ext_sum', which takes pointers"},
		{"external reading active memory, forward mode", `
void ext_scale(double *x, int n);
double __enzyme_fwddiff(void *, ...);
double f(double *x) { ext_scale(x, 3); return x[0] * x[1]; }
int main(void) { double x[3] = {1, 2, 3}, dx[3] = {1, 0, 0}; return (int)__enzyme_fwddiff((void *)f, x, dx); }
`, "cannot differentiate 'f': no derivative for the call to 'ext_scale', which takes pointers"},
		{"unknown function pointer", `
double __enzyme_autodiff(void *, ...);
double (*table[4])(double);
int main(int argc, char **argv) { (void)argv; return (int)__enzyme_autodiff((void *)table[argc], 1.0); }
`, "cannot differentiate the __enzyme_autodiff call in 'main': the function to differentiate (the first argument) is a function pointer read from memory at run time"},
		{"too few arguments", `
double __enzyme_autodiff(void *, ...);
double f(double x, double y) { return x * y; }
int main(void) { return (int)__enzyme_autodiff((void *)f, 1.0); }
`, "too few arguments for 'f'"},
		{"width in reverse mode", `
extern int enzyme_width;
double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }
int main(void) { return (int)__enzyme_autodiff((void *)f, enzyme_width, 2, 1.0); }
`, "enzyme_width (batch mode) is supported by __enzyme_fwddiff only"},
		{"width not constant", `
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(int argc, char **argv) { (void)argv; return (int)__enzyme_fwddiff((void *)f, enzyme_width, argc, 1.0, 1.0); }
`, "enzyme_width must be followed by a constant width"},
		{"batch without enough tangents", `
extern int enzyme_width;
typedef struct { double a, b, c; } D3;
D3 __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(void) { return (int)__enzyme_fwddiff((void *)f, enzyme_width, 3, 1.0, 1.0, 2.0).a; }
`, "parameter 1 of 'f' is duplicated but has 2 of its 3 shadow arguments"},
		{"batch result too small", `
extern int enzyme_width;
typedef struct { double a; double b; double c; } D3;
D3 __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(void) { return (int)__enzyme_fwddiff((void *)f, enzyme_width, 4, 1.0, 1.0, 2.0, 3.0, 4.0).a; }
`, "the returned struct has 3 fields for 4 derivatives"},
		{"unsupported entry point", `
double __enzyme_fwdsplit(void *, ...);
double f(double x) { return x * x; }
int main(void) { return (int)__enzyme_fwdsplit((void *)f, 1.0, 0.0); }
`, "cannot differentiate the __enzyme_fwdsplit call in 'main': __enzyme_fwdsplit (split forward mode) is not supported by gozyme"},
		{"nested roots in a cycle", `
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x > 1 ? x : __enzyme_fwddiff((void *)f, x * x, 1.0); }
int main(void) { return (int)__enzyme_fwddiff((void *)f, 0.5, 1.0); }
`, "is differentiated before it is lowered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, o := range []string{"0", "2"} {
				_, err := tryBuildC(t, c.src, o)
				if err == nil {
					t.Fatalf("-O%s: differentiation succeeded, want an error containing %q", o, c.want)
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("-O%s: error %q does not contain %q", o, err, c.want)
				}
				if !strings.Contains(err.Error(), "prog.c:") {
					t.Errorf("-O%s: error %q names no source location", o, err)
				}
				// Errors inside the differentiated code name the call they
				// are for; none shows LLVM IR (GOZYME_VERBOSE=1 does).
				if strings.HasPrefix(c.want, "cannot differentiate 'f'") && !strings.Contains(err.Error(), ": note: in the derivative for the __enzyme_") {
					t.Errorf("-O%s: error %q does not name the entry-point call", o, err)
				}
				if strings.Contains(err.Error(), " = ") || strings.Contains(err.Error(), "LLVM IR") {
					t.Errorf("-O%s: error %q shows LLVM IR", o, err)
				}
			}
		})
	}
}

func TestCallABICXX(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "call_abi.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}
