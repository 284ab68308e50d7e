package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// directCastCalls makes direct the calls of f whose callee is a function
// cast to a pointer of another function type that differs only in pointer
// parameters (callCompatible): C without prototypes (`double polevl();`,
// K&R definitions) calls `polevl` through a cast to a variadic type,
// passing an i8* where the definition takes a double*; machine code passes
// every pointer alike, and no argument beyond the fixed ones. The
// call becomes a direct call of the function with those arguments cast, as
// instcombine writes it at -O1 and above, so that AD sees its callee.
func directCastCalls(f *ir.Func) {
	for _, b := range f.Blocks {
		var out []ir.Instruction
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				out = append(out, directCastCall(c)...)
			}
			out = append(out, inst)
		}
		b.Insts = out
	}
}

// directCastCall rewrites call c (see directCastCalls) and returns the
// casts to insert before it.
func directCastCall(c *ir.InstCall) []ir.Instruction {
	if _, direct := c.Callee.(*ir.Func); direct {
		return nil
	}
	g, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok || g.Sig.Variadic {
		return nil
	}
	want := c.Sig()
	if want.Variadic && len(c.Args) == len(want.Params) {
		// An unprototyped call passes its arguments through a variadic
		// type; with none beyond the fixed ones it is the fixed call.
		fixed := *want
		fixed.Variadic = false
		want = &fixed
	}
	if !callCompatible(g.Sig, want) {
		return nil
	}
	var casts []ir.Instruction
	args := make([]value.Value, len(c.Args))
	for k, a := range c.Args {
		args[k] = a
		if p := g.Sig.Params[k]; !types.Equal(a.Type(), p) {
			cast := ir.NewBitCast(irfacts.Unwrap(a), p)
			casts = append(casts, cast)
			args[k] = cast
		}
	}
	c.Callee, c.Args = g, args
	return casts
}
