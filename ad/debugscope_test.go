package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// A program (built with -g, as buildC does) that defines its own realloc:
// the gradient's cache growth calls it, and it must not be inlined into
// the derivative (which has no debug scope: clang-14's DWARF writer
// crashed on the locations it brought along). The gradient matches
// central differences, through the user's realloc, at every level.
func TestDebugInfoCallees(t *testing.T) {
	t.Parallel()
	src := reallocCounter(t) + testdataC(t, "debug_info_callees.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if !strings.Contains(out, "reallocs") {
				t.Errorf("unexpected output %q", out)
			}
			t.Log(strings.TrimSpace(out))
		})
	}
}

// dbgUserIR is a user's function compiled without debug info that calls
// pick, a function of the C driver (compiled with -g).
const dbgUserIR = `
declare i32 @pick(i32)
define double @dbg_user(double* %x, i32 %n) {
entry:
  %k = call i32 @pick(i32 %n)
  %k64 = sext i32 %k to i64
  %p = getelementptr inbounds double, double* %x, i64 %k64
  %v = load double, double* %p, align 8
  %y = fmul double %v, %v
  %s = call double @llvm.sin.f64(double %y)
  ret double %s
}
declare double @llvm.sin.f64(double)
`

// dbgUserSrc defines pick (noinline: the pipeline before AD keeps the call)
// and checks dbg_user's gradient and forward-mode derivative.
var dbgUserSrc = irDriver("dbg_user") + `
__attribute__((noinline)) int pick(int n) { return n / 2; }
`

// TestDebugScopesUserCalls: only the derivatives' calls of pick (a
// function with debug info, called without a location) are marked
// noinline; dbg_user's own call, also without a location, is left as the
// user wrote it. The derivatives match central differences.
func TestDebugScopesUserCalls(t *testing.T) {
	t.Parallel()
	m := preAD(t, t.TempDir(), linkCWithIR(t, t.TempDir(), dbgUserSrc, dbgUserIR, "2"), "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	derived := 0
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok || irutil.StripCasts(c.Callee).Ident() != "@pick" {
					continue
				}
				noinline := irutil.HasFuncAttr(c.FuncAttrs, enum.FuncAttrNoInline)
				switch {
				case f.Name() == "dbg_user" && noinline:
					t.Errorf("the user's call of pick in dbg_user is marked noinline")
				case strings.HasPrefix(f.Name(), "__gozyme_"):
					derived++
					if !noinline {
						t.Errorf("the call of pick in %s is not marked noinline", f.Name())
					}
				}
			}
		}
	}
	if derived == 0 {
		t.Error("no derivative calls pick")
	}
	runIRWants(t, dbgUserSrc, dbgUserIR, optLevels, false, "ok dbg_user[5]", "ok forward")
}
