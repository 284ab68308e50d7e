package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// A loop whose body multiplies by z = exp(x), computed before the loop, and
// counts with an integer: z is cached once (in fact reused: its definition
// dominates the return), only the running product is cached per iteration,
// and the integer induction variable gets no adjoint.
const loopInvariantIR = `
define double @f(double %x, i32 %n) {
entry:
  %z = call double @llvm.exp.f64(double %x)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %loop ]
  %p.next = fmul double %p, %z
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = fadd double %p.next, %x
  ret double %r
}
declare double @llvm.exp.f64(double)
`

func parseIR(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, err := irutil.ParseText("test.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoopInvariantNotCachedPerIteration(t *testing.T) {
	m := parseIR(t, loopInvariantIR)
	f := m.Funcs[0]
	d := &differ{m: m, inactive: map[*ir.Func]bool{}, grads: map[string]*ir.Func{}, splits: map[string]*splitGrad{}, prep: map[*ir.Func]*ir.Func{}}
	r, err := newReverseGen(d, f, []Activity{Out, Const}, true, false, false, "grad_f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.generate(); err != nil {
		t.Fatal(err)
	}
	// Activity: the integer induction variable and compare carry nothing.
	for _, name := range []string{"i", "i.next", "c"} {
		if v := findValue(f, name); r.act.active(v) {
			t.Errorf("%%%s is active", name)
		}
	}
	for _, name := range []string{"z", "p", "p.next", "r"} {
		if v := findValue(f, name); !r.act.active(v) {
			t.Errorf("%%%s is not active", name)
		}
	}
	l := r.cfg.Loops[0]
	var cached []string
	for _, b := range r.loops[l].bufs {
		cached = append(cached, b.elem.String())
	}
	// Per iteration: the product %p (a double) and nothing else.
	if len(cached) != 1 || cached[0] != "double" {
		t.Errorf("per-iteration caches: %v, want exactly one double (%%p)", cached)
	}
	// %z is read straight from the forward sweep, never stored in a cache.
	fz := r.vmap[findValue(f, "z")]
	for _, blk := range r.g.Blocks {
		for _, inst := range blk.Insts {
			if st, ok := inst.(*ir.InstStore); ok && st.Src == fz {
				t.Errorf("exp(x) is stored to a cache: %s", st.LLString())
			}
		}
	}
	if err := irutil.Renumber(r.g); err != nil {
		t.Fatal(err)
	}
	if text := r.g.LLString(); !strings.Contains(text, "realloc") {
		t.Errorf("no growable buffer in:\n%s", text)
	}
}

func findValue(f *ir.Func, name string) value.Value {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok && v.Ident() == "%"+name {
				return v
			}
		}
	}
	panic("no value %" + name)
}
