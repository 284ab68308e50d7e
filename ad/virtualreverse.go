package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// __enzyme_virtualreverse(f) returns the shadow of a function pointer or
// of a vtable pointer, for the program to store where a shadow object
// keeps its function pointers or its vtable (Enzyme builds a table of
// the function's augmented forward and reverse halves there).
//
// gozyme's shadow of a function is the function itself (constshadow.go)
// and a call through a pointer is differentiated by dispatching on the
// primal pointer (dispatch.go): the derivative code never calls through
// a shadow function pointer. A vtable holds function pointers, offsets
// and type-information pointers, none of which carries a derivative: the
// derivative code only ever reads through a shadow vtable pointer (a
// reverse sweep adds adjoints only where floats were read, a forward
// sweep stores tangents only where the primal stores, and no program
// stores into its vtables). So the shadow of either is the value itself,
// and the call returns its argument (converted to the declared type),
// whether a constant or a value read at run time.

const virtualReverseName = "__enzyme_virtualreverse"

// isVirtualReverse reports a callee that is Enzyme's
// __enzyme_virtualreverse (any declaration containing the name).
func isVirtualReverse(callee value.Value) bool {
	f, ok := irutil.StripCasts(callee).(*ir.Func)
	return ok && strings.Contains(f.Name(), virtualReverseName)
}

// lowerVirtualReverse replaces every __enzyme_virtualreverse call of m by
// its argument (invokes were made calls by invokedRoots).
func lowerVirtualReverse(m *ir.Module) error {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			var keep []ir.Instruction
			for _, inst := range b.Insts {
				call, ok := inst.(*ir.InstCall)
				if !ok || !isVirtualReverse(call.Callee) {
					keep = append(keep, inst)
					continue
				}
				if len(call.Args) != 1 {
					e := errorAt(f, call, "%s takes one argument (the function or vtable pointer), not %d", virtualReverseName, len(call.Args))
					e.Call = "the " + virtualReverseName + " call in '" + f.Name() + "'"
					return e
				}
				arg := irfacts.Unwrap(call.Args[0])
				var conv []ir.Instruction
				v, err := coerce(arg, call.Typ, &conv)
				if err != nil {
					e := errorAt(f, call, "%s: %v", virtualReverseName, err)
					e.Call = "the " + virtualReverseName + " call in '" + f.Name() + "'"
					return e
				}
				keep = append(keep, conv...)
				irutil.ReplaceAllUses(f, call, v)
			}
			b.Insts = keep
		}
	}
	return nil
}
