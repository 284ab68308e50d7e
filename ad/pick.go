package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Picks: the reverse of fmax(x, y) (fmin, llvm.maxnum, llvm.minnum) sends
// the adjoint to the argument that was returned, so all it needs of the
// forward sweep is one bit per execution, not x and y. The bit is made a
// value of the primal the cache plan can see: beside each active call
// whose rule has a pick (mathRule.pick), a few instructions no block
// holds (x >= y, or y is NaN: the rule's own test) that the forward sweep
// computes after the call and the reverse reads like any other value. The
// min-cut (mincut.go) then weighs caching that i1 against caching x and y
// (or whatever they are rebuilt from), and where x and y are needed anyway,
// recomputes the bit from them; the unused forward copy is dead code.
// select(fcmp) patterns need none of this: the reverse of select reads its
// condition, an fcmp of the primal, already.
//
// Only functions whose caches are planned (those with loops) use picks:
// elsewhere each value is cached at most once and the plan, which would
// choose, is not made.

// pick is the primal instructions computing one call's pick, in order; the
// last is the bit.
type pick []ir.Instruction

// pickOf returns the pick of primal call c (made once: the dry run and the
// real generation must see the same values), or nil when c's rule has no
// pick.
func (d *differ) pickOf(c *ir.InstCall) pick {
	if p, ok := d.picks[c]; ok {
		return p
	}
	var p pick
	if f, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok && len(c.Args) == 2 {
		if rule := mathRuleOf(f, c.Typ); rule != nil && rule.Pick != nil {
			scratch := &ir.Block{}
			rule.Pick(&rules.Builder{M: d.m, B: scratch}, irfacts.Unwrap(c.Args[0]), irfacts.Unwrap(c.Args[1]))
			p = scratch.Insts
		}
	}
	d.picks[c] = p
	return p
}

// usesPick reports whether the reverse of primal call c reads its pick
// (rather than its operands): c is active, its rule has a pick, and the
// function's caches are planned.
func (r *reverseGen) usesPick(c *ir.InstCall) bool {
	return (r.requested != nil || r.plan != nil) && r.act.Active(c) && r.d.pickOf(c) != nil
}

// forwardPick clones the pick of primal call c, in primal block b, for the
// forward sweep (operands remapped with the rest of the block) and returns
// the clones.
func (r *reverseGen) forwardPick(b *ir.Block, c *ir.InstCall) ([]ir.Instruction, error) {
	var out []ir.Instruction
	for _, inst := range r.d.pickOf(c) {
		fc, err := irutil.CloneInst(inst, func(v value.Value) value.Value { return v })
		if err != nil {
			return nil, errorAt(r.f, c, "%v", err)
		}
		v, fv := inst.(value.Value), fc.(value.Value)
		r.blockOf[v] = b
		r.noteForward(b, v, fv)
		out = append(out, fc)
	}
	return out, nil
}

// pickedValue returns, for code emitted in blk in the reverse of primal
// block at, the pick of primal call c as the forward sweep computed it,
// or nil where c's reverse does not use its pick.
func (r *reverseGen) pickedValue(blk, at *ir.Block, c *ir.InstCall) value.Value {
	if !r.usesPick(c) {
		return nil
	}
	p := r.d.pickOf(c)
	return r.lookup(blk, at, p[len(p)-1].(value.Value))
}
