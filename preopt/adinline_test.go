package preopt

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// singleUseIR: a root passed to an Enzyme entry point calls functions of
// every kind singleUseInlines tells apart; @other, which AD does not
// reach, calls @outside.
const singleUseIR = `
declare void @__enzyme_autodiff(i8*, ...)
declare i32 @__gxx_personality_v0(...)

@reg = global i8* bitcast (void (double*)* @registered to i8*)

define linkonce_odr void @once(double* %p) {
  store double 1.0, double* %p
  call void @deep(double* %p)
  ret void
}
define linkonce_odr void @deep(double* %p) {
  ret void
}
define linkonce_odr void @invoked(double* %p) {
  ret void
}
define linkonce_odr void @twice(double* %p) {
  ret void
}
define linkonce_odr void @registered(double* %p) {
  ret void
}
define linkonce_odr void @_ZNSt6vectorIdSaIdEE4swapERS1_(double* %p) {
  ret void
}
define linkonce_odr void @marked(double* %p) #0 {
  ret void
}
define internal void @local(double* %p) {
  ret void
}
define linkonce_odr void @custom(double* %p) {
  ret void
}
define linkonce_odr double @mathlike(double %x) #1 {
  ret double %x
}
define linkonce_odr void @self(double* %p, i1 %c) {
entry:
  br i1 %c, label %again, label %done
again:
  call void @self(double* %p, i1 false)
  br label %done
done:
  ret void
}
define linkonce_odr void @outside(double* %p) {
  ret void
}

define double @root(double* %p) personality i32 (...)* @__gxx_personality_v0 {
entry:
  call void @once(double* %p)
  call void @twice(double* %p)
  call void @twice(double* %p)
  call void @registered(double* %p)
  call void @_ZNSt6vectorIdSaIdEE4swapERS1_(double* %p)
  call void @marked(double* %p)
  call void @local(double* %p)
  call void @custom(double* %p)
  %m = call double @mathlike(double 1.0)
  call void @self(double* %p, i1 true)
  invoke void @invoked(double* %p)
          to label %ok unwind label %lp
ok:
  ret double 0.0
lp:
  %x = landingpad { i8*, i32 } cleanup
  resume { i8*, i32 } %x
}

define void @other(double* %p) {
  call void @outside(double* %p)
  ret void
}

define void @caller(double* %p, double* %dp) {
  call void (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double*)* @root to i8*), double* %p, double* %dp)
  ret void
}

attributes #0 = { noinline }
attributes #1 = { "enzyme_math"="log1p" }
`

// TestSingleUseInlines: only the linkonce_odr functions whose one
// reference is a direct call or invoke in a function AD reaches are
// forced inline; not one called twice, referenced by a global, in
// namespace std, noinline, with an enzyme_* attribute, internal, named as a custom rule's, recursive,
// or called only from outside AD's reach.
func TestSingleUseInlines(t *testing.T) {
	m, err := irutil.ParseText("singleuse.ll", []byte(singleUseIR))
	if err != nil {
		t.Fatal(err)
	}
	got := singleUseInlines(m, singleUseIR, map[string]bool{"custom": true})
	want := []string{"deep", "invoked", "once"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("singleUseInlines = %v, want %v", got, want)
	}
	got2 := references(singleUseIR+"@\"twice\"\n", map[string]bool{"twice": true, "once": true, "root": true, "nowhere": true})
	want2 := map[string]int{"twice": 3, "once": 1, "root": 1, "nowhere": 0}
	if !reflect.DeepEqual(got2, want2) {
		t.Errorf("references = %v, want %v", got2, want2)
	}
}

// TestForcedNoInline reads the custom rules' noinline from opt arguments.
func TestForcedNoInline(t *testing.T) {
	got := forcedNoInline([]string{"-force-attribute=f:noinline", "-force-attribute=g:argmemonly", "-O2"})
	if !reflect.DeepEqual(got, map[string]bool{"f": true}) {
		t.Errorf("forcedNoInline = %v", got)
	}
}

// rk4Integrator is the mangled name of testdata/rk4.cpp's integrator.
const rk4Integrator = "_Z11runge_kuttaIZ8ode_lastIdET_PKS1_iiEUlPKdPdE_EvS1_S6_idi"

// TestSingleUseInlineGradient: testdata/rk4.cpp's generic integrator,
// which LLVM's inliner leaves a call, is inlined into the differentiated
// template by Optimize at -O2 and -O3, and the gradient through it agrees
// with central differences.
func TestSingleUseInlineGradient(t *testing.T) {
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	for _, level := range []string{"2", "3"} {
		t.Run("O"+level, func(t *testing.T) {
			dir := t.TempDir()
			bc := filepath.Join(dir, "rk4.bc")
			if _, err := toolchains.Run(ctx, "clang", "-c", "-emit-llvm", "-O"+level, "-fno-math-errno", "-ffp-contract=off",
				"-Xclang", "-disable-llvm-passes", filepath.Join("testdata", "rk4.cpp"), "-o", bc); err != nil {
				t.Fatal(err)
			}
			// Without the forced attribute, LLVM keeps the integrator a call.
			plain := filepath.Join(dir, "plain.ll")
			if _, err := toolchains.Run(ctx, "opt", "-passes="+light+",default<O"+level+">", "-S", bc, "-o", plain); err != nil {
				t.Fatal(err)
			}
			pm, err := irutil.LoadFile(ctx, plain)
			if err != nil {
				t.Fatal(err)
			}
			if !calls(pm, rk4Integrator) {
				t.Fatalf("LLVM's own pipeline inlined %s: the test no longer exercises singleUseInlines", rk4Integrator)
			}
			out := filepath.Join(dir, "opt.ll")
			if err := Optimize(ctx, bc, out, level, Options{}); err != nil {
				t.Fatal(err)
			}
			m, err := irutil.LoadFile(ctx, out)
			if err != nil {
				t.Fatal(err)
			}
			if calls(m, rk4Integrator) {
				t.Errorf("%s is still called after Optimize", rk4Integrator)
			}
			got := runDifferentiated(t, m, level)
			rel, err := strconv.ParseFloat(strings.TrimSpace(got), 64)
			if err != nil || rel > 1e-6 {
				t.Errorf("gradient: largest error against central differences %s, want <= 1e-6", got)
			}
		})
	}
}

// calls reports whether a function of m calls (or invokes) the function
// named name.
func calls(m *ir.Module, name string) bool {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok {
					if g, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok && g.Name() == name {
						return true
					}
				}
			}
			if inv, ok := b.Term.(*ir.TermInvoke); ok {
				if g, ok := irutil.StripCasts(inv.Invokee).(*ir.Func); ok && g.Name() == name {
					return true
				}
			}
		}
	}
	return false
}
