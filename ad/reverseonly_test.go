package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// TestReverseOnlyShadow: temporaries a function allocates outside its
// loops, always frees, and reaches only through float loads and stores,
// memsets and its frees have shadows the reverse sweep allocates at the
// reverse of their free (testdata/reverse_only.c): a split helper's
// scratch buffer, a buffer freed on an early return too, a calloc'd one
// cleared by a memset. A buffer of pointers, one handed to a helper and
// one allocated in a loop keep their forward shadows. Gradients against
// central differences at every level, under valgrind (no invalid access,
// no leak); at -O2 each function's allocations are (or are not)
// reverse-only as listed, combined and split, and the augmented forward of
// cell allocates no shadow.
func TestReverseOnlyShadow(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "reverse_only.c")
	runEveryLevelLeakChecked(t, src)
	m := preADModuleC(t, src, "2")
	for _, tc := range []struct {
		name      string
		acts      []activity.Activity
		retActive bool
		want      bool
	}{
		{"cell", []activity.Activity{activity.Const, activity.Dup, activity.Dup}, false, true},
		{"early", []activity.Activity{activity.Dup}, true, true},
		{"zeroed", []activity.Activity{activity.Dup}, true, true},
		{"ptrs", []activity.Activity{activity.Dup}, true, false},
		{"passed", []activity.Activity{activity.Dup}, true, false},
		{"looped", []activity.Activity{activity.Dup}, true, false},
	} {
		for _, split := range []bool{false, true} {
			r := reverseWith(t, m, tc.name, tc.acts, tc.retActive, split)
			n := 0
			for _, b := range r.f.Blocks {
				for _, inst := range b.Insts {
					if c, ok := inst.(*ir.InstCall); ok && irfacts.IsAllocation(c) {
						n++
						if got := r.reverseOnly(c); got != tc.want {
							t.Errorf("%s (split %v): allocation %s reverse-only %v, want %v", tc.name, split, c.Ident(), got, tc.want)
						}
					}
				}
			}
			if n == 0 {
				t.Errorf("%s: no allocation", tc.name)
			}
		}
	}
	m = preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	augs := 0
	for _, f := range m.Funcs {
		if !strings.HasPrefix(f.Name(), "__gozyme_aug_cell_") {
			continue
		}
		augs++
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok || !irfacts.IsMemSet(c) {
					continue
				}
				if a, ok := stripCasts(c.Args[0]).(*ir.InstCall); ok && irfacts.IsAllocation(a) {
					t.Errorf("%s allocates a zeroed shadow: %s", f.Name(), a.LLString())
				}
			}
		}
	}
	if augs == 0 {
		t.Error("no augmented forward of cell")
	}
}

// reverseWith generates the gradient of m's function name with the
// activities given (combined, or split) and returns its generator.
func reverseWith(t *testing.T, m *ir.Module, name string, acts []activity.Activity, retActive, split bool) *reverseGen {
	t.Helper()
	var f *ir.Func
	for _, g := range m.Funcs {
		if g.Name() == name {
			f = g
		}
	}
	if f == nil {
		t.Fatalf("no function %s", name)
	}
	d := newDiffer(m, Options{})
	pf, err := d.prepared(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, pf, acts, retActive, false, split, "revonly_"+name)
	})
	if err != nil {
		t.Fatal(err)
	}
	d.dropFunc(r.g)
	return r
}
