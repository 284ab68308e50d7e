package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Function pointers passed down the AD region. Generic code takes the
// function it calls as an argument (boost odeint's system, a callback); a
// call through a parameter is indirect, and the engine differentiates only
// calls it can name. Where every call in the region passes a copy the same
// function for a parameter, the copy calls that function directly.

// regionFuncs lists the functions AD reaches from the roots by direct
// calls, as rt.body gives them (copies, or functions analyzed in place).
func (rt *retyper) regionFuncs(roots []*ir.Func) []*ir.Func {
	var out []*ir.Func
	seen := map[*ir.Func]bool{}
	var visit func(f *ir.Func)
	visit = func(f *ir.Func) {
		b := rt.body(f)
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		out = append(out, b)
		for _, blk := range b.Blocks {
			for _, inst := range blk.Insts {
				if c, ok := inst.(*ir.InstCall); ok {
					if g, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
						visit(g)
					}
				}
			}
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// specializeFuncPtrs replaces, in each copy of the region, the uses of a
// function-pointer parameter that every direct call of the module passes
// the same function by that function (the module's calls: a superset of
// the region's, which grows as calls become direct). A parameter passed on
// to another call counts as the function it is bound to, so generic code
// passing the callback down (integrate, try_step, do_step) is specialized
// at every level.
func (rt *retyper) specializeFuncPtrs(region []*ir.Func) {
	all := append(append([]*ir.Func(nil), rt.d.m.Funcs...), region...)
	// bound: the function each parameter of a copy receives, nil when
	// calls disagree or pass something else (absent: not yet known).
	bound := map[*ir.Param]*ir.Func{}
	for changed := true; changed; {
		changed = false
		next := map[*ir.Param]*ir.Func{}
		bad := map[*ir.Param]bool{}
		bind := func(caller *ir.Func, calleeVal value.Value, args []value.Value) {
			callee, ok := irutil.StripCasts(calleeVal).(*ir.Func)
			if !ok {
				return
			}
			cp := rt.copies[callee]
			if cp == nil || cp == callee || rt.roots[callee] {
				return
			}
			for i, p := range cp.Params {
				if !isFuncPointer(p.Typ) {
					continue
				}
				var g *ir.Func
				if i < len(args) && calleeVal == callee {
					g = rt.funcArg(caller, args[i], bound)
				}
				if g == nil || (next[p] != nil && next[p] != g) {
					bad[p] = true
					continue
				}
				next[p] = g
			}
		}
		for _, f := range all {
			for _, b := range f.Blocks {
				for _, inst := range b.Insts {
					if c, ok := inst.(*ir.InstCall); ok {
						bind(f, c.Callee, c.Args)
					}
				}
				if inv, ok := b.Term.(*ir.TermInvoke); ok {
					bind(f, inv.Invokee, inv.Args)
				}
			}
		}
		for p, g := range next {
			if bad[p] {
				continue
			}
			if bound[p] != g {
				bound[p] = g
				changed = true
			}
		}
	}
	for _, f := range region {
		for _, p := range f.Params {
			g := bound[p]
			if g == nil {
				continue
			}
			var fn value.Value = g
			if !types.Equal(fn.Type(), p.Typ) {
				fn = constant.NewBitCast(g, p.Typ)
			}
			irutil.ReplaceAllUses(f, p, fn)
			rt.rewritten[f] = true
		}
	}
}

// funcArg is the function an argument passes: a function constant, or a
// parameter of the caller (or of the caller's copy) bound to one.
func (rt *retyper) funcArg(caller *ir.Func, arg value.Value, bound map[*ir.Param]*ir.Func) *ir.Func {
	switch x := irutil.StripCasts(irfacts.Unwrap(arg)).(type) {
	case *ir.Func:
		return x
	case *ir.Param:
		cp := rt.copies[caller]
		if cp == nil || cp == caller {
			return bound[x]
		}
		for i, p := range caller.Params {
			if p == x && i < len(cp.Params) {
				return bound[cp.Params[i]]
			}
		}
	}
	return nil
}

func isFuncPointer(t types.Type) bool {
	pt, ok := t.(*types.PointerType)
	if !ok {
		return false
	}
	_, ok = pt.ElemType.(*types.FuncType)
	return ok
}
