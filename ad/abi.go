package ad

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Mode is the kind of derivative an Enzyme entry point asks for.
type Mode int

const (
	Reverse       Mode = iota // __enzyme_autodiff
	Forward                   // __enzyme_fwddiff
	AugmentFwd                // __enzyme_augmentfwd
	ReverseOnly               // __enzyme_reverse
	Batch                     // __enzyme_batch
	ErrorEstimate             // __enzyme_error_estimate (errorest.go)
)

// entryPoints maps the names Enzyme recognizes (as substrings of the callee's
// symbol, so __enzyme_autodiff2 and C++-mangled names match) to their modes.
var entryPoints = []struct {
	name string
	mode Mode
}{
	{"__enzyme_autodiff", Reverse},
	{"__enzyme_fwddiff", Forward},
	{"__enzyme_augmentfwd", AugmentFwd},
	{"__enzyme_reverse", ReverseOnly},
	{"__enzyme_batch", Batch},
	{"__enzyme_error_estimate", ErrorEstimate},
}

// unsupportedEntryPoints are Enzyme's other entry points, which gozyme
// does not implement: a call of one is an error naming it (never an
// undefined reference at link time), with what it is for.
var unsupportedEntryPoints = []struct{ name, what string }{
	{"__enzyme_fwdsplit", "split forward mode"},
	{"__enzyme_truncate", "floating-point truncation"},
	{"__enzyme_expand", "floating-point truncation"},
	{"__enzyme_trace", "probabilistic programming"},
	{"__enzyme_sample", "probabilistic programming"},
	{"__enzyme_condition", "probabilistic programming"},
}

// EntryPointNames lists the names whose calls make a module one gozyme
// must rewrite: the entry points and the unsupported ones (to report).
func EntryPointNames() []string {
	var out []string
	for _, e := range entryPoints {
		out = append(out, e.name)
	}
	for _, e := range unsupportedEntryPoints {
		out = append(out, e.name)
	}
	out = append(out, denseViewNames...) // sparse.go
	return append(out, iterName, virtualReverseName)
}

// unsupportedEntryPoint returns the unsupported Enzyme entry point a
// function name contains, and what it is for.
func unsupportedEntryPoint(name string) (string, string, bool) {
	for _, e := range unsupportedEntryPoints {
		if strings.Contains(name, e.name) {
			return e.name, e.what, true
		}
	}
	return "", "", false
}

// EntryPointMode reports whether a function name is an Enzyme entry point.
func EntryPointMode(name string) (Mode, bool) {
	for _, e := range entryPoints {
		if strings.Contains(name, e.name) {
			return e.mode, true
		}
	}
	return 0, false
}

// markers are the activity markers, passed as loads of globals of these names.
var markers = map[string]activity.Activity{
	"enzyme_const":     activity.Const,
	"enzyme_out":       activity.Out,
	"enzyme_dup":       activity.Dup,
	"enzyme_dupnoneed": activity.DupNoNeed,
	// Batch mode, all lanes' shadows in one buffer: "enzyme_dupv, offset,
	// p, dp" passes lane k's shadow at byte offset k·offset from dp.
	"enzyme_dupv":       activity.Dup,
	"enzyme_dupnoneedv": activity.DupNoNeed,
}

// rootArg is one parameter's activity and values at a call site.
type rootArg struct {
	act     activity.Activity
	val     value.Value
	shadows []value.Value // one per lane of the batch (Dup, DupNoNeed)
	offset  value.Value   // enzyme_dupv: the byte offset between lanes' shadows in shadows[0]
}

// root is one call of an Enzyme entry point.
type root struct {
	caller *ir.Func
	block  *ir.Block
	call   *ir.InstCall
	mode   Mode
	fnVal  value.Value // the function operand, casts stripped
	fns    []*ir.Func  // candidates it may point to
	sret   value.Value // where a struct result goes, when returned in memory
	width  int         // forward mode: tangents per value (enzyme_width)
	args   []rootArg
	// __enzyme_reverse: the arguments after the parameters' (adjoint of
	// the return, tape).
	trailing []value.Value
	flags    callFlags // whole-call markers (abiflags.go)
}

// findRoots returns every entry-point call of the module, in module order
// (Differentiate lowers them inner-first, see innerFirst); invokes of entry
// points were made calls before (invokedroot.go).
func findRoots(m *ir.Module) ([]*root, error) {
	if err := lowerVirtualReverse(m); err != nil {
		return nil, err
	}
	var roots []*root
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			if inv, ok := b.Term.(*ir.TermInvoke); ok {
				if callee, ok := irutil.StripCasts(inv.Invokee).(*ir.Func); ok {
					if name, what, bad := unsupportedEntryPoint(callee.Name()); bad {
						e := errorAt(f, inv, "%s (%s) is not supported by gozyme", name, what)
						e.Call = fmt.Sprintf("the %s call in '%s'", name, f.Name())
						return nil, e
					}
				}
			}
			for _, inst := range b.Insts {
				call, ok := inst.(*ir.InstCall)
				if !ok {
					continue
				}
				callee, ok := irutil.StripCasts(call.Callee).(*ir.Func)
				if !ok {
					continue
				}
				mode, ok := EntryPointMode(callee.Name())
				if !ok {
					if name, what, bad := unsupportedEntryPoint(callee.Name()); bad {
						e := errorAt(f, call, "%s (%s) is not supported by gozyme", name, what)
						e.Call = fmt.Sprintf("the %s call in '%s'", name, f.Name())
						return nil, e
					}
					continue
				}
				roots = append(roots, &root{caller: f, block: b, call: call, mode: mode})
			}
		}
	}
	return roots, nil
}

// dropIncoming removes the incoming values of blk's phis from the
// predecessors gone says are gone.
func dropIncoming(blk *ir.Block, gone func(*ir.Block) bool) {
	for _, inst := range blk.Insts {
		if phi, ok := inst.(*ir.InstPhi); ok {
			var keep []*ir.Incoming
			for _, inc := range phi.Incs {
				if !gone(inc.Pred.(*ir.Block)) {
					keep = append(keep, inc)
				}
			}
			phi.Incs = keep
		}
	}
}

// dropUnreachable removes the blocks of f its entry no longer reaches, and
// their incoming values from the phis of the blocks that stay.
func dropUnreachable(f *ir.Func) {
	reach := map[*ir.Block]bool{}
	stack := []*ir.Block{f.Blocks[0]}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reach[b] {
			continue
		}
		reach[b] = true
		stack = append(stack, irutil.Succs(b)...)
	}
	var keep []*ir.Block
	for _, b := range f.Blocks {
		if reach[b] {
			keep = append(keep, b)
		}
	}
	f.Blocks = keep
	for _, b := range keep {
		dropIncoming(b, func(pred *ir.Block) bool { return !reach[pred] })
	}
}

// parseArgs resolves the function operand and reads the activity of every
// parameter from the call's arguments.
func (rt *root) parseArgs() error {
	args := rt.call.Args
	if len(args) > 0 && hasSRet(args[0]) {
		rt.sret = irfacts.Unwrap(args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		return rt.errorf("call to an Enzyme entry point without a function to differentiate")
	}
	rt.fnVal = irutil.StripCasts(irfacts.Unwrap(args[0]))
	fns, err := resolveFuncs(rt.fnVal, map[value.Value]bool{})
	if err != nil {
		e := rt.errorf("the function to differentiate (the first argument) is %v", err)
		if nb, ok := err.(noBody); ok {
			e.(*Error).Callee = string(nb)
		}
		return e
	}
	rt.fns = fns
	f := fns[0]
	for _, g := range fns[1:] {
		if !g.Sig.Equal(f.Sig) {
			return rt.errorf("candidate functions '%s' and '%s' have different types", f.Name(), g.Name())
		}
	}
	rest, err := rt.takeFlags(args[1:])
	if err != nil {
		return err
	}
	j := 0
	rt.width = 1
	for i, p := range f.Params {
		if j < len(rest) && isWidthMarker(rest[j]) {
			if err := rt.parseWidth(rest, j); err != nil {
				return err
			}
			j += 2
		}
		if j >= len(rest) {
			return rt.errorf("too few arguments for '%s': parameter %d of %d has no value", f.Name(), i+1, len(f.Params))
		}
		act, explicit := marker(rest[j])
		var offset value.Value
		if explicit {
			if name := markerName(rest[j]); name == "enzyme_dupv" || name == "enzyme_dupnoneedv" {
				j++
				if j >= len(rest) || !types.IsInt(irfacts.Unwrap(rest[j]).Type()) {
					return rt.errorf("%s for parameter %d of '%s' must be followed by an integer byte offset", name, i+1, f.Name())
				}
				if !types.IsPointer(p.Typ) {
					return rt.errorf("%s for parameter %d of '%s' needs a pointer parameter, not %s", name, i+1, f.Name(), p.Typ)
				}
				offset = irfacts.Unwrap(rest[j])
			}
			j++
			if j >= len(rest) {
				return rt.errorf("marker for parameter %d of '%s' is not followed by a value", i+1, f.Name())
			}
		} else {
			switch {
			case (irfacts.IsFloat(p.Typ) || irfacts.CarriesFloat(p.Typ)) && (rt.mode == Forward || rt.mode == ErrorEstimate):
				act = activity.Dup // value, then tangent
			case irfacts.IsFloat(p.Typ) || irfacts.CarriesFloat(p.Typ):
				act = activity.Out
			case types.IsPointer(p.Typ):
				act = activity.Dup
			default:
				act = activity.Const
			}
		}
		a := rootArg{act: act, val: irfacts.Unwrap(rest[j])}
		j++
		if offset != nil {
			if j >= len(rest) {
				return rt.errorf("parameter %d of '%s' is duplicated but has no shadow argument", i+1, f.Name())
			}
			a.offset, a.shadows = offset, []value.Value{irfacts.Unwrap(rest[j])}
			if !types.IsPointer(a.shadows[0].Type()) {
				return rt.errorf("the shadow of parameter %d of '%s' is a %s, not a pointer", i+1, f.Name(), a.shadows[0].Type())
			}
			j++
		} else if act == activity.Dup || act == activity.DupNoNeed {
			for k := 0; k < rt.width; k++ {
				if j >= len(rest) {
					return rt.errorf("parameter %d of '%s' is duplicated but has %d of its %d shadow arguments", i+1, f.Name(), k, rt.width)
				}
				if err := rt.checkShadow(f, i, rest[j]); err != nil {
					return err
				}
				a.shadows = append(a.shadows, irfacts.Unwrap(rest[j]))
				j++
			}
		}
		if act == activity.Out && (rt.mode == Forward || rt.mode == ErrorEstimate) {
			return rt.errorf("parameter %d of '%s' is enzyme_out, which forward mode has no use for (pass a tangent with enzyme_dup)", i+1, f.Name())
		}
		if act == activity.Out && !irfacts.CarriesFloat(p.Typ) {
			return rt.errorf("parameter %d of '%s' is enzyme_out but has type %s, not floating point", i+1, f.Name(), p.Typ)
		}
		rt.args = append(rt.args, a)
	}
	if rt.mode == ReverseOnly {
		// The reverse half takes, after the parameters, the return's
		// adjoint (when the function returns a float) and the tape
		// (unless enzyme_tape gave it).
		rt.trailing = rest[j:]
		want := 1
		if rt.flags.tape != nil {
			want = 0
		}
		if rt.retActive(f) {
			want++
		}
		if len(rt.trailing) != want {
			what := map[int]string{0: "nothing", 1: "the tape", 2: "the return's adjoint and the tape"}[want]
			if rt.flags.tape != nil && want == 1 {
				what = "the return's adjoint"
			}
			return rt.errorf("__enzyme_reverse of '%s' takes its arguments, then %s; %d extra arguments given", f.Name(), what, len(rt.trailing))
		}
		for i := range rt.trailing {
			rt.trailing[i] = irfacts.Unwrap(rt.trailing[i])
		}
		return nil
	}
	if j != len(rest) {
		return rt.errorf("too many arguments for '%s': %d given for %d parameters", f.Name(), len(rest), len(f.Params))
	}
	return nil
}

func hasSRet(v value.Value) bool {
	a, ok := v.(*ir.Arg)
	if !ok {
		return false
	}
	for _, at := range a.Attrs {
		if _, ok := at.(ir.SRet); ok {
			return true
		}
	}
	return false
}

// isWidthMarker reports a load of the global enzyme_width.
func isWidthMarker(v value.Value) bool { return markerName(v) == "enzyme_width" }

// parseWidth reads "enzyme_width, N" at rest[j]: N tangents per value in
// one forward sweep (Enzyme's batch mode).
func (rt *root) parseWidth(rest []value.Value, j int) error {
	if rt.mode != Forward {
		return rt.errorf("enzyme_width (batch mode) is supported by __enzyme_fwddiff only")
	}
	if rt.width != 1 {
		return rt.errorf("enzyme_width is given twice")
	}
	if j+1 >= len(rest) {
		return rt.errorf("enzyme_width is not followed by the width")
	}
	n, ok := irfacts.Unwrap(rest[j+1]).(*constant.Int)
	if !ok || n.X.Sign() <= 0 || n.X.Cmp(big.NewInt(maxWidth)) > 0 {
		return rt.errorf("enzyme_width must be followed by a constant width from 1 to %d", maxWidth)
	}
	rt.width = int(n.X.Int64())
	return nil
}

// maxWidth bounds the batch width (every lane is emitted separately).
const maxWidth = 64

// marker reports the activity a marker argument stands for.
func marker(v value.Value) (activity.Activity, bool) {
	a, ok := markers[markerName(v)]
	return a, ok
}

// checkShadow rejects, as the shadow of parameter i of f, an activity
// marker (enzyme_dup with its shadow left out: the next marker's value
// would be taken for the shadow pointer) and a value of the wrong kind (a
// pointer parameter's shadow must be a pointer, a float's a float).
func (rt *root) checkShadow(f *ir.Func, i int, v value.Value) error {
	if name := markerName(v); name != "" {
		if _, ok := markers[name]; ok {
			return errorAt(rt.caller, rt.call, "parameter %d of '%s' is duplicated (enzyme_dup) but is followed by %s, not by its shadow", i+1, f.Name(), name)
		}
	}
	p, s := f.Params[i].Typ, irfacts.Unwrap(v).Type()
	switch {
	case types.IsPointer(p) && !types.IsPointer(s):
		return errorAt(rt.caller, rt.call, "the shadow of parameter %d of '%s' is a %s, not a pointer", i+1, f.Name(), s)
	case irfacts.IsFloat(p) && !irfacts.IsFloat(s):
		return errorAt(rt.caller, rt.call, "the tangent of parameter %d of '%s' is a %s, not a %s", i+1, f.Name(), s, p)
	}
	return nil
}

// markerName is the name of the marker global an argument loads or
// passes by address ("" when it is no marker).
func markerName(v value.Value) string {
	if g := markerGlobal(v); g != nil {
		return g.Name()
	}
	return ""
}

// resolveFuncs finds the defined functions a function-pointer value may be,
// through casts, selects and phis.
func resolveFuncs(v value.Value, seen map[value.Value]bool) ([]*ir.Func, error) {
	v = irutil.StripCasts(v)
	if seen[v] {
		return nil, nil
	}
	seen[v] = true
	switch x := v.(type) {
	case *ir.Func:
		if len(x.Blocks) == 0 {
			return nil, noBody(x.Name())
		}
		return []*ir.Func{x}, nil
	case *ir.InstSelect:
		return resolveAll(seen, x.ValueTrue, x.ValueFalse)
	case *ir.InstPhi:
		return resolveAll(seen, irfacts.IncomingValues(x)...)
	}
	return nil, fmt.Errorf("%s, not a known function: pass the function itself, as (void *)f, or a choice among known functions (c ? f : g)", pointerOrigin(v))
}

// pointerOrigin says where a function pointer gozyme cannot resolve comes
// from, in the source's terms.
func pointerOrigin(v value.Value) string {
	switch x := v.(type) {
	case *ir.InstLoad:
		return "a function pointer read from memory at run time (a table, a struct field or a variable)"
	case *ir.Param:
		return "a parameter of the calling function (a function pointer known only to its callers)"
	case *ir.InstCall:
		return "a function pointer returned by " + describe(x)
	case *ir.InstIntToPtr:
		return "an integer converted to a pointer"
	}
	return "a function pointer computed at run time"
}

// noBody is the error of a function to differentiate that has no body in
// the module (the link names where it comes from).
type noBody string

func (n noBody) Error() string { return fmt.Sprintf("'%s' has no body here", string(n)) }

func resolveAll(seen map[value.Value]bool, vals ...value.Value) ([]*ir.Func, error) {
	var out []*ir.Func
	have := map[*ir.Func]bool{}
	for _, v := range vals {
		fs, err := resolveFuncs(v, seen)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !have[f] {
				have[f] = true
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no known function")
	}
	return out, nil
}

// coerce converts v to type t the way C's default argument promotions and
// return conventions require (float <-> double, integer widths, pointer
// casts), appending the conversion to insts.
func coerce(v value.Value, t types.Type, insts *[]ir.Instruction) (value.Value, error) {
	from := v.Type()
	if from.Equal(t) {
		return v, nil
	}
	var inst ir.Instruction
	switch {
	case irfacts.IsFloat(from) && irfacts.IsFloat(t):
		if floatBits(from) > floatBits(t) {
			inst = ir.NewFPTrunc(v, t)
		} else {
			inst = ir.NewFPExt(v, t)
		}
	case types.IsInt(from) && types.IsInt(t):
		if from.(*types.IntType).BitSize > t.(*types.IntType).BitSize {
			inst = ir.NewTrunc(v, t)
		} else {
			inst = ir.NewSExt(v, t)
		}
	case types.IsPointer(from) && types.IsPointer(t):
		inst = ir.NewBitCast(v, t)
	case types.IsInt(from) && types.IsPointer(t):
		inst = ir.NewIntToPtr(v, t)
	default:
		return nil, fmt.Errorf("cannot pass a %s as %s", from, t)
	}
	*insts = append(*insts, inst)
	return inst.(value.Value), nil
}

func floatBits(t types.Type) int {
	return int(8 * irutil.FloatSize(t.(*types.FloatType).Kind))
}

// icmpEq compares two pointers, for dispatching among candidate functions.
func icmpEq(x, y value.Value) *ir.InstICmp { return ir.NewICmp(enum.IPredEQ, x, y) }
