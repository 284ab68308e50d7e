package ad

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// A triangular loop nest that overwrites x: the inner loop's loaded values
// and its entry counter (read by the inner reverse loop, which stores into
// the shadow of x) are cached per iteration.
const triangleInPlaceIR = `
define double @tri(double* %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %t = phi double [ %s, %outer ], [ %t.next, %inner ]
  %p = getelementptr inbounds double, double* %x, i64 %j
  %v = load double, double* %p, align 8
  %sq = fmul double %v, %v
  store double %sq, double* %p, align 8
  %t.next = fadd double %t, %sq
  %j.next = add nuw nsw i64 %j, 1
  %c = icmp ule i64 %j.next, %i
  br i1 %c, label %inner, label %outer.latch
outer.latch:
  %s.inner = phi double [ %t.next, %inner ]
  %i.next = add nuw nsw i64 %i, 1
  %d = icmp ult i64 %i.next, %n
  br i1 %d, label %outer, label %exit
exit:
  ret double %s.inner
}
`

// TestCacheAliasScope checks that the loads and stores of loop buffer
// elements carry the gradient's cache scope and every other memory access
// its !noalias, and that LLVM accepts the module and hoists the inner
// reverse loop's read of the cached entry counter out of that loop.
func TestCacheAliasScope(t *testing.T) {
	t.Parallel()
	m := parseIR(t, triangleInPlaceIR)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	r, err := newReverseGen(d, f, []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_tri")
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.generate()
	if err != nil {
		t.Fatal(err)
	}
	scoped, noalias := 0, 0
	for _, b := range g.Blocks {
		for _, inst := range b.Insts {
			var md ir.Metadata
			switch x := inst.(type) {
			case *ir.InstLoad:
				md = x.Metadata
			case *ir.InstStore:
				md = x.Metadata
			default:
				continue
			}
			kinds := map[string]bool{}
			for _, a := range md {
				kinds[a.Name] = true
			}
			switch {
			case r.cacheAccess[inst] && kinds["alias.scope"] && !kinds["noalias"]:
				scoped++
			case !r.cacheAccess[inst] && kinds["noalias"] && !kinds["alias.scope"]:
				noalias++
			default:
				t.Errorf("%s: cache access %v, metadata %v", inst.LLString(), r.cacheAccess[inst], kinds)
			}
		}
	}
	if scoped == 0 || noalias == 0 {
		t.Fatalf("%d cache accesses scoped, %d other accesses noalias; want both", scoped, noalias)
	}
	g.Linkage = enum.LinkageNone // keep it through the optimizer
	if _, err := toolchains.Tool("opt"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ll, out := filepath.Join(dir, "grad.ll"), filepath.Join(dir, "opt.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if _, err := toolchains.Run(context.Background(), "opt", "-S", "-passes=default<O2>", ll, "-o", out); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "!alias.scope") {
		t.Errorf("the optimized gradient lost its cache scopes:\n%s", text)
	}
	// The inner reverse loop is one block branching to itself that stores
	// into the shadow of x; the entry counter it compares with is read
	// before it.
	loops := 0
	for _, blk := range strings.Split(string(text), "\n\n") {
		label := strings.SplitN(blk, ":", 2)[0]
		if !strings.Contains(blk, "label %"+label+",") && !strings.HasSuffix(strings.TrimSpace(blk), "label %"+label) {
			continue
		}
		if strings.Contains(blk, "store double") {
			loops++
			if strings.Contains(blk, "load i64") {
				t.Errorf("the inner reverse loop reloads a cached counter each iteration:\n%s", blk)
			}
		}
	}
	if loops == 0 {
		t.Errorf("no single-block reverse loop found in:\n%s", text)
	}
}
