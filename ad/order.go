package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// innerFirst orders roots so that a root whose caller is reachable from the
// function another root differentiates is lowered first: the outer root then
// differentiates the already generated derivative (forward-over-reverse
// Hessian-vector products, reverse-over-forward). Roots that do not depend on
// each other keep module order; a cycle keeps the remaining roots in order.
func innerFirst(roots []*root) []*root {
	reach := make([]map[*ir.Func]bool, len(roots))
	for i, rt := range roots {
		reach[i] = map[*ir.Func]bool{}
		if len(rt.call.Args) == 0 {
			continue
		}
		args := rt.call.Args
		if hasSRet(args[0]) && len(args) > 1 {
			args = args[1:]
		}
		fns, err := resolveFuncs(irutil.StripCasts(irfacts.Unwrap(args[0])), map[value.Value]bool{})
		if err != nil {
			continue // parseArgs reports it when the root is lowered
		}
		for _, f := range fns {
			reachable(f, reach[i])
		}
	}
	// before(i, j): root j's caller is reachable from root i's function.
	done := make([]bool, len(roots))
	var out []*root
	for len(out) < len(roots) {
		progress := false
		for i := range roots {
			if done[i] {
				continue
			}
			ready := true
			for j := range roots {
				if j != i && !done[j] && reach[i][roots[j].caller] {
					ready = false
					break
				}
			}
			if ready {
				done[i], progress = true, true
				out = append(out, roots[i])
			}
		}
		if !progress {
			for i := range roots {
				if !done[i] {
					done[i] = true
					out = append(out, roots[i])
				}
			}
		}
	}
	return out
}

// reachable adds f and every defined function its body calls or refers to,
// transitively, to seen.
func reachable(f *ir.Func, seen map[*ir.Func]bool) {
	if seen[f] {
		return
	}
	seen[f] = true
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			irutil.RemapOperands(inst, func(op value.Value) value.Value {
				if g, ok := irutil.StripCasts(op).(*ir.Func); ok && len(g.Blocks) > 0 {
					reachable(g, seen)
				}
				return op
			})
		}
	}
}
