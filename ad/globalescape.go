package ad

import (
	"sort"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Pointers to memory holding derivatives kept in a global without a shadow.
//
// A global has no shadow, so a pointer read from it has none either, and
// activity treats the memory it reaches as the global's own: derivatives
// written through it are dropped (lostGlobalError allows that where
// nothing reads them back), floats read through it carry none. That holds
// only while the global holds pointers to memory without derivatives. Once
// a differentiated function stores into the global's memory a pointer that
// has a shadow (`kept = out;` for an `out` whose floats carry
// derivatives), a pointer read back from the global may be that one: a
// derivative written through it (`kept[1] += x*y`) lands in memory the
// function reads back under its own name (`out[1]`), and is lost there; a
// float read through it lacks the derivative `out` holds. Its shadow
// pointer, which would route them, was lost at the store.
//
// So such a store is an error where the global's memory is used where
// derivatives matter: a derivative written through a pointer read from it
// (globalEscape.aliasWrite), or the reads lostGlobalError looks for
// (readsBack and readBackOutside, with the global as root). A global that
// holds the pointer only as a cache never used for floats with
// derivatives, and a global holding pointers without shadows (inactive
// data), are fine.

// globalEscape is what is known of one global without a shadow.
type globalEscape struct {
	// stored: the error for the first store of a pointer with a shadow
	// into the global's memory; nil if none was seen.
	stored *Error
	// aliasWrite: derivatives are written through a pointer read from the
	// global's memory (not into the global itself).
	aliasWrite bool
}

// noteGlobalUnmet records, for global g without a shadow, what unmet need
// u of f (analyzed as a) tells of pointers kept in it: a store of a
// pointer with a shadow into its memory, or derivatives written through a
// pointer read from it.
func (d *differ) noteGlobalUnmet(f *ir.Func, a *activity.Info, u activity.Unmet, g *ir.Global) {
	if g.Immutable || u.At == nil {
		return
	}
	e := d.globalEscapes[g]
	if e == nil {
		e = &globalEscape{}
		d.globalEscapes[g] = e
	}
	if st, ok := u.At.(*ir.InstStore); ok && holdsPointers(st.Src.Type()) && a.HasShadow(st.Src) {
		if e.stored == nil {
			e.stored = errorAt(f, st, "%s puts the address of memory holding derivatives (%s) into global '%s', which has no shadow: derivatives read or written through pointers read back from the global would be lost (the global cannot carry the shadow pointer); pass that memory to the code using it as an argument instead of through the global, or keep in the global only pointers to data without derivatives", describe(st), describeValue(storedBase(st.Src)), g.Name())
		}
		return
	}
	if writesThroughLoaded(u.At, g) {
		e.aliasWrite = true
	}
}

// storedBase is the pointer to name in the error for a stored pointer:
// its single base (PointerBases) where it has one, else itself.
func storedBase(p value.Value) value.Value {
	var bases []value.Value
	activity.PointerBases(p, map[value.Value]bool{}, &bases)
	if len(bases) == 1 {
		return bases[0]
	}
	return p
}

// writesThroughLoaded reports whether writer at (a store, or any other
// instruction given pointers) writes through a pointer read from global
// g's memory rather than into g itself.
func writesThroughLoaded(at ir.Instruction, g *ir.Global) bool {
	loaded := func(p value.Value) bool {
		return holdsPointers(p.Type()) && !pointsDirectlyInto(p, g) &&
			mayPointInto(p, func(v value.Value) bool { return v == g }, map[value.Value]bool{}, 0)
	}
	if st, ok := at.(*ir.InstStore); ok {
		return loaded(st.Dst)
	}
	ops, ok := at.(interface{ Operands() []*value.Value })
	if !ok {
		return true // unknown: assume it may
	}
	for _, op := range ops.Operands() {
		if *op != nil && loaded(*op) {
			return true
		}
	}
	return false
}

// globalEscapeError is the error for the first global (by name) that a
// differentiated function stores a pointer with a shadow into, and whose
// memory is used where derivatives matter; nil if none. outside lists the
// functions called without being differentiated (computed on demand).
func (d *differ) globalEscapeError(outside func() []*ir.Func) error {
	var names []string
	byName := map[string]*ir.Global{}
	for g, e := range d.globalEscapes {
		if e.stored != nil {
			names = append(names, g.Name())
			byName[g.Name()] = g
		}
	}
	sort.Strings(names)
	for _, n := range names {
		g := byName[n]
		e := d.globalEscapes[g]
		if e.aliasWrite {
			return e.stored
		}
		for _, an := range d.analyzed {
			if readsBack(an.f, an.a, func(v value.Value) bool { return v == g }) {
				return e.stored
			}
		}
		if readBackOutside(outside(), g) {
			return e.stored
		}
	}
	return nil
}
