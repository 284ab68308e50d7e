package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
)

// TestToggleFlagInduction: flags flipped every iteration are rebuilt from
// the iteration counter (cacheplan.ToggleStart), from a constant or an input-derived
// start, in a nest; flags flipped on some iterations or by a value are
// not taken for toggles; gradients against central differences at every
// level. At -O2 alternating's gradient caches no i1.
func TestToggleFlagInduction(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "toggle_flag_induction.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "0 failures") {
				t.Fatal(out)
			}
		})
	}
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range m.Funcs {
		if !strings.HasPrefix(f.Name(), "__gozyme_grad_alternating") {
			continue
		}
		found = true
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if s, ok := inst.(*ir.InstStore); ok && s.Src.Type().LLString() == "i1" {
					t.Errorf("%s stores a flag: %s", f.Name(), s.LLString())
				}
			}
		}
	}
	if !found {
		t.Error("no gradient of alternating")
	}
}
