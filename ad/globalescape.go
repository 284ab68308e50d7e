package ad

import (
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
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
// derivatives may matter: floats (or pointers) written through a pointer
// read from it, with derivatives or without (an overwrite the reverse
// sweep must see), floats read through one that feed derivatives or are
// kept anywhere, such a pointer given to a call (usesLoaded), or the
// reads lostGlobalError looks for (readsBack and readBackOutside, with
// the global as root). Only pointers read with more loads from the global
// than reach the memory stored into may be the stored one (loadLevels): a
// log of calls kept in a global (records[n].x = x) may update its own
// fields. A global that holds the pointer only as a record never used for
// floats with derivatives, and a global holding pointers without shadows
// (inactive data), are fine.

// globalEscape is a store of a pointer with a shadow into the memory of
// a global without one.
type globalEscape struct {
	err *Error // naming the first such store
	// level: the fewest loads from the global that reach the memory
	// stored into (0: the global itself); pointers read with more loads
	// may be the stored one.
	level int
}

// noteGlobalUnmet records, for global g without a shadow, a store by f
// (analyzed as a) of a pointer with a shadow into g's memory, which unmet
// need u may be.
func (d *differ) noteGlobalUnmet(f *ir.Func, a *activity.Info, u activity.Unmet, g *ir.Global) {
	st, ok := u.At.(*ir.InstStore)
	if !ok || g.Immutable || !holdsPointers(st.Src.Type()) || !a.HasShadow(st.Src) {
		return
	}
	level := 0
	if ds, known := loadLevels(st.Dst, g, 0); known && len(ds) > 0 {
		level = ds[0]
		for _, l := range ds {
			level = min(level, l)
		}
	}
	if e := d.globalEscapes[g]; e != nil {
		e.level = min(e.level, level)
		return
	}
	d.globalEscapes[g] = &globalEscape{level: level, err: errorAt(f, st, "%s puts the address of memory holding derivatives (%s) into global '%s', which has no shadow: derivatives read or written through pointers read back from the global would be lost (the global cannot carry the shadow pointer); pass that memory to the code using it as an argument instead of through the global, or keep in the global only pointers to data without derivatives", describe(st), describeValue(storedBase(st.Src)), g.Name())}
}

// loadLevels lists how many loads from global g's memory reach pointer p
// (0: p points into g itself), one entry per way; known is false where
// some way is not followed (a pointer a call returns, too deep).
func loadLevels(p value.Value, g *ir.Global, depth int) (levels []int, known bool) {
	if depth > 8 {
		return nil, false
	}
	var bases []value.Value
	activity.PointerBases(p, map[value.Value]bool{}, &bases)
	known = true
	for _, b := range bases {
		switch x := b.(type) {
		case *ir.Global:
			if x == g {
				levels = append(levels, 0)
			}
		case *ir.InstLoad:
			inner, ok := loadLevels(x.Src, g, depth+1)
			known = known && ok
			for _, l := range inner {
				levels = append(levels, l+1)
			}
		case *ir.InstCall:
			if mayPointInto(x, func(v value.Value) bool { return v == g }, map[value.Value]bool{}, 0) {
				known = false
			}
		}
	}
	return levels, known
}

// mayHoldStored reports whether pointer p may be one stored by escape e
// into g's memory, or reached from it: read with more loads from g than
// reach the memory e stores into.
func mayHoldStored(p value.Value, g *ir.Global, e *globalEscape) bool {
	if !holdsPointers(p.Type()) {
		return false
	}
	levels, known := loadLevels(p, g, 0)
	if !known {
		return true
	}
	for _, l := range levels {
		if l > e.level {
			return true
		}
	}
	return false
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

// globalEscapeError is the error for the first global (by name) that a
// differentiated function stores a pointer with a shadow into, and whose
// memory is used where derivatives matter; nil if none. outside lists the
// functions called without being differentiated (computed on demand).
func (d *differ) globalEscapeError(outside func() []*ir.Func) error {
	var names []string
	byName := map[string]*ir.Global{}
	for g := range d.globalEscapes {
		names = append(names, g.Name())
		byName[g.Name()] = g
	}
	sort.Strings(names)
	for _, n := range names {
		g := byName[n]
		e := d.globalEscapes[g]
		for _, an := range d.analyzed {
			if readsBack(an.f, an.a, func(v value.Value) bool { return v == g }) || usesLoaded(an.f, an.a, g, e) {
				return e.err
			}
		}
		if readBackOutside(outside(), g) {
			return e.err
		}
	}
	return nil
}

// usesLoaded reports whether f, as analyzed by a, uses a pointer that may
// be the one escape e stored into g's memory (mayHoldStored) where
// derivatives may matter: a store of floats or pointers or an atomic
// through it, a float load through it whose value is useful or kept
// (floatKept), or a call given it (other than free and the lifetime and
// debug intrinsics).
func usesLoaded(f *ir.Func, a *activity.Info, g *ir.Global, e *globalEscape) bool {
	loaded := func(p value.Value) bool { return mayHoldStored(p, g, e) }
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if irfacts.CarriesFloat(x.ElemType) && loaded(x.Src) && (a.Useful[x] || floatKept(f, x)) {
					return true
				}
			case *ir.InstStore:
				if (irfacts.CarriesFloat(x.Src.Type()) || holdsPointers(x.Src.Type())) && loaded(x.Dst) {
					return true
				}
			case *ir.InstAtomicRMW:
				if loaded(x.Dst) {
					return true
				}
			case *ir.InstCmpXchg:
				if loaded(x.Ptr) {
					return true
				}
			case *ir.InstCall:
				if isDebugIntrinsic(x) || strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime.") || isFree(x) {
					continue
				}
				for _, arg := range x.Args {
					if loaded(arg) {
						return true
					}
				}
			}
		}
	}
	return false
}

// floatKept reports whether the value of load, or a float computed from
// it, is stored, returned or given to a function with a body (which may
// keep it).
func floatKept(f *ir.Func, load *ir.InstLoad) bool {
	set := map[value.Value]bool{load: true}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				v, isValue := inst.(value.Value)
				uses := false
				for _, op := range inst.Operands() {
					if *op != nil && set[irfacts.Unwrap(*op)] {
						uses = true
						break
					}
				}
				if !uses || (isValue && set[v]) {
					continue
				}
				switch x := inst.(type) {
				case *ir.InstStore:
					if set[irfacts.Unwrap(x.Src)] {
						return true
					}
					continue
				case *ir.InstCall:
					if callee, ok := irutil.StripCasts(x.Callee).(*ir.Func); ok && len(callee.Blocks) > 0 {
						return true
					}
				}
				if isValue && irfacts.CarriesFloat(v.Type()) {
					set[v] = true
					changed = true
				}
			}
			if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && set[irfacts.Unwrap(r.X)] {
				return true
			}
		}
	}
	return false
}
