package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// __enzyme_batch(f, enzyme_width, N, args...) evaluates f on N lanes and
// returns the N results (as the leaves of the declared struct or array,
// lane after lane). Each parameter takes N values, one per lane
// (enzyme_vector, the default), or one value all lanes share
// (enzyme_scalar). The lanes run one after the other: batching is the
// optimizer's to find.
func (d *differ) lowerBatch(rt *root) error {
	args := rt.call.Args
	if len(args) > 0 && hasSRet(args[0]) {
		rt.sret = irfacts.Unwrap(args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		return rt.errorf("__enzyme_batch without a function to evaluate")
	}
	fns, err := resolveFuncs(irutil.StripCasts(irfacts.Unwrap(args[0])), map[value.Value]bool{})
	if err != nil {
		return rt.errorf("the function to evaluate (the first argument) is %v", err)
	}
	if len(fns) != 1 {
		return rt.errorf("__enzyme_batch needs one known function, not a choice made at run time")
	}
	f := fns[0]
	rest := args[1:]
	width := 0
	for j := 0; j < len(rest); j++ {
		if markerName(rest[j]) != "enzyme_width" {
			continue
		}
		n, ok := (value.Value)(nil), j+1 < len(rest)
		if ok {
			n = irfacts.Unwrap(rest[j+1])
		}
		c, isInt := n.(*constant.Int)
		if !ok || !isInt || c.X.Sign() <= 0 || c.X.Int64() > maxWidth {
			return rt.errorf("enzyme_width must be followed by a constant width from 1 to %d", maxWidth)
		}
		width = int(c.X.Int64())
		rest = append(append([]value.Value(nil), rest[:j]...), rest[j+2:]...)
		break
	}
	if width == 0 {
		return rt.errorf("__enzyme_batch needs enzyme_width and the number of lanes")
	}
	lanes := make([][]value.Value, width)
	j := 0
	for i := range f.Params {
		shared := false
		if j < len(rest) {
			switch markerName(rest[j]) {
			case "enzyme_scalar":
				shared = true
				j++
			case "enzyme_vector":
				j++
			}
		}
		n := width
		if shared {
			n = 1
		}
		if j+n > len(rest) {
			return rt.errorf("too few arguments for '%s': parameter %d of %d needs %d values", f.Name(), i+1, len(f.Params), n)
		}
		for k := 0; k < width; k++ {
			v := irfacts.Unwrap(rest[j])
			if !shared {
				v = irfacts.Unwrap(rest[j+k])
			}
			lanes[k] = append(lanes[k], v)
		}
		j += n
	}
	if j != len(rest) {
		return rt.errorf("too many arguments for '%s': %d given for %d parameters of %d lanes", f.Name(), len(rest), len(f.Params), width)
	}
	var pre []ir.Instruction
	var outs []value.Value
	for k := 0; k < width; k++ {
		callArgs := make([]value.Value, len(f.Params))
		for i, p := range f.Params {
			v, err := coerce(lanes[k][i], p.Typ, &pre)
			if err != nil {
				return rt.errorf("lane %d, parameter %d of '%s': %v", k+1, i+1, f.Name(), err)
			}
			callArgs[i] = v
		}
		c := ir.NewCall(f, callArgs...)
		pre = append(pre, c)
		if !types.Equal(f.Sig.RetType, types.Void) {
			outs = append(outs, leafValues(c, &pre)...)
		}
	}
	result, err := rt.returnValues(outs, &pre)
	if err != nil {
		return err
	}
	rt.replaceCall(pre, result)
	return nil
}
