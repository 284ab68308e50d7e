package ad

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Whole-call markers: they describe the call, not the argument after them,
// and may stand anywhere after the function (Enzyme's rule). Those that
// take a value (enzyme_allocated, enzyme_tape) are followed by it.
//
//	enzyme_primal_return  also return the primal result: reverse mode returns
//	                      the derivatives, then the primal (as leaves of the
//	                      declared struct); forward mode {primal, tangent}
//	enzyme_const_return   the result is not differentiated: reverse mode seeds
//	                      nothing; forward mode returns the primal result
//	enzyme_active_return  the result is differentiated (the default for a
//	                      floating-point result)
//	enzyme_noret          the primal result is not needed (the default)
//	enzyme_nofree         accepted (gozyme frees nothing the caller sees)
//	enzyme_allocated N    split mode: the tape lives in the caller's N bytes,
//	enzyme_tape T         at T (no tape is returned or freed)
type callFlags struct {
	primalReturn bool
	constReturn  bool
	activeReturn bool
	noRet        bool
	allocated    value.Value // enzyme_allocated's size
	tape         value.Value // enzyme_tape's buffer
}

// flagMarkers take no value; valueMarkers take one.
var (
	flagMarkers  = map[string]bool{"enzyme_primal_return": true, "enzyme_const_return": true, "enzyme_active_return": true, "enzyme_noret": true, "enzyme_nofree": true}
	valueMarkers = map[string]bool{"enzyme_allocated": true, "enzyme_tape": true}
	// unsupportedMarkers are Enzyme markers gozyme does not implement:
	// each is an error naming it, never a marker taken for a value.
	unsupportedMarkers = map[string]string{
		"enzyme_dup_return":       "a duplicated (pointer) result of the function itself",
		"enzyme_interleave":       "interleaved batch shadows",
		"enzyme_runtime_activity": "activity decided at run time",
		"enzyme_strong_zero":      "strong zeros",
		"enzyme_byref":            "arguments by reference",
		"enzyme_not_overwritten":  "arguments declared not overwritten",
		"enzyme_vector":           "a batch-mode marker, for __enzyme_batch",
		"enzyme_scalar":           "a batch-mode marker, for __enzyme_batch",
	}
)

// takeFlags removes the whole-call markers (and their values) from args,
// recording them in rt.flags.
func (rt *root) takeFlags(args []value.Value) ([]value.Value, error) {
	var out []value.Value
	for i := 0; i < len(args); i++ {
		name := markerName(args[i])
		if why, ok := unsupportedMarkers[name]; ok {
			return nil, rt.errorf("%s (%s) is not supported by gozyme", name, why)
		}
		switch {
		case flagMarkers[name]:
			switch name {
			case "enzyme_primal_return":
				rt.flags.primalReturn = true
			case "enzyme_const_return":
				rt.flags.constReturn = true
			case "enzyme_active_return":
				rt.flags.activeReturn = true
			case "enzyme_noret":
				rt.flags.noRet = true
			}
		case valueMarkers[name]:
			if i+1 >= len(args) {
				return nil, rt.errorf("%s is not followed by a value", name)
			}
			i++
			if name == "enzyme_allocated" {
				rt.flags.allocated = irfacts.Unwrap(args[i])
			} else {
				rt.flags.tape = irfacts.Unwrap(args[i])
			}
		default:
			out = append(out, args[i])
		}
	}
	if rt.flags.constReturn && rt.flags.activeReturn {
		return nil, rt.errorf("enzyme_const_return and enzyme_active_return contradict each other")
	}
	if (rt.flags.allocated == nil) != (rt.flags.tape == nil) {
		return nil, rt.errorf("enzyme_allocated (the tape's size) and enzyme_tape (its buffer) go together")
	}
	if rt.flags.tape != nil && rt.mode != AugmentFwd && rt.mode != ReverseOnly {
		return nil, rt.errorf("enzyme_allocated and enzyme_tape are for split mode (__enzyme_augmentfwd and __enzyme_reverse)")
	}
	return out, nil
}

// isMarkerGlobal reports a global named as one of Enzyme's markers.
func isMarkerGlobal(name string) bool {
	_, act := markers[name]
	_, bad := unsupportedMarkers[name]
	return act || bad || flagMarkers[name] || valueMarkers[name] || name == "enzyme_width"
}

// markerGlobal returns the marker global v is or loads: a marker passed by
// value (a load of the global) or by address (&enzyme_dup), nil otherwise.
func markerGlobal(v value.Value) *ir.Global {
	v = irutil.StripCasts(irfacts.Unwrap(v))
	if ld, ok := v.(*ir.InstLoad); ok {
		v = irutil.StripCasts(ld.Src)
	}
	g, ok := v.(*ir.Global)
	if !ok || !isMarkerGlobal(g.Name()) {
		return nil
	}
	return g
}

// errorf is an error about the entry-point call rt itself.
func (rt *root) errorf(format string, args ...interface{}) error {
	e := errorAt(rt.caller, rt.call, format, args...)
	e.Call = rt.describeCall()
	return e
}

// describeCall names the entry-point call: "the __enzyme_autodiff call in
// 'main'" (the Enzyme name its symbol contains when the symbol is C++'s).
func (rt *root) describeCall() string {
	return fmt.Sprintf("the %s call in '%s'", rt.entryName(), rt.caller.Name())
}

// entryName is the entry point's name as the user wrote it (for C++
// symbols, the Enzyme name in it).
func (rt *root) entryName() string {
	name := irfacts.CalleeName(rt.call)
	if strings.HasPrefix(name, "_Z") {
		for _, e := range entryPoints {
			if strings.Contains(name, e.name) {
				return e.name
			}
		}
	}
	return name
}

// annotate adds to an error from differentiating for rt the entry-point
// call it was for (unless it is about that call itself).
func (rt *root) annotate(err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Call != "" || e.Root != "" {
		return err
	}
	e.Root = "in the derivative for " + rt.describeCall()
	e.RootLoc = irutil.DebugLoc(rt.call)
	if e.RootLoc == "" {
		e.Root += " (build with -g for its line)"
	}
	return err
}

// retActive reports whether reverse mode differentiates f's result (seeds
// its adjoint): a floating-point result, unless enzyme_const_return.
func (rt *root) retActive(f *ir.Func) bool {
	return irfacts.CarriesFloat(f.Sig.RetType) && !rt.flags.constReturn
}
