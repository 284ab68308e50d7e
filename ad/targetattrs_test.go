package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
)

// funcAttrValue is f's string attribute key, looked for in f's attributes
// and their groups ("" when unset).
func funcAttrValue(f *ir.Func, key string) string {
	var find func(attrs []ir.FuncAttribute) string
	find = func(attrs []ir.FuncAttribute) string {
		for _, a := range attrs {
			switch x := a.(type) {
			case ir.AttrPair:
				if x.Key == key {
					return x.Value
				}
			case *ir.AttrGroupDef:
				if v := find(x.FuncAttrs); v != "" {
					return v
				}
			}
		}
		return ""
	}
	return find(f.FuncAttrs)
}

// TestDerivativesKeepTargetAttributes: each derivative is built for its
// primal's target (testdata/target_attrs.c): the gradient of objective and
// the pair of narrow as they are (the baseline), the pair of wide with
// AVX2 and FMA, as wide is; never a caller's features given to a callee
// built for less. The gradients, on both paths where the CPU has AVX2,
// agree with central differences.
func TestDerivativesKeepTargetAttributes(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "target_attrs.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		name := f.Name()
		if !strings.HasPrefix(name, "__gozyme_grad_") && !strings.HasPrefix(name, "__gozyme_aug_") && !strings.HasPrefix(name, "__gozyme_rev_") {
			continue
		}
		features := funcAttrValue(f, "target-features")
		if features == "" {
			t.Errorf("%s has no target features", name)
		}
		wide := strings.Contains(features, "+avx2") && strings.Contains(features, "+fma")
		switch {
		case strings.Contains(name, "wide"):
			seen["wide"] = true
			if !wide {
				t.Errorf("%s: target-features %q, want wide's +avx2,+fma", name, features)
			}
		case strings.Contains(name, "narrow"), strings.Contains(name, "objective"):
			seen[name[:strings.Index(name[2:], "_")+2]] = true
			if wide {
				t.Errorf("%s: target-features %q, want the baseline's", name, features)
			}
		}
	}
	if !seen["wide"] || len(seen) < 2 {
		t.Errorf("derivatives seen: %v, want those of objective, narrow and wide", seen)
	}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
