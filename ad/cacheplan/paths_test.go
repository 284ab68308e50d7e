package cacheplan

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
)

// branchyLoop has an if inside the loop (then/else joining at latch) and
// two exits, from the header and from then, to different blocks.
const branchyLoop = `
define void @f(i64 %n, i1 %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %done
body:
  br i1 %a, label %then, label %else
then:
  br i1 %a, label %latch, label %out
else:
  br label %latch
latch:
  %i.next = add i64 %i, 1
  br label %loop
done:
  ret void
out:
  ret void
}
`

func blockNamed(p Primal, name string) *ir.Block {
	for _, b := range p.F.Blocks {
		if b.LocalName == name {
			return b
		}
	}
	return nil
}

// TestLoopPaths: exits and paths within one iteration of a loop.
func TestLoopPaths(t *testing.T) {
	t.Parallel()
	p, l := loopFunc(t, branchyLoop)
	b := func(name string) *ir.Block { return blockNamed(p, name) }
	if _, target := LoneExit(l); target != nil || OneExitTarget(l) {
		t.Errorf("two exit targets taken for one (%v)", target)
	}
	if outside, latch, ok := p.SimpleHeader(l.Header); !ok || outside != b("entry") || latch != b("latch") {
		t.Errorf("SimpleHeader = %v, %v, %v", outside, latch, ok)
	}
	for _, c := range []struct {
		from, to, avoid string
		want            bool
	}{
		{"body", "latch", "", true},
		{"body", "latch", "then", true}, // through else
		{"then", "else", "", false},     // only through the header: another iteration
		{"body", "out", "", true},
		{"else", "out", "", false},
	} {
		var avoid *ir.Block
		if c.avoid != "" {
			avoid = b(c.avoid)
		}
		if got := ReachesInIteration(l, b(c.from), b(c.to), avoid); got != c.want {
			t.Errorf("ReachesInIteration(%s, %s, avoiding %q) = %v", c.from, c.to, c.avoid, got)
		}
	}
	// The latch's predecessors through which paths from each side of
	// body's branch reach it.
	preds := []*ir.Block{b("then"), b("else")}
	if got := PredsThrough(b("latch"), b("body"), b("then"), preds); len(got) != 1 || got[0] != b("then") {
		t.Errorf("PredsThrough(then side) = %v", got)
	}
	if got := PredsThrough(b("latch"), b("body"), b("else"), preds); len(got) != 1 || got[0] != b("else") {
		t.Errorf("PredsThrough(else side) = %v", got)
	}
}

// TestAffineHeader: header phis affine in the iteration number: a
// counter, a flag flipped every iteration, and a phi lagging one
// iteration behind a counter (i beside i+1), but not one whose start is
// not the counter's one step back, nor a product.
func TestAffineHeader(t *testing.T) {
	t.Parallel()
	p, l := loopFunc(t, `
define void @f(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 5, %entry ], [ %i.next, %loop ]
  %flag = phi i1 [ true, %entry ], [ %flip, %loop ]
  %lag = phi i64 [ 2, %entry ], [ %i, %loop ]
  %off = phi i64 [ 4, %entry ], [ %i, %loop ]
  %sq = phi i64 [ 1, %entry ], [ %sq.next, %loop ]
  %i.next = add i64 %i, 3
  %flip = xor i1 %flag, true
  %sq.next = mul i64 %sq, 2
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}`)
	outside, latch, _ := p.SimpleHeader(l.Header)
	want := map[string]struct {
		start, step int64
		ok          bool
	}{"i": {5, 3, true}, "flag": {1, 1, true}, "lag": {2, 3, true}, "off": {0, 0, false}, "sq": {0, 0, false}}
	for _, inst := range l.Header.Insts {
		phi, isPhi := inst.(*ir.InstPhi)
		if !isPhi {
			continue
		}
		w := want[phi.LocalName]
		start, step, ok := AffineHeader(phi, outside, latch)
		if ok != w.ok || (ok && (start.(*constant.Int).X.Int64() != w.start || step != w.step)) {
			t.Errorf("AffineHeader(%%%s) = %v, %d, %v", phi.LocalName, start, step, ok)
		}
	}
}
