package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
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
	t.Parallel()
	m := parseIR(t, loopInvariantIR)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	r, err := newReverseGen(d, f, []activity.Activity{activity.Out, activity.Const}, true, false, false, "grad_f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.generate(); err != nil {
		t.Fatal(err)
	}
	// Activity: the integer induction variable and compare carry nothing.
	for _, name := range []string{"i", "i.next", "c"} {
		if v := findValue(f, name); r.act.Active(v) {
			t.Errorf("%%%s is active", name)
		}
	}
	for _, name := range []string{"z", "p", "p.next", "r"} {
		if v := findValue(f, name); !r.act.Active(v) {
			t.Errorf("%%%s is not active", name)
		}
	}
	l := r.cfg.Loops[0]
	var cached []string
	for _, b := range requestedFields(r.loops[l]) {
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

// In a loop that only reads memory, nothing is cached per iteration: the
// index is recomputed from the iteration counter and x[i] is loaded again.
// Once the loop also writes x, the loaded values must be cached.
const readOnlyLoopIR = `
define double @sumsq(double* %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p, align 8
  %sq = fmul double %v, %v
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}

define double @square_in_place(double* %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p, align 8
  %sq = fmul double %v, %v
  store double %sq, double* %p, align 8
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}
`

func loopCaches(t *testing.T, m *ir.Module, f *ir.Func, acts []activity.Activity) []string {
	t.Helper()
	d := newDiffer(m, Options{})
	r, err := newReverseGen(d, f, acts, true, false, false, "grad_"+f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.generate(); err != nil {
		t.Fatal(err)
	}
	var cached []string
	for _, b := range requestedFields(r.loops[r.cfg.Loops[0]]) {
		cached = append(cached, b.elem.String())
	}
	return cached
}

func TestRecomputeInsteadOfCache(t *testing.T) {
	t.Parallel()
	m := parseIR(t, readOnlyLoopIR)
	if c := loopCaches(t, m, m.Funcs[0], []activity.Activity{activity.Dup, activity.Const}); len(c) != 0 {
		t.Errorf("read-only loop caches %v per iteration, want nothing", c)
	}
	if c := loopCaches(t, m, m.Funcs[1], []activity.Activity{activity.Dup, activity.Const}); len(c) != 1 || c[0] != "double" {
		t.Errorf("in-place loop caches %v per iteration, want exactly the loaded double", c)
	}
}
