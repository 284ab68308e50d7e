package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// unmetError reports the first write of derivatives into memory that has
// no shadow to receive them (activity.unmet), which would otherwise lose
// the derivative silently: into a global, at a constant address, through a
// pointer returned by an unknown function. A parameter's need is its
// caller's to meet (summary.go) except at the root, where the user passed
// it without a shadow (enzyme_const): derivatives written there are
// dropped, as Enzyme drops them, when the function never reads that memory
// back; when it may, the gradient would miss that path, so it is an error.
func (d *differ) unmetError(f *ir.Func, a *activity.Info, root bool) error {
	for _, u := range a.Unmet {
		if u.Lost {
			continue // after the globals they were chosen with are noted
		}
		switch b := u.Base.(type) {
		case *ir.Param:
			if !root {
				continue
			}
			if u.Hard {
				return errorAt(f, u.At, "%s needs a shadow of parameter %d of '%s', which is passed without one (enzyme_const): pass it with enzyme_dup", describeAt(u.At), paramIndex(f, b), f.Name())
			}
			if st, ok := u.At.(*ir.InstStore); ok && holdsPointers(st.Src.Type()) {
				if err := paramEscapeError(f, a, st, b); err != nil {
					return err
				}
				continue // a pointer stored into shadowed memory: shadowlessPointerStore
			}
			if !readsBackBesides(f, a, func(v value.Value) bool { return v == b }, ownRead(f, u.At)) {
				continue
			}
			return errorAt(f, u.At, "%s writes derivatives into memory reached through parameter %d of '%s', which has no shadow (enzyme_const), and the function reads that memory back: the derivative through it would be lost; pass it with enzyme_dup and a zeroed shadow", describeAt(u.At), paramIndex(f, b), f.Name())
		case *ir.Global:
			d.noteGlobalUnmet(f, a, u, b)
			if b.Immutable {
				continue // a constant global is never written
			}
			if u.Hard && !d.inactiveGlobals[b] {
				return errorAt(f, u.At, "%s needs a shadow of global '%s', which has none (a pointer into it is chosen or returned together with pointers to memory holding derivatives); declare it __attribute__((enzyme_inactive)) if it carries no derivative", describeAt(u.At), b.Name())
			}
			d.noteLostGlobal(f, u, b)
		case *ir.InstCall:
			return errorAt(f, u.At, "%s writes derivatives into memory returned by %s, which has no shadow (a function without a body that is no allocation)", describeAt(u.At), describe(b))
		default:
			return errorAt(f, u.At, "%s writes derivatives into memory at %s, which has no shadow", describeAt(u.At), describeValue(b))
		}
	}
	checked := map[value.Value]bool{} // allocations found never read back
	for _, u := range a.Unmet {
		if u.Lost && !checked[u.Base] {
			if err := d.lostLocalError(f, a, u); err != nil {
				return err
			}
			checked[u.Base] = true
		}
	}
	return nil
}

// noteLostGlobal records that u writes derivatives into global g, which
// has no shadow: an error once some differentiated function reads g back
// where it matters (lostGlobalError), unless g is declared inactive.
func (d *differ) noteLostGlobal(f *ir.Func, u activity.Unmet, g *ir.Global) {
	if d.inactiveGlobals[g] {
		return // declared inactive: derivatives written there are dropped
	}
	if _, ok := d.lostGlobals[g]; !ok {
		d.lostGlobals[g] = errorAt(f, u.At, "%s writes derivatives into global '%s', which has no shadow, and the differentiated code reads it back: give the function that memory as an argument with enzyme_dup, keep the derivative out of globals, or declare the global __attribute__((enzyme_inactive)) if it carries none", describeAt(u.At), g.Name())
	}
}

func describeAt(at ir.Instruction) string {
	if at == nil {
		return "returning a pointer"
	}
	return describe(at)
}

// readsBack reports whether f, as analyzed by a, reads memory reachable
// from pointers whose base is chosen by root in a way that matters to the
// derivatives: a useful float load, a copy into memory with a shadow, a
// call that carries derivatives given such a pointer, or the pointer
// escaping (stored, converted to an integer, returned). Pointers loaded
// from that memory count as reaching it too.
func readsBack(f *ir.Func, a *activity.Info, root func(value.Value) bool) bool {
	return readsBackExcept(f, a, root, func(value.Value) bool { return false })
}

// readsBackExcept is readsBack where a store of such a pointer into memory
// that into accepts (a global whose own readers are checked) is no escape.
func readsBackExcept(f *ir.Func, a *activity.Info, root func(value.Value) bool, into func(value.Value) bool) bool {
	return readsBackWith(f, a, root, into, nil)
}

// readsBackBesides is readsBack with the reads of instruction skip (nil:
// none) left out.
func readsBackBesides(f *ir.Func, a *activity.Info, root func(value.Value) bool, skip ir.Instruction) bool {
	return readsBackWith(f, a, root, func(value.Value) bool { return false }, skip)
}

// ownRead returns writer w where its own reads of the memory it writes are
// no read-back: a call differentiated by a BLAS/LAPACK rule (which reads an
// output's old value before writing it) that runs at most once per call of
// f (in no cycle of f's blocks); nil otherwise.
func ownRead(f *ir.Func, w ir.Instruction) ir.Instruction {
	call, ok := w.(*ir.InstCall)
	if !ok || !isBlasCall(call) {
		return nil
	}
	var home *ir.Block
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if inst == w {
				home = b
			}
		}
	}
	if home == nil {
		return nil
	}
	// Is home reachable from its own successors?
	seen := map[*ir.Block]bool{}
	stack := append([]*ir.Block(nil), home.Term.Succs()...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b == home {
			return nil
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		stack = append(stack, b.Term.Succs()...)
	}
	return w
}

func readsBackWith(f *ir.Func, a *activity.Info, root func(value.Value) bool, into func(value.Value) bool, skip ir.Instruction) bool {
	reaches := func(ptr value.Value) bool { return mayPointInto(ptr, root, map[value.Value]bool{}, 0) }
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if skip != nil && inst == skip {
				continue
			}
			switch x := inst.(type) {
			case *ir.InstLoad:
				if irfacts.CarriesFloat(x.ElemType) && a.Useful[x] && reaches(x.Src) {
					return true
				}
			case *ir.InstStore:
				if holdsPointers(x.Src.Type()) && reaches(x.Src) && !into(x.Dst) {
					return true
				}
			case *ir.InstPtrToInt:
				if reaches(x.From) {
					return true
				}
			case *ir.InstCall:
				switch {
				case irfacts.IsMemSet(x) || isDebugIntrinsic(x) || strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime."):
				case irfacts.IsMemTransfer(x):
					// Into memory with a shadow, or any copy of bytes that
					// may be floats: memory without a shadow holding a copy
					// of derivatives' floats is taken as inactive, and what
					// reads it gets no derivative (a struct array copied out
					// of a global scratch buffer by memcpy).
					if reaches(x.Args[1]) && (a.HasShadow(x.Args[0]) || irfacts.ContainsFloatBytes(copyPointee(x, 1))) {
						return true
					}
				case a.Useful[x] || a.CallTouchesActiveMemory(x, func(*ir.InstCall) bool { return true }):
					for _, arg := range x.Args {
						if holdsPointers(arg.Type()) && reaches(arg) {
							return true
						}
					}
				}
			}
		}
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && holdsPointers(r.X.Type()) && reaches(r.X) {
			return true
		}
	}
	return false
}

// mayPointInto reports whether pointer v may point into memory whose base
// root chooses: through GEPs, casts, phis and selects, pointers loaded from
// such memory, and pointers returned by calls (the callee's returned
// pointers, its parameters standing for the call's arguments).
func mayPointInto(v value.Value, root func(value.Value) bool, seen map[value.Value]bool, depth int) bool {
	var bases []value.Value
	activity.PointerBases(v, seen, &bases)
	for _, b := range bases {
		if root(b) {
			return true
		}
		switch x := b.(type) {
		case *ir.InstLoad:
			if mayPointInto(x.Src, root, seen, depth) {
				return true
			}
		case *ir.InstCall:
			callee, ok := x.Callee.(*ir.Func)
			if !ok || len(callee.Blocks) == 0 || irfacts.IsAllocation(x) || depth > 8 {
				continue
			}
			args := map[value.Value]value.Value{}
			for i, p := range callee.Params {
				if i < len(x.Args) {
					args[p] = irfacts.Unwrap(x.Args[i])
				}
			}
			inner := func(w value.Value) bool {
				if a, ok := args[w]; ok {
					return mayPointInto(a, root, seen, depth)
				}
				return root(w)
			}
			for _, cb := range callee.Blocks {
				if r, ok := cb.Term.(*ir.TermRet); ok && r.X != nil && holdsPointers(r.X.Type()) &&
					mayPointInto(r.X, inner, map[value.Value]bool{}, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// noteAnalysis keeps the activity of a function whose derivative is
// generated, for lostGlobalError.
func (d *differ) noteAnalysis(f *ir.Func, a *activity.Info) {
	d.analyzed = append(d.analyzed, analyzedFunc{f, a})
}

// analyzedFunc is a function whose derivative was generated, with its
// activity.
type analyzedFunc struct {
	f *ir.Func
	a *activity.Info
}

// lostGlobalError is the error for a global that some differentiated
// function writes derivatives into (unmetError) and some differentiated
// function reads back where they matter; nil when there is none.
func (d *differ) lostGlobalError() error {
	var outside []*ir.Func
	computed := false
	undifferentiated := func() []*ir.Func {
		if !computed {
			outside, computed = d.undifferentiatedCallees(), true
		}
		return outside
	}
	if err := d.globalEscapeError(undifferentiated); err != nil {
		return err
	}
	for _, g := range globalsByName(d.lostGlobals) {
		for _, an := range d.analyzed {
			if readsBack(an.f, an.a, func(v value.Value) bool { return v == g }) {
				return d.lostGlobals[g]
			}
		}
		if readBackOutside(undifferentiated(), g) {
			return d.lostGlobals[g]
		}
	}
	return nil
}

// undifferentiatedCallees are the functions with bodies that the
// differentiated code calls, directly or through their callees, without
// differentiating them (they are given no derivatives).
func (d *differ) undifferentiatedCallees() []*ir.Func {
	done := map[*ir.Func]bool{}
	for _, an := range d.analyzed {
		done[an.f] = true
		if d.bits != nil {
			done[d.bits.original(an.f)] = true
		}
	}
	for orig, p := range d.prep {
		if done[p] {
			done[orig] = true // differentiated as its prepared copy
		}
	}
	var out, work []*ir.Func
	push := func(f *ir.Func) {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok {
					continue
				}
				callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
				if ok && len(callee.Blocks) > 0 && !done[callee] {
					done[callee] = true
					work = append(work, callee)
					out = append(out, callee)
				}
			}
		}
	}
	for _, an := range d.analyzed {
		push(an.f)
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		push(f)
	}
	return out
}

// readBackOutside reports whether one of the functions outside (those the
// differentiated code calls without differentiating them) reads global
// g's memory where a derivative would matter: a float loaded from it,
// floats read or written through a pointer loaded from it (a pointer to
// memory holding derivatives, kept in the global), or such a pointer
// passed on or copied from. Without a body of its own in the derivative,
// such a function's use of what the global holds is invisible to
// activity, so its derivative would be lost.
func readBackOutside(outside []*ir.Func, g *ir.Global) bool {
	reaches := func(ptr value.Value) bool {
		return mayPointInto(ptr, func(v value.Value) bool { return v == g }, map[value.Value]bool{}, 0)
	}
	for _, f := range outside {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstLoad:
					if irfacts.CarriesFloat(x.ElemType) && reaches(x.Src) {
						return true
					}
				case *ir.InstStore:
					// Floats written through a pointer the global holds (not
					// into the global's own memory, which only drops what
					// it held).
					if irfacts.CarriesFloat(x.Src.Type()) && !pointsDirectlyInto(x.Dst, g) && reaches(x.Dst) {
						return true
					}
				case *ir.InstCall:
					switch {
					case irfacts.IsMemSet(x) || isDebugIntrinsic(x) || strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime."),
						irfacts.IsAllocation(x) || isFree(x) || irfacts.IsRealloc(x):
					case irfacts.IsMemTransfer(x):
						if reaches(x.Args[1]) {
							return true
						}
					default:
						for _, arg := range x.Args {
							if holdsPointers(arg.Type()) && !pointsDirectlyInto(arg, g) && reaches(arg) {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

// pointsDirectlyInto reports a pointer whose every base is global g
// itself (not a pointer loaded from it).
func pointsDirectlyInto(ptr value.Value, g *ir.Global) bool {
	return activity.AllBases(ptr, func(b value.Value) bool { return b == g })
}
