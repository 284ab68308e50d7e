package irutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Code whose calls through pointers and definitions have every shape the
// signature reader meets: virtual calls, callbacks with struct, vector and
// function-pointer parameters and results, variadic pointers, invokes.
const callSigSource = `
#include <cstdarg>
#include <cstdio>
#include <functional>
struct Pair { double a, b; };
typedef double v2 __attribute__((vector_size(16)));
struct Base { virtual double f(double) = 0; virtual Pair g(Pair, int) = 0; virtual ~Base() {} };
struct D : Base {
  double k = 2;
  double f(double x) override { return k * x; }
  Pair g(Pair p, int n) override { return {p.a * n, p.b}; }
};
typedef double (*unary)(double);
typedef unary (*picker)(int);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static unary pick(int i) { return i ? sq : cube; }
static int sum(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
static v2 twice(v2 v, const char *s) { return v + v; }
static void each(void (*cb)(Pair *, unary), Pair *p, unary u) { cb(p, u); }
static void apply(Pair *p, unary u) { p->a = u(p->a); }
volatile picker vp = pick;
int (*volatile vs)(int, ...) = sum;
v2 (*volatile vt)(v2, const char *) = twice;
int main(int argc, char **argv) {
  Base *b = new D;
  Pair p = b->g({1, 2}, argc);
  double r = b->f(p.a) + vp(argc)(3.0);
  v2 v = {1, 2};
  v = vt(v, "x");
  each(apply, &p, vp(0));
  std::function<double(double)> fn = [&](double x) { return x + r; };
  try { r += fn(v[0]); } catch (...) { r = 0; }
  delete b;
  return (int)r + vs(3, 1, 2, argc) + (int)p.a;
}
`

// funcSig writes a function type the way DefineSig and IndirectCallSig do.
func funcSig(ft *types.FuncType) string {
	var ps []string
	for _, p := range ft.Params {
		ps = append(ps, p.LLString())
	}
	if ft.Variadic {
		ps = append(ps, "...")
	}
	return formatSig(ft.RetType.LLString(), ps)
}

// The signatures read from the text are the types llir parses, on code
// clang writes at -O0 and -O2.
func TestCallSigMatchesParse(t *testing.T) {
	t.Parallel()
	clang, err := exec.LookPath("clang++-14")
	if err != nil {
		t.Skip("clang++-14 not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "sig.cpp")
	if err := os.WriteFile(src, []byte(callSigSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"-O0", "-O2"} {
		out, err := exec.Command(clang, level, "-S", "-emit-llvm", "-o", "-", src).Output()
		if err != nil {
			t.Fatalf("%s: %v", level, err)
		}
		text := string(out)
		m, err := ParseText("sig.ll", out)
		if err != nil {
			t.Fatal(err)
		}
		defs := map[string]*ir.Func{}
		var calls []*types.FuncType
		for _, f := range m.Funcs {
			defs[f.Name()] = f
			for _, b := range f.Blocks {
				for _, inst := range b.Insts {
					if c, ok := inst.(*ir.InstCall); ok && indirectCallee(c.Callee) {
						calls = append(calls, c.Sig())
					}
				}
				if c, ok := b.Term.(*ir.TermInvoke); ok && indirectCallee(c.Invokee) {
					calls = append(calls, c.Sig())
				}
			}
		}
		var read []string
		ndefs := 0
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "define ") {
				ndefs++
				name := definedName(l)
				sig, ok := DefineSig(l)
				f := defs[strings.Trim(name[1:], `"`)]
				if !ok || f == nil || sig != funcSig(f.Sig) {
					t.Errorf("%s: %s: read %q (ok %v), parsed %v", level, name, sig, ok, f != nil && ok)
				}
			}
			if IndirectCall.MatchString(l) {
				sig, ok := IndirectCallSig(l)
				if !ok {
					t.Errorf("%s: not read: %s", level, l)
				}
				read = append(read, sig)
			}
		}
		if len(read) != len(calls) || len(calls) < 4 || ndefs < 4 {
			t.Fatalf("%s: %d indirect calls read, %d parsed, %d definitions", level, len(read), len(calls), ndefs)
		}
		for i, ft := range calls {
			if read[i] != funcSig(ft) {
				t.Errorf("%s: call %d: read %q, parsed %q", level, i, read[i], funcSig(ft))
			}
		}
	}
}

// indirectCallee reports a callee that is a local value (a pointer the
// code computes), as IndirectCall matches it.
func indirectCallee(v value.Value) bool {
	switch v.(type) {
	case constant.Constant, *ir.InlineAsm:
		return false
	}
	return true
}
