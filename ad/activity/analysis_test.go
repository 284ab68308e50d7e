package activity

import (
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// noCalls is an Oracle for functions without calls.
type noCalls struct{}

func (noCalls) Passes(*ir.InstCall) bool                        { return true }
func (noCalls) CopiesPointers(*ir.Func, *ir.InstCall) bool      { return false }
func (noCalls) Custom(*ir.Func) bool                            { return false }
func (noCalls) EntryPoint(string) bool                          { return false }
func (noCalls) ConstShadowed(constant.Constant) bool            { return false }
func (noCalls) CallSummary(*ir.Func, []Activity, bool) *Summary { return nil }
func (noCalls) RuleOutputs(*ir.InstCall) ([]value.Value, bool)  { return nil, false }

const scaleIR = `
define double @f(double %x, double* %p, double* %q, i64 %n) {
entry:
  %a = fmul double %x, %x
  %i = add i64 %n, 1
  %c = sitofp i64 %i to double
  %b = fadd double %a, %c
  %g = getelementptr double, double* %p, i64 %n
  store double %b, double* %g
  %r = load double, double* %q
  %u = fmul double %r, 2.0
  ret double %u
}
`

// TestAnalyze: x is varied and, stored through the Dup pointer p, useful;
// the integer path is not; q (Const) has no shadow, so what is read
// through it carries nothing.
func TestAnalyze(t *testing.T) {
	m, err := irutil.ParseText("test.ll", []byte(scaleIR))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	a := Analyze(f, []Activity{Out, Dup, Const, Const}, true, false, noCalls{})
	vals := map[string]value.Value{}
	for _, p := range f.Params {
		vals[p.Name()] = p
	}
	for _, inst := range f.Blocks[0].Insts {
		if v, ok := inst.(value.Named); ok {
			vals[v.Name()] = v
		}
	}
	for name, want := range map[string]bool{"x": true, "a": true, "b": true, "c": false, "r": false, "u": false} {
		if got := a.Active(vals[name]); got != want {
			t.Errorf("Active(%%%s) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"p": true, "g": true, "q": false} {
		if got := a.HasShadow(vals[name]); got != want {
			t.Errorf("HasShadow(%%%s) = %v, want %v", name, got, want)
		}
	}
	if len(a.Unmet) != 0 {
		t.Errorf("unmet needs %v, want none", a.Unmet)
	}
}
