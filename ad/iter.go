package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// __enzyme_iter(n, k) is n in the function as written and n + k in each
// derivative of it: a derivative of order d sees n + d·k (the number of
// terms of a truncated series that its derivatives keep exact). Every
// derivative gozyme generates from code holding such a call holds n + k
// instead, and so do the functions it calls (stepIters); after all roots,
// the calls left become their first argument (finishIters).

const iterName = "__enzyme_iter"

func isIterCall(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return ok && strings.Contains(f.Name(), iterName) && len(c.Args) == 2
}

// stepIters adds k to n in the __enzyme_iter calls of functions fs (the
// derivatives just generated), and points their calls of other functions
// that hold such calls, directly or through their callees, at copies
// stepped the same way (once per function): everything a derivative of
// order d runs sees n + d·k, the functions it calls without
// differentiating them too. A third derivative runs the augmented forward
// of the first derivative as it is (it records the tape the reverse of
// the first derivative reads), which was generated at the second order.
func (d *differ) stepIters(fs []*ir.Func) {
	fresh := map[*ir.Func]bool{}
	for _, f := range fs {
		fresh[f] = true
	}
	work := append([]*ir.Func(nil), fs...)
	for i := 0; i < len(work); i++ {
		f := work[i]
		for _, b := range f.Blocks {
			var out []ir.Instruction
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok {
					out = append(out, inst)
					continue
				}
				if isIterCall(c) {
					n, k := irfacts.Unwrap(c.Args[0]), irfacts.Unwrap(c.Args[1])
					if n.Type().Equal(k.Type()) {
						sum := ir.NewAdd(n, k)
						out = append(out, sum)
						c.Args[0] = sum
					}
				} else if g, ok := c.Callee.(*ir.Func); ok && !fresh[g] && d.holdsIter(g, map[*ir.Func]bool{}) {
					s, made := d.iterCopy(g)
					if made {
						fresh[s] = true
						work = append(work, s)
					}
					c.Callee = s
				}
				out = append(out, inst)
			}
			b.Insts = out
		}
	}
}

// holdsIter reports whether f calls __enzyme_iter, directly or through
// the functions it calls.
func (d *differ) holdsIter(f *ir.Func, visiting map[*ir.Func]bool) bool {
	if h, ok := d.iterHolders[f]; ok {
		return h
	}
	if visiting[f] || len(f.Blocks) == 0 {
		return false
	}
	visiting[f] = true
	held := false
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				if isIterCall(c) {
					held = true
				} else if g, ok := c.Callee.(*ir.Func); ok && d.holdsIter(g, visiting) {
					held = true
				}
			}
		}
	}
	if d.iterHolders == nil {
		d.iterHolders = map[*ir.Func]bool{}
	}
	if held || len(visiting) == 1 {
		// A function found to hold none while a caller of it on the
		// recursion path was still open may reach one through it: only
		// the outermost answer, and every positive one, is final.
		d.iterHolders[f] = held
	}
	delete(visiting, f)
	return held
}

// iterCopy returns the copy of g that stepIters calls instead of g (made
// on first use, made reports that), without g's debug info: LLVM allows a
// subprogram one function.
func (d *differ) iterCopy(g *ir.Func) (*ir.Func, bool) {
	if c, ok := d.iterCopies[g]; ok {
		return c, false
	}
	c, err := irutil.CloneWithoutUnwind(g)
	if err != nil {
		return g, false // not copied: the call keeps g
	}
	c.SetName(g.Name() + ".iter")
	c.Linkage = enum.LinkageInternal
	stripDebugInfo(c)
	d.m.Funcs = append(d.m.Funcs, c)
	if d.iterCopies == nil {
		d.iterCopies = map[*ir.Func]*ir.Func{}
	}
	d.iterCopies[g] = c
	return c, true
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
				var v value.Value = irfacts.Unwrap(c.Args[0])
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
