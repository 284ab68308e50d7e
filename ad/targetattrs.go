package ad

import "github.com/llir/llvm/ir"

// targetAttrKeys are the function attributes that choose the instructions
// code generation may use for a function (clang's -march and
// __attribute__((target(...))) as a full feature list, and the vector
// widths they imply). The CPU's name (target-cpu, tune-cpu) is left out:
// it adds only the CPU's scheduling and tuning, which made the GMM
// gradient slower on znver3 (bench/results/history.md).
var targetAttrKeys = map[string]bool{
	"target-features":        true,
	"min-legal-vector-width": true,
	"prefer-vector-width":    true,
}

// inheritTarget gives the derivative g of f f's instruction set. Without
// it g is compiled for the target's baseline (x86-64: SSE2, no FMA, no
// AVX) whatever -march the user's code was built with. g runs only where
// f would run (it executes f's own instructions, built for these
// features), so the features f may use, g may use too. Attributes that
// change arithmetic (fast-math and the like) are not copied: they are f's
// contract, not the derivative's.
func inheritTarget(g, f *ir.Func) {
	have := map[string]bool{}
	for _, a := range g.FuncAttrs {
		if p, ok := a.(ir.AttrPair); ok {
			have[p.Key] = true
		}
	}
	var add func(attrs []ir.FuncAttribute)
	add = func(attrs []ir.FuncAttribute) {
		for _, a := range attrs {
			switch x := a.(type) {
			case ir.AttrPair:
				if targetAttrKeys[x.Key] && !have[x.Key] {
					have[x.Key] = true
					g.FuncAttrs = append(g.FuncAttrs, x)
				}
			case *ir.AttrGroupDef:
				add(x.FuncAttrs)
			}
		}
	}
	add(f.FuncAttrs)
}

// IsTargetAttr reports whether key is a function attribute derivatives take
// from their primal (targetAttrKeys); the link's entry adapters take the
// same from their callers.
func IsTargetAttr(key string) bool { return targetAttrKeys[key] }
