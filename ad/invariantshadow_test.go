package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// TestInvariantShadowLoads: the shadow of a pointer load in a loop is
// cached once per call where nothing the loop's forward runs writes shadow
// memory (invariantshadow.go), and per iteration where a store, or a
// callee's, writes memory with a shadow (testdata/invariant_shadow.c):
// vdet's pair records no shadow data pointer per iteration; aliased's
// gradient does (it passes one shadow for two arguments, and the loop's
// callee writes it); advanced moves its data pointer in the loop.
// Gradients against central differences and analytic values at every
// level.
func TestInvariantShadowLoads(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "invariant_shadow.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		name := f.Name()
		for _, c := range []struct {
			prefix, fn   string
			perIteration bool
		}{
			{"__gozyme_aug_", "vdet_of_minor", false},
			{"__gozyme_grad_", "aliased", true},
		} {
			if !strings.HasPrefix(name, c.prefix+c.fn+"_") || strings.Contains(name, ".tape.") {
				continue
			}
			seen[c.fn] = true
			if got := recordsPointer(f); got != c.perIteration {
				t.Errorf("%s: a pointer field in a loop's records: %v, want %v", name, got, c.perIteration)
			}
		}
	}
	for _, fn := range []string{"vdet_of_minor", "aliased"} {
		if !seen[fn] {
			t.Errorf("no derivative of %s", fn)
		}
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// recordsPointer reports whether f stores a pointer into a field of an
// iteration record (a getelementptr into an unnamed struct buffer).
func recordsPointer(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			st, ok := inst.(*ir.InstStore)
			if !ok || !types.IsPointer(st.Src.Type()) {
				continue
			}
			g, ok := st.Dst.(*ir.InstGetElementPtr)
			if !ok {
				continue
			}
			if s, ok := g.ElemType.(*types.StructType); ok && s.TypeName == "" && len(g.Indices) == 2 {
				return true
			}
		}
	}
	return false
}
