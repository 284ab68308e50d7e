package ad

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

const cxxPrelude = `
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <array>
#include <algorithm>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
static int failures;
static void check(const char *what, double got, double want, double tol = 1e-6) {
	double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
	if (!(err <= tol)) { std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
}
template <class F> static void fdcheck(const char *name, F f, double *x, int n, const double *grad) {
	for (int i = 0; i < n; i++) {
		double save = x[i], h = 1e-6 * std::fmax(1, std::fabs(save));
		x[i] = save + h; double fp = f(x, n);
		x[i] = save - h; double fm = f(x, n);
		x[i] = save;
		char what[64]; std::snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, grad[i], (fp - fm) / (2 * h));
	}
}
`

// cxxChain is a C++ energy over std::vector, differentiated in reverse
// (TestCXX) and forward mode (TestForwardCXX).
func cxxChain(t *testing.T) string {
	t.Helper()
	return testdataC(t, "cxx_chain.cc")
}

func TestCXX(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + `
` + cxxChain(t) + `
/* Classes, templates, std::array and a lambda. */
template <class T, size_t N> struct Poly {
	std::array<T, N> c;
	T operator()(T x) const { T s = 0; for (size_t i = N; i-- > 0;) s = s * x + c[i]; return s; }
};
__attribute__((noinline)) double fit(double *x, int n) {
	Poly<double, 3> p{{x[0], x[1], x[2]}};
	auto sq = [](double v) { return v * v; };
	double s = 0;
	for (int i = 3; i < n; i++) s += sq(p(0.1 * i) - x[i]);
	std::array<double, 4> a{};
	for (int i = 0; i < 4; i++) a[i] = std::sin(x[i]);
	return s + *std::max_element(a.begin(), a.end());
}

int main() {
	const int N = 7;
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.31 * i - 0.02 * i * i;
	{
		double dx[N] = {0}, xc[N];
		std::memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)chain, enzyme_dup, xc, dx, enzyme_const, N);
		fdcheck("chain", chain, x, N, dx);
	}
	{
		double dx[N] = {0}, xc[N];
		std::memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)fit, enzyme_dup, xc, dx, enzyme_const, N);
		fdcheck("fit", fit, x, N, dx);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildCXX(t, src, "2")) })
}

// TestInvokedEntryPointRun: a C++ caller with a std::vector in scope
// invokes __enzyme_autodiff (an exception would have to destroy the
// vector), one call's result merged by a phi, one returning a struct
// (testdata/invoked_entry_point.cc): at every level the call is
// differentiated, not left an invoke of the undefined __enzyme_autodiff
// (which fails the link from -O1 on).
func TestInvokedEntryPointRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "invoked_entry_point.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			if out := run(t, buildCXX(t, src, o)); !strings.Contains(out, "ok 18.75") {
				t.Errorf("-O%s: printed %s", o, out)
			}
		})
	}
}

// invokedPadIR invokes __enzyme_autodiff twice; the landing pad, reached
// only from those invokes, merges which one threw in a phi.
const invokedPadIR = `
declare double @__enzyme_autodiff(i8*, ...)
declare i32 @__gxx_personality_v0(...)
define double @sq(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @caller(double %x) personality i8* bitcast (i32 (...)* @__gxx_personality_v0 to i8*) {
entry:
  %a = invoke double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @sq to i8*), double %x)
          to label %cont unwind label %lpad
cont:
  %b = invoke double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @sq to i8*), double %a)
          to label %done unwind label %lpad
done:
  ret double %b
lpad:
  %k = phi i32 [ 1, %entry ], [ 2, %cont ]
  %lp = landingpad { i8*, i32 } cleanup
  resume { i8*, i32 } %lp
}
`

// TestInvokedEntryPointPad: invokes of the entry point become invokes of
// the derivatives to the same landing pad (an exception thrown through a
// derivative reaches the caller's cleanup, as the primal's would), its
// phi taking from each the value it took from the entry point's invoke,
// and the module passes LLVM's verifier.
func TestInvokedEntryPointPad(t *testing.T) {
	t.Parallel()
	m := parseIR(t, invokedPadIR)
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if f.Name() != "caller" {
			continue
		}
		invokes := map[*ir.Block]bool{}
		for _, b := range f.Blocks {
			inv, ok := b.Term.(*ir.TermInvoke)
			if !ok {
				continue
			}
			callee, _ := irutil.StripCasts(inv.Invokee).(*ir.Func)
			if callee == nil || !strings.HasPrefix(callee.Name(), "__gozyme_grad_") {
				t.Errorf("the caller invokes %v, not a derivative", inv.Invokee.Ident())
			}
			invokes[b] = true
		}
		if len(invokes) != 2 {
			t.Errorf("the caller has %d invokes, want 2 (one per derivative)", len(invokes))
		}
		for _, b := range f.Blocks {
			if b.Name() != "lpad" {
				continue
			}
			phi := b.Insts[0].(*ir.InstPhi)
			var got []string
			for _, in := range phi.Incs {
				if !invokes[in.Pred.(*ir.Block)] {
					t.Errorf("the pad's phi takes a value from %s, which invokes nothing", in.Pred.Ident())
				}
				got = append(got, in.X.Ident())
			}
			if strings.Join(got, ",") != "1,2" {
				t.Errorf("the pad's phi takes %v, want 1,2", got)
			}
		}
	}
	ll := filepath.Join(t.TempDir(), "ad.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
		t.Fatalf("the module fails LLVM's verifier: %v\n%s", err, out)
	}
}
