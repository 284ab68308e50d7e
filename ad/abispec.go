package ad

import (
	"strconv"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// parse reads the entry-point call rt (parseArgs) and specializes its
// function for the functions it is given as constants.
func (d *differ) parse(rt *root) error {
	if err := rt.parseArgs(); err != nil {
		return err
	}
	return d.specializeConstFuncs(rt)
}

// specializeConstFuncs: where an enzyme_const argument is a known function
// and the function to differentiate calls that parameter, it is
// differentiated as a copy with the parameter replaced by the function, so
// that the call is direct and differentiable (a callback handed to a
// solver, the wrapper of the C++ header <enzyme/enzyme>). The copy is made
// once per set of functions.
func (d *differ) specializeConstFuncs(rt *root) error {
	if len(rt.fns) != 1 {
		return nil
	}
	f := rt.fns[0]
	subst := map[int]*ir.Func{}
	name := f.Name() + ".const"
	for i, a := range rt.args {
		g, ok := irutil.StripCasts(a.val).(*ir.Func)
		if a.act != activity.Const || !ok || i >= len(f.Params) || !calledParam(f, f.Params[i]) {
			continue
		}
		subst[i] = g
		name += "." + strconv.Itoa(i) + "." + g.Name()
	}
	if len(subst) == 0 {
		return nil
	}
	if d.specs == nil {
		d.specs = map[string]*ir.Func{}
	}
	if c, ok := d.specs[name]; ok {
		rt.fns[0] = c
		return nil
	}
	c, err := irutil.CloneWithoutUnwind(f)
	if err != nil {
		return rt.errorf("%v", err)
	}
	c.SetName(name)
	for i, g := range subst {
		p := c.Params[i]
		var v value.Value = g
		if !g.Type().Equal(p.Typ) {
			v = constant.NewBitCast(g, p.Typ)
		}
		irutil.ReplaceAllUses(c, p, v)
	}
	d.specs[name] = c
	rt.fns[0] = c
	return nil
}

// calledParam reports whether f calls through its parameter p.
func calledParam(f *ir.Func, p *ir.Param) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok && irutil.StripCasts(c.Callee) == value.Value(p) {
				return true
			}
		}
		if inv, ok := b.Term.(*ir.TermInvoke); ok && irutil.StripCasts(inv.Invokee) == value.Value(p) {
			return true
		}
	}
	return false
}
