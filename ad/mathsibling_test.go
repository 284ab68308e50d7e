package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// TestMathSiblings: the reverse of sin(x) reads the primal's cos(x) of the
// same block, and the reverse of cos(x) its sin(x) (testdata/
// math_siblings.c: the gradient of both calls each once, as the primal
// does); where the primal's call is of another angle or in another block,
// the reverse calls the function itself. Gradients against central
// differences at every level.
func TestMathSiblings(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "math_siblings.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	count := func(f *ir.Func, name string) int {
		n := 0
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && (irfacts.CalleeName(c) == name || strings.HasPrefix(irfacts.CalleeName(c), "llvm."+name+".")) {
					n++
				}
			}
		}
		return n
	}
	for _, c := range []struct {
		root     string
		sin, cos int
	}{
		{"both", 1, 1},        // the primal's own
		{"other_angle", 2, 2}, // and cos(t), sin(t + p[2]) for the reverses
		{"split", 2, 2},       // and cos(t), sin(t) in each other's block's reverse
	} {
		var g *ir.Func
		for _, f := range m.Funcs {
			if f.Name() == "__gozyme_grad_"+c.root+"_d" {
				g = f
			}
		}
		if g == nil {
			t.Fatalf("no gradient of %s", c.root)
		}
		if s, k := count(g, "sin"), count(g, "cos"); s != c.sin || k != c.cos {
			t.Errorf("the gradient of %s calls sin %d and cos %d times, want %d and %d", c.root, s, k, c.sin, c.cos)
		}
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestMathSiblingFirstOfBlock: among a block's calls, the sibling is the
// first of the asked function on exactly the same operands and type: not
// a call of another angle, of another type or of another function, and
// never the differentiated call itself; sinf's sibling is cosf (base
// name "cos"), a defined function named cos is none.
func TestMathSiblingFirstOfBlock(t *testing.T) {
	t.Parallel()
	m := parseIR(t, `
declare double @sin(double)
declare double @cos(double)
declare float @sinf(float)
declare float @cosf(float)
declare double @llvm.cos.f64(double)
define double @mycos(double %x) {
  ret double %x
}
define double @f(double %a, double %b, float %c) {
entry:
  %s = call double @sin(double %a)
  %cb = call double @cos(double %b)
  %own = call double @mycos(double %a)
  %c1 = call double @llvm.cos.f64(double %a)
  %c2 = call double @cos(double %a)
  %sf = call float @sinf(float %c)
  %cf = call float @cosf(float %c)
  %t = fadd double %c1, %c2
  ret double %t
}
`)
	var f *ir.Func
	for _, g := range m.Funcs {
		if g.Name() == "f" {
			f = g
		}
	}
	blk := f.Blocks[0]
	call := func(i int) *ir.InstCall { return blk.Insts[i].(*ir.InstCall) }
	r := &reverseGen{}
	for _, c := range []struct {
		of   int
		name string
		want int // instruction index, -1: none
	}{
		{0, "cos", 3},  // sin(a): llvm.cos(a), the first cos of a (not cos(b), not mycos)
		{4, "sin", 0},  // cos(a): sin(a)
		{1, "sin", -1}, // cos(b): none
		{5, "cos", 6},  // sinf(c): cosf(c)
		{6, "sin", 5},  // cosf(c): sinf(c)
		{3, "cos", 4},  // llvm.cos(a) asking for cos: the other call, not itself
		{0, "tan", -1},
	} {
		got := r.mathSibling(blk, call(c.of), c.name)
		var want *ir.InstCall
		if c.want >= 0 {
			want = call(c.want)
		}
		if got != want {
			t.Errorf("sibling %s of %s: got %v, want %v", c.name, call(c.of).LocalIdent.Ident(), got, want)
		}
	}
}
