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
