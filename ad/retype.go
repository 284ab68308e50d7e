package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Floats moved as integers. The engine decides what carries derivatives
// from IR types, but clang and LLVM move doubles as i64 (an 8-byte memcpy
// becomes load i64/store i64; struct copies; std::copy), as <2 x i64>,
// through integer parameters (a double's bits passed as unsigned long
// long). So, once per module before any root is lowered (retypeRegion):
//  1. the functions AD reaches from the roots are copied; the copies are
//     what the engine differentiates (differ.prepared), the program's own
//     functions stay as they are;
//  2. function pointers every call passes the same function for become
//     that function in the copies (funcptr.go): callbacks of generic code
//     are called directly, and differentiated;
//  3. the type analysis (package typeanalysis) runs over the copies;
//  4. byval parameters become explicit copies (byval.go);
//  5. a copy whose integer parameters or return hold floats (or pointers)
//     is replaced, for the calls of the region, by a function taking and
//     returning floats (retypeSignature);
//  6. each body is rewritten so that what the analysis proves to be
//     floats is float-typed in the IR (retype_body.go): the engine then
//     sees them.
// What the rewrite cannot express (an i64 holding a float and an int, the
// bytes of a double copied one by one) is recorded as opaque; once
// activity is known, float bits that derivatives reach and that leave as
// integers stop the link with an error (retype_check.go). Bulk copies ask
// the analysis what their bytes hold (analyzedCopy, copybound.go).

// retyper holds the analysis of one module's AD region and its rewrite.
type retyper struct {
	d     *differ
	ta    *typeanalysis.Analysis
	roots map[*ir.Func]bool
	// copies maps each function of the region to the function analyzed
	// for it: its copy, or itself when it is not copied (it holds an
	// entry-point call, or terminators the copy does not keep); nil for
	// functions outside the region (declarations, inactive, custom rules).
	copies map[*ir.Func]*ir.Func
	origs  map[*ir.Func]*ir.Func // copy -> the function it copies
	// sigs maps a copy to the function with float parameters or return
	// that replaces it in the region's calls.
	sigs map[*ir.Func]*ir.Func
	// opaque: integer values holding float bits that stay integers, with
	// why (retype_check.go reports those derivatives reach).
	opaque map[value.Value]string
	// rewritten are the functions the rewrite changed.
	rewritten map[*ir.Func]bool
	// preparedCopy are copies prepared before the analysis (OpenMP
	// regions'), rewritten in place (see body).
	preparedCopy map[*ir.Func]bool
}

// retypeRegion analyzes the functions AD reaches from the roots and
// rewrites their copies (once per module, before any root is lowered).
func (d *differ) retypeRegion(roots []*root) error {
	rt := &retyper{d: d, roots: map[*ir.Func]bool{}, copies: map[*ir.Func]*ir.Func{}, origs: map[*ir.Func]*ir.Func{}, sigs: map[*ir.Func]*ir.Func{},
		opaque: map[value.Value]string{}, rewritten: map[*ir.Func]bool{}, preparedCopy: map[*ir.Func]bool{}}
	var fns []*ir.Func
	for _, r := range roots {
		for _, f := range rootFuncs(r) {
			if !rt.roots[f] {
				rt.roots[f] = true
				fns = append(fns, f)
			}
		}
	}
	if len(fns) == 0 {
		return nil
	}
	rt.specializeFuncPtrs(rt.regionFuncs(fns))
	rt.ta = typeanalysis.Analyze(fns, rt.body)
	if !rt.ta.Complete() {
		return nil // the engine sees the functions as they are
	}
	if w := d.typeReport; w != nil {
		for _, f := range rt.ta.Funcs() {
			fmt.Fprintf(w, "types of %s:\n%s", f.Name(), rt.ta.Print(f))
		}
	}
	d.bits = rt
	for _, f := range rt.ta.Funcs() {
		if rt.original(f) != f && explicitByval(d.m, f) {
			rt.rewritten[f] = true
		}
	}
	// Signatures first: bodies rewrite their calls to the new functions.
	for _, f := range rt.ta.Funcs() {
		if orig := rt.original(f); orig != f && !rt.roots[orig] {
			rt.retypeSignature(f)
		}
	}
	for _, f := range rt.ta.Funcs() {
		if rt.original(f) == f && !rt.preparedCopy[f] {
			continue // analyzed in place: not rewritten
		}
		body := f
		if g := rt.sigs[f]; g != nil {
			body = g
		}
		if err := rt.rewriteBody(body); err != nil {
			return err
		}
	}
	for _, f := range rt.ta.Funcs() {
		for _, g := range []*ir.Func{f, rt.sigs[f]} {
			if g == nil || !rt.rewritten[g] {
				continue
			}
			// Values the rewrite added have no IDs yet (messages name
			// values by them).
			if err := irutil.Renumber(g); err != nil {
				return errorAt(g, nil, "%v", err)
			}
			if w := d.typeReport; w != nil {
				fmt.Fprintln(w, g.LLString())
			}
		}
	}
	// The engine differentiates the copies.
	for orig, c := range rt.copies {
		if c != nil && c != orig && rt.sigs[c] == nil {
			d.prep[orig] = c
		}
	}
	for _, g := range rt.sigs {
		d.prep[g] = g
	}
	return nil
}

// rootFuncs are the functions a root differentiates (see parseArgs).
func rootFuncs(r *root) []*ir.Func {
	args := r.call.Args
	if len(args) > 0 && hasSRet(args[0]) {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil
	}
	fns, err := resolveFuncs(irutil.StripCasts(irfacts.Unwrap(args[0])), map[value.Value]bool{})
	if err != nil {
		return nil
	}
	return fns
}

// body is the function the analysis runs over for f (see copies).
func (rt *retyper) body(f *ir.Func) *ir.Func {
	if c, ok := rt.copies[f]; ok {
		return c
	}
	var c *ir.Func
	switch {
	case len(f.Blocks) == 0, rt.d.inactive[f], rt.d.custom[f] != nil, isBlasFunc(f), strings.HasPrefix(f.Name(), "llvm."):
	case rt.d.prep[f] == f:
		// A copy AD prepared already (an OpenMP region's, ompprep.go),
		// which its preparation names: rewritten in place, its
		// signature kept.
		c = f
		rt.preparedCopy[f] = true
	case holdsEntryPoint(f) || !copyable(f):
		c = f
		// Analyzed in place: its pointer vectors become lanes now, before
		// the analysis (an error leaves f unchanged, for prepared to report).
		_ = scalarizePointerVectors(f)
	default:
		var err error
		if c, err = rt.d.preparedCopy(f, true); err != nil {
			c = f
		} else if irutil.Renumber(c) != nil {
			c = f // messages name values by their numbers: keep them right
		}
	}
	if c != nil {
		rt.origs[c] = f
	}
	rt.copies[f] = c
	return c
}

// original is the function a copy was made of (itself when not a copy).
func (rt *retyper) original(c *ir.Func) *ir.Func {
	if o, ok := rt.origs[c]; ok {
		return o
	}
	return c
}

// holdsEntryPoint reports a function calling an Enzyme entry point (a
// nested derivative): the call is lowered in the function itself, which
// must stay the one differentiated.
func holdsEntryPoint(f *ir.Func) bool {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				if g, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
					if _, entry := EntryPointMode(g.Name()); entry {
						return true
					}
				}
			}
		}
	}
	return false
}

// copyable reports a function whose terminators CloneWithoutUnwind keeps
// exactly (besides the invokes and unwinding it removes).
func copyable(f *ir.Func) bool {
	for _, b := range f.Blocks {
		switch b.Term.(type) {
		case *ir.TermRet, *ir.TermBr, *ir.TermCondBr, *ir.TermSwitch, *ir.TermUnreachable, *ir.TermInvoke, *ir.TermResume:
		default:
			return false
		}
	}
	return true
}
