package ad

import (
	"slices"
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
	level := escapeLevel(st, g)
	if e := d.globalEscapes[g]; e != nil {
		e.level = min(e.level, level)
		return
	}
	d.globalEscapes[g] = &globalEscape{level: level, err: errorAt(f, st, "%s puts the address of memory holding derivatives (%s) into global '%s', which has no shadow: derivatives read or written through pointers read back from the global would be lost (the global cannot carry the shadow pointer); pass that memory to the code using it as an argument instead of through the global, or keep in the global only pointers to data without derivatives", describe(st), describeValue(storedBase(st.Src)), g.Name())}
}

// escapeLevel is the fewest loads from root's memory that reach the
// memory store st writes (0 where not known).
func escapeLevel(st *ir.InstStore, root value.Value) int {
	ds, known := loadLevels(st.Dst, root, 0)
	if !known || len(ds) == 0 {
		return 0
	}
	return slices.Min(ds)
}

// loadLevels lists how many loads from the memory of root (a global or a
// parameter) reach pointer p (0: p points into root's memory itself), one
// entry per way; known is false where some way is not followed (a pointer
// a call returns, too deep).
func loadLevels(p, root value.Value, depth int) (levels []int, known bool) {
	if depth > 8 {
		return nil, false
	}
	var bases []value.Value
	activity.PointerBases(p, map[value.Value]bool{}, &bases)
	known = true
	for _, b := range bases {
		if b == root {
			levels = append(levels, 0)
			continue
		}
		switch x := b.(type) {
		case *ir.InstLoad:
			inner, ok := loadLevels(x.Src, root, depth+1)
			known = known && ok
			for _, l := range inner {
				levels = append(levels, l+1)
			}
		case *ir.InstCall:
			if mayPointInto(x, func(v value.Value) bool { return v == root }, map[value.Value]bool{}, 0) {
				known = false
			}
		}
	}
	return levels, known
}

// mayHoldStored reports whether pointer p may be one stored by escape e
// into root's memory, or reached from it: read with more loads from root
// than reach the memory e stores into (or with as many, where from
// reaches the memory holding the stored pointer).
func mayHoldStored(p, root value.Value, e *globalEscape, from bool) bool {
	if !holdsPointers(p.Type()) {
		return false
	}
	levels, known := loadLevels(p, root, 0)
	if !known {
		return true
	}
	for _, l := range levels {
		if l > e.level || (from && l == e.level) {
			return true
		}
	}
	return false
}

// paramEscapeError is the error for store st of a pointer with a shadow
// into the memory of root parameter p, passed without a shadow
// (enzyme_const), where f uses what it stores where derivatives may
// matter (as globalEscapeError's check of a global); nil otherwise.
func paramEscapeError(f *ir.Func, a *activity.Info, st *ir.InstStore, p *ir.Param) error {
	if !a.HasShadow(st.Src) {
		return nil
	}
	e := &globalEscape{level: escapeLevel(st, p)}
	if !readsBack(f, a, func(v value.Value) bool { return v == p }) && !usesLoaded(f, a, p, e) {
		return nil
	}
	return errorAt(f, st, "%s puts the address of memory holding derivatives (%s) into memory reached through parameter %d of '%s', which has no shadow (enzyme_const): derivatives read or written through pointers read back from there would be lost; pass it with enzyme_dup and a zeroed shadow", describe(st), describeValue(storedBase(st.Src)), paramIndex(f, p), f.Name())
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
	for _, g := range globalsByName(d.globalEscapes) {
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

// globalsByName are the keys of m, in the order of their names.
func globalsByName[V any](m map[*ir.Global]V) []*ir.Global {
	gs := make([]*ir.Global, 0, len(m))
	for g := range m {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name() < gs[j].Name() })
	return gs
}

// usesLoaded reports whether f, as analyzed by a, uses a pointer that may
// be the one escape e stored into root's memory (mayHoldStored) where
// derivatives may matter: a store of floats or pointers or an atomic
// through it, a float load through it whose value is useful or kept
// (floatKept), or a call given it or the memory holding it (other than
// free, realloc of the memory holding it, and the lifetime and debug
// intrinsics), which may read it from there.
func usesLoaded(f *ir.Func, a *activity.Info, root value.Value, e *globalEscape) bool {
	loaded := func(p value.Value) bool { return mayHoldStored(p, root, e, false) }
	var users map[value.Value][]interface{} // built on first use
	kept := func(l *ir.InstLoad) bool {
		if users == nil {
			users = usersOf(f)
		}
		return floatKept(users, l)
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if irfacts.CarriesFloat(x.ElemType) && loaded(x.Src) && (a.Useful[x] || kept(x)) {
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
				if irfacts.IsRealloc(x) {
					// Moves the memory holding the stored pointers, to a
					// block the program puts back into the global (a log
					// grown in place) where the reads from it are checked.
					if len(x.Args) > 0 && mayHoldStored(x.Args[0], root, e, false) {
						return true
					}
					continue
				}
				for _, arg := range x.Args {
					if mayHoldStored(arg, root, e, true) {
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
// keep it); users are f's (usersOf).
func floatKept(users map[value.Value][]interface{}, load *ir.InstLoad) bool {
	return !walkUses(users, load, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstStore:
			return staysIf(irfacts.Unwrap(x.Src) != v)
		case *ir.TermRet:
			return useFails
		case *ir.InstCall:
			if callee, ok := irutil.StripCasts(x.Callee).(*ir.Func); ok && len(callee.Blocks) > 0 {
				return useFails
			}
		}
		if r, ok := u.(value.Value); ok && irfacts.CarriesFloat(r.Type()) {
			return useFollows
		}
		return useStays
	})
}
