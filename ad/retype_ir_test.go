package ad

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// retypeIR is a module whose AD region moves doubles as integers: through
// an integer parameter stored with an integer store (subdoublestore.c), a
// load i64 of a double, sign-bit masks, a phi and a select of the bits, an
// integer store, and a <2 x i64> copy of two doubles.
const retypeIR = `
define i64* @substore(i64 %flt, i64 %integral) {
  %m = call i8* @malloc(i64 16)
  %data = bitcast i8* %m to i64*
  store i64 %flt, i64* %data, align 8
  %p1 = getelementptr inbounds i64, i64* %data, i64 1
  store i64 %integral, i64* %p1, align 8
  ret i64* %data
}
define double @moves(double %x, double* %p, double* %q, i1 %c) {
entry:
  %bits = bitcast double %x to i64
  %data = call i64* @substore(i64 %bits, i64 3)
  %pi = bitcast double* %p to i64*
  %qi = bitcast double* %q to i64*
  %a = load i64, i64* %pi
  br i1 %c, label %l, label %r
l:
  %n = xor i64 %a, -9223372036854775808
  br label %j
r:
  %m = and i64 %a, 9223372036854775807
  br label %j
j:
  %ph = phi i64 [ %n, %l ], [ %m, %r ]
  %b = load i64, i64* %qi
  %s = select i1 %c, i64 %ph, i64 %b
  store i64 %s, i64* %qi
  %pv = bitcast double* %p to <2 x i64>*
  %qv = bitcast double* %q to <2 x i64>*
  %v = load <2 x i64>, <2 x i64>* %pv
  store <2 x i64> %v, <2 x i64>* %qv
  %d = load double, double* %q
  %q8 = getelementptr double, double* %q, i64 1
  %d8 = load double, double* %q8
  %back = bitcast i64* %data to double*
  %e = load double, double* %back
  %r2 = fmul double %d, %e
  %r3 = fadd double %r2, %d8
  ret double %r3
}
define double @root(double %x, double* %p, double* %q) {
  %r = call double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double, double*, double*, i1)* @moves to i8*), double %x, double* %p, double* %q, i1 true)
  ret double %r
}
declare i8* @malloc(i64)
declare double @__enzyme_autodiff(i8*, ...)
`

// The rewrite itself: what the prepared copies look like, and that they
// (and the retyped helper) are valid IR.
func TestRetypeRewriteIR(t *testing.T) {
	t.Parallel()
	m, err := irutil.ParseText("retype.ll", []byte(retypeIR))
	if err != nil {
		t.Fatal(err)
	}
	roots, err := findRoots(m)
	if err != nil {
		t.Fatal(err)
	}
	d := newDiffer(m, Options{})
	if err := d.retypeRegion(roots); err != nil {
		t.Fatal(err)
	}
	var moves *ir.Func
	for _, f := range m.Funcs {
		if f.Name() == "moves" {
			moves = f
		}
	}
	prep := d.prep[moves]
	if prep == nil || prep == moves {
		t.Fatal("moves has no prepared copy")
	}
	text := prep.LLString()
	for _, want := range []string{
		"call i64* @substore.retyped(double %x, i64 3)",
		"load double, double*", "fneg double", "call double @llvm.fabs.f64(double",
		"phi double", "select i1 %c, double", "store double", "load <2 x double>", "store <2 x double>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("prepared copy lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"load i64", "store i64", "bitcast double %x to i64"} {
		if strings.Contains(text, gone) {
			t.Errorf("prepared copy still has %q:\n%s", gone, text)
		}
	}
	// The program's own function is unchanged.
	if !strings.Contains(moves.LLString(), "load i64, i64* %pi") {
		t.Errorf("the original was changed:\n%s", moves.LLString())
	}
	// Valid IR: the module with the copy under another name.
	prep.SetName("moves.prepared")
	m.Funcs = append(m.Funcs, prep)
	ll := filepath.Join(t.TempDir(), "retyped.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(ll); !strings.Contains(string(data), "define internal i64* @substore.retyped(double") {
		t.Errorf("no retyped helper in:\n%s", data)
	}
	if _, err := toolchains.Tool("opt"); err != nil {
		t.Skip(err)
	}
	if _, err := toolchains.Run(context.Background(), "opt", "-verify", "-disable-output", ll); err != nil {
		t.Fatalf("opt -verify: %v", err)
	}
}

// The differentiated module, with the helpers retyped for the AD region
// and compiled with -g, passes the verifier, debug info included (a
// retyped copy must not share its original's DISubprogram).
func TestRetypedModuleVerifies(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "retyped_module_verifies.c")
	if _, err := toolchains.Tool("opt"); err != nil {
		t.Skip(err)
	}
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			dir := t.TempDir()
			m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, o), o)
			if _, err := Differentiate(m, Options{}); err != nil {
				t.Fatal(err)
			}
			ll := filepath.Join(dir, "ad.ll")
			if err := irutil.WriteText(m, ll); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(ll); !strings.Contains(string(data), ".retyped(double") {
				t.Fatal("no retyped helper")
			}
			// Broken debug info is a warning (and the debug info is
			// dropped): any output is a failure.
			opt, _ := toolchains.Tool("opt")
			out, err := exec.Command(opt, "-verify", "-disable-output", ll).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Fatalf("opt -verify: %v\n%s", err, out)
			}
		})
	}
}
