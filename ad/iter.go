package ad

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// __enzyme_iter(n, k) is n in the function as written and n + k in each
// derivative of it: a derivative of order d sees n + d·k (the number of
// terms of a truncated series that its derivatives keep exact). Every
// derivative gozyme generates from code holding such a call holds n + k
// instead (stepIters); after all roots, the calls left become their first
// argument (finishIters).

const iterName = "__enzyme_iter"

func isIterCall(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return ok && strings.Contains(f.Name(), iterName) && len(c.Args) == 2
}

// stepIters adds k to n in the __enzyme_iter calls of functions fs (the
// derivatives just generated).
func stepIters(fs []*ir.Func) {
	for _, f := range fs {
		for _, b := range f.Blocks {
			var out []ir.Instruction
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && isIterCall(c) {
					n, k := unwrapArg(c.Args[0]), unwrapArg(c.Args[1])
					if n.Type().Equal(k.Type()) {
						sum := ir.NewAdd(n, k)
						out = append(out, sum)
						c.Args[0] = sum
					}
				}
				out = append(out, inst)
			}
			b.Insts = out
		}
	}
}

// finishIters replaces every __enzyme_iter call of m by its first argument.
func finishIters(m *ir.Module) {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			var out []ir.Instruction
			var done []*ir.InstCall
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && isIterCall(c) {
					done = append(done, c)
					continue
				}
				out = append(out, inst)
			}
			if len(done) == 0 {
				continue
			}
			b.Insts = out
			for _, c := range done {
				var v value.Value = unwrapArg(c.Args[0])
				if !v.Type().Equal(c.Typ) {
					var pre []ir.Instruction
					if cv, err := coerce(v, c.Typ, &pre); err == nil && len(pre) == 0 {
						v = cv
					}
				}
				irutil.ReplaceAllUses(f, c, v)
			}
		}
	}
}
