package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Writes through a pointer chosen between memory a writable global reaches
// and memory the function allocates are left to be lost alike on both
// paths (package activity, globalchoice.go); lostLocalError checks that
// nothing reads the allocation back.

// lostLocalError is unmetError's check of an allocation left without a
// shadow by leaveWithGlobal.
func (d *differ) lostLocalError(f *ir.Func, a *activity.Info, u activity.Unmet) error {
	root := func(v value.Value) bool { return v == u.Base }
	intoGlobal := func(dst value.Value) bool {
		return activity.AllBases(dst, func(b value.Value) bool { return d.lostIntoGlobal(b, 0) })
	}
	if !readsBackExcept(f, a, root, intoGlobal) {
		return nil
	}
	return errorAt(f, u.At, "%s writes derivatives through a pointer chosen between memory of a global without a shadow and %s, which the function reads back: the derivative written there would be lost; give the global's memory to the function as an argument with enzyme_dup, or keep the two apart", describeAt(u.At), describeValue(u.Base))
}

// lostIntoGlobal reports memory of a writable global, or read from one,
// whose lost writes lostGlobalError checks (or that is declared
// inactive: derivatives written there are dropped).
func (d *differ) lostIntoGlobal(b value.Value, depth int) bool {
	switch x := b.(type) {
	case *ir.Global:
		_, lost := d.lostGlobals[x]
		return lost || d.inactiveGlobals[x]
	case *ir.InstLoad:
		if depth > 8 {
			return false
		}
		return activity.AllBases(x.Src, func(s value.Value) bool { return d.lostIntoGlobal(s, depth+1) })
	}
	return false
}
