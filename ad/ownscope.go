package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// Alias scopes of the gradient's own shadows. The shadow of an allocation
// of the primal (an alloca, malloc, new) is a fresh allocation of the
// gradient. Where the primal never lets the allocation's address out
// (capture.go: never stored into memory as a value, never passed to a call
// that may keep it, never returned), the gradient never lets the shadow's
// out either: shadow stores of pointers mirror the primal's stores of
// pointers, so the shadow's address lives in registers, gozyme's own slots
// and caches, nowhere a pointer the primal reads from memory could come
// from. A load of the primal (its forward copy, or a reload in the reverse
// sweep, remat.go) then never reads such a shadow, whatever the caller
// passes (a shadow that is its primal, or overlaps it, included: the
// caller's memory holds no address of these shadows). The optimizer after
// AD cannot prove it where the shadow's address has been passed to
// operator delete or the shadow lifetime calls (shadowlife.go): each
// gradient gets a scope "own shadows" in a domain of its own;
// accesses through such shadows carry !alias.scope, the primal's loads
// !noalias. Nothing is claimed for the caller's shadows, which may be the
// primal's memory.

// markOwnShadow records the loads and stores through shadow pointer sp
// emitted into blk from index from on, when sp is the shadow of primal
// pointer p into uncaptured allocations of the primal only.
func (r *reverseGen) markOwnShadow(blk *ir.Block, from int, sp, p value.Value) {
	if r.d.gpu || r.parallel || !r.ownObjects(p) {
		return
	}
	for _, inst := range blk.Insts[from:] {
		switch x := inst.(type) {
		case *ir.InstLoad:
			if x.Src == sp {
				r.noteOwnAccess(x)
			}
		case *ir.InstStore:
			if x.Dst == sp {
				r.noteOwnAccess(x)
			}
		}
	}
}

func (r *reverseGen) noteOwnAccess(inst ir.Instruction) {
	if r.ownAccess == nil {
		r.ownAccess = map[ir.Instruction]bool{}
	}
	r.ownAccess[inst] = true
}

// ownObjects reports whether primal pointer p points into allocations of
// the primal (or null) whose addresses stay in them.
func (r *reverseGen) ownObjects(p value.Value) bool {
	objs, opaque, known := objectsOf(irfacts.Unwrap(p), true)
	if !known || opaque || len(objs) == 0 {
		return false
	}
	for _, o := range objs {
		switch x := o.(type) {
		case *ir.InstAlloca:
		case *ir.InstCall:
			if !irfacts.IsAllocation(x) {
				return false
			}
		default:
			return false
		}
		if r.blockOf[o] == nil || !r.uncaptured(o) {
			return false
		}
	}
	return true
}

// notePrimalReload records a load of primal memory emitted in the reverse
// sweep (a recomputed load, remat.go).
func (r *reverseGen) notePrimalReload(l *ir.InstLoad) {
	if r.primalReload == nil {
		r.primalReload = map[*ir.InstLoad]bool{}
	}
	r.primalReload[l] = true
}

// applyOwnScope attaches the own-shadow scope: !alias.scope on the
// accesses markOwnShadow recorded, !noalias on the primal's loads (forward
// copies and reloads).
func (r *reverseGen) applyOwnScope() {
	if len(r.ownAccess) == 0 {
		return
	}
	name := r.g.Name()
	domain := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: "gozyme own shadows domain " + name}}}
	scope := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: "gozyme own shadows " + name}, domain}}
	list := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{scope}}
	for _, b := range r.g.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if r.ownAccess[x] {
					x.Metadata = addScope(x.Metadata, "alias.scope", scope, list)
				} else if p, ok := r.primalOf[x].(*ir.InstLoad); (ok && r.blockOf[p] != nil) || r.primalReload[x] {
					x.Metadata = addScope(x.Metadata, "noalias", scope, list)
				}
			case *ir.InstStore:
				if r.ownAccess[x] {
					x.Metadata = addScope(x.Metadata, "alias.scope", scope, list)
				}
			}
		}
	}
}
