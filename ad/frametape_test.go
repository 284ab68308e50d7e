package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
)

// TestFramedTapes: the pair of a callee called outside loops by a combined
// gradient takes its tape from the gradient's frame (testdata/
// framed_tapes.c): once, twice in sequence, under a condition (taken or
// not), with the zero-angle branch; in a loop its tapes are fields of the
// loop's iteration records; from a callee's pair and through recursion
// outside loops the pairs keep their tapes on the tape stack. Gradients against central differences at every
// level, leak-checked.
func TestFramedTapes(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "framed_tapes.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	byName := map[string]*ir.Func{}
	for _, f := range m.Funcs {
		byName[f.Name()] = f
	}
	callees := func(f *ir.Func) []string {
		var out []string
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && strings.HasPrefix(irfacts.CalleeName(c), "__gozyme_aug_") {
					out = append(out, strings.TrimPrefix(irfacts.CalleeName(c), "__gozyme_aug_"))
				}
			}
		}
		return out
	}
	for _, c := range []struct {
		root   string
		framed bool // every pair it calls is framed, else none
	}{
		{"once", true}, {"twice", true}, {"guarded", true}, {"looped", true},
	} {
		g := byName["__gozyme_grad_"+c.root+"_d"]
		if g == nil {
			t.Fatalf("no gradient of %s", c.root)
		}
		cs := callees(g)
		if len(cs) == 0 {
			t.Errorf("the gradient of %s calls no pair", c.root)
		}
		for _, name := range cs {
			if strings.HasSuffix(name, "_f") != c.framed {
				t.Errorf("the gradient of %s calls %s, want framed %v", c.root, name, c.framed)
			}
		}
	}
	// Inside the pairs of nested and rec, project's and rec's own pairs
	// are not framed.
	for name, f := range byName {
		if !strings.HasPrefix(name, "__gozyme_aug_") {
			continue
		}
		for _, callee := range callees(f) {
			if strings.HasSuffix(callee, "_f") {
				t.Errorf("%s calls the framed pair %s", name, callee)
			}
		}
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestLoopedRecursionTapes: recursive functions calling themselves inside
// loops keep each call's tape in a field of the caller's iteration record
// (testdata/looped_recursion.c): det by minors at sizes 1 to 5, a loop
// whose record buffer grows and moves after tapes were written into it
// with a second, conditional call per iteration, and a call in the inner
// loop of a nest. Every pair's recursive call is framed; gradients against
// central differences at every level, leak-checked.
func TestLoopedRecursionTapes(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "det_of_minor.c") + testdataC(t, "looped_recursion.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		name := f.Name()
		if !strings.HasPrefix(name, "__gozyme_aug_") {
			continue
		}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok || !strings.HasPrefix(irfacts.CalleeName(c), "__gozyme_aug_") {
					continue
				}
				for _, fn := range []string{"det_of_minor", "walk", "grid"} {
					if strings.Contains(name, fn) && strings.Contains(irfacts.CalleeName(c), fn) {
						seen[fn] = true
						if !strings.HasSuffix(irfacts.CalleeName(c), "_f") {
							t.Errorf("%s calls %s, not framed", name, irfacts.CalleeName(c))
						}
					}
				}
			}
		}
	}
	for _, fn := range []string{"det_of_minor", "walk", "grid"} {
		if !seen[fn] {
			t.Errorf("no pair of %s calls itself", fn)
		}
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestFramedTapesSplitMode: split mode keeps the callees' tapes (fields of
// loop records through recursion) from the augmented forward to the
// reverse: det by minors at sizes 1 to 5 with two tapes alive, reversed in
// the opposite order; calls in a loop left by a break, recursion of
// varying depth with an early return, a zero-trip loop, the tape in the
// caller's buffer (testdata/framed_split_mode.c). Against central
// differences at every level, leak-checked.
func TestFramedTapesSplitMode(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "det_of_minor.c") + testdataC(t, "framed_split_mode.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestFramedCallShapes: calls in loops through function pointers, in loops
// with several exits, in loops that run no iteration, and recursion
// (varying depth, early returns, mutual) in reverse, forward and batch
// forward mode (testdata/framed_call_shapes.c), against central
// differences at every level.
func TestFramedCallShapes(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "framed_call_shapes.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestFramedTapesSecondOrder: forward mode over a gradient whose callees'
// tapes are in its frame and in its loops' records
// (testdata/framed_second_order.c): Hessian-vector products against
// central differences of the gradient at every level.
func TestFramedTapesSecondOrder(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "framed_second_order.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
