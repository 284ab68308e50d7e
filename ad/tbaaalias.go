package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// Type-based alias facts for the reloads of remat.go, as LLVM's own
// TypeBasedAA draws them: a load of a double tagged by clang (strict
// aliasing, clang's struct-path TBAA) is not changed by stores whose access
// tags LLVM's rules keep apart from the load's (a long index, a pointer).
// Reading it again after such stores is what LLVM does itself when it moves
// the load past them. Where a tag is missing (-fno-strict-aliasing, a
// memcpy, a union member: "omnipotent char"), or is not in the struct-path
// format clang emits, the accesses may alias.

// tbaaTagOf is the !tbaa access tag of inst (nil if none).
func tbaaTagOf(inst interface{}) *metadata.Tuple {
	md, ok := inst.(interface{ MDAttachments() []*metadata.Attachment })
	if !ok {
		return nil
	}
	for _, a := range md.MDAttachments() {
		if a.Name == "tbaa" {
			t, _ := a.Node.(*metadata.Tuple)
			return t
		}
	}
	return nil
}

// writeTags is what an instruction (or everything a call may run) writes,
// by TBAA access tags: typed false where some write has no usable tag.
type writeTags struct {
	typed bool
	tags  []*metadata.Tuple
}

// add adds the tag of writing instruction inst.
func (w *writeTags) add(inst interface{}) {
	t := tbaaTagOf(inst)
	if t == nil || !structPathTag(t) {
		w.typed = false
		return
	}
	w.tags = append(w.tags, t)
}

// disjointFrom reports whether none of w's writes may alias an access
// tagged load.
func (w writeTags) disjointFrom(load *metadata.Tuple) bool {
	if !w.typed || load == nil {
		return false
	}
	for _, t := range w.tags {
		if tbaaMayAlias(t, load) {
			return false
		}
	}
	return true
}

// instWriteTags is writeTags of one writer of the primal: a store, atomic
// or memory intrinsic by its own tag, a call of a defined function by
// everything it may run (callTags); anything else untyped.
func (d *differ) instWriteTags(inst ir.Instruction) writeTags {
	w := writeTags{typed: true}
	switch x := inst.(type) {
	case *ir.InstStore, *ir.InstAtomicRMW, *ir.InstCmpXchg:
		w.add(x)
	case *ir.InstCall:
		switch {
		case irfacts.IsMemTransfer(x), irfacts.IsMemSet(x):
			w.add(x)
		default:
			return d.callTags(x)
		}
	default:
		w.typed = false
	}
	return w
}

// callTags is writeTags of a call of a defined function: the tags of every
// write in every function it may reach through direct calls (their union
// covers recursion); untyped where one writes without a tag, or calls a
// function without a body, indirectly or by invoke.
func (d *differ) callTags(c *ir.InstCall) writeTags {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok || len(f.Blocks) == 0 {
		return writeTags{}
	}
	if w, ok := d.tagSums[f]; ok {
		return w
	}
	w := writeTags{typed: true}
	seen := map[*ir.Func]bool{f: true}
	work := []*ir.Func{f}
	for len(work) > 0 && w.typed {
		g := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range g.Blocks {
			if _, ok := b.Term.(*ir.TermInvoke); ok {
				w.typed = false
			}
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstStore, *ir.InstAtomicRMW, *ir.InstCmpXchg:
					w.add(x)
				case *ir.InstCall:
					switch {
					case irfacts.IsMemTransfer(x), irfacts.IsMemSet(x):
						w.add(x)
					case isFree(x), irfacts.IsMaskedStore(x):
						w.typed = false
					case writesNoMemory(x):
					default:
						h, ok := irutil.StripCasts(x.Callee).(*ir.Func)
						if !ok || len(h.Blocks) == 0 {
							w.typed = false
						} else if !seen[h] {
							seen[h] = true
							work = append(work, h)
						}
					}
				}
			}
		}
	}
	if !w.typed {
		w = writeTags{}
	}
	if d.tagSums == nil {
		d.tagSums = map[*ir.Func]writeTags{}
	}
	d.tagSums[f] = w
	return w
}

// structPathTag reports whether t is an access tag in the struct-path
// format clang emits: {base type, access type, offset[, constant]}, type
// nodes in the old format ({name, parent or fields...}).
func structPathTag(t *metadata.Tuple) bool {
	if len(t.Fields) < 3 {
		return false
	}
	base, ok1 := t.Fields[0].(*metadata.Tuple)
	access, ok2 := t.Fields[1].(*metadata.Tuple)
	_, ok3 := mdOffset(t.Fields[2])
	return ok1 && ok2 && ok3 && oldTypeNode(base) && oldTypeNode(access)
}

// oldTypeNode reports whether n is a type node of the old format: its name
// first.
func oldTypeNode(n *metadata.Tuple) bool {
	if len(n.Fields) == 0 {
		return false
	}
	_, ok := n.Fields[0].(*metadata.String)
	return ok
}

func mdOffset(f metadata.Field) (uint64, bool) {
	c, ok := f.(*constant.Int)
	if !ok || !c.X.IsUint64() {
		return 0, false
	}
	return c.X.Uint64(), true
}

// sameNode reports whether two metadata nodes are one (LLVM uniques them).
func sameNode(a, b *metadata.Tuple) bool {
	return a == b || (a != nil && b != nil && a.MetadataID >= 0 && a.MetadataID == b.MetadataID)
}

// tbaaParent is a scalar type node's parent (nil at the root).
func tbaaParent(n *metadata.Tuple) *metadata.Tuple {
	if len(n.Fields) < 2 {
		return nil
	}
	p, _ := n.Fields[1].(*metadata.Tuple)
	return p
}

// leastCommonType is LLVM's getLeastCommonType: the deepest common
// ancestor of two access types; nil where their roots differ.
func leastCommonType(a, b *metadata.Tuple) *metadata.Tuple {
	if sameNode(a, b) {
		return a
	}
	path := func(n *metadata.Tuple) []*metadata.Tuple {
		var p []*metadata.Tuple
		for ; n != nil && len(p) < 64; n = tbaaParent(n) {
			p = append(p, n)
		}
		return p
	}
	pa, pb := path(a), path(b)
	var common *metadata.Tuple
	for ia, ib := len(pa)-1, len(pb)-1; ia >= 0 && ib >= 0; ia, ib = ia-1, ib-1 {
		if !sameNode(pa[ia], pb[ib]) {
			break
		}
		common = pa[ia]
	}
	return common
}

// tbaaField is LLVM's TBAAStructTypeNode::getField for old-format nodes:
// the member of n at offset (a scalar's parent), and the offset within it.
func tbaaField(n *metadata.Tuple, offset uint64) (*metadata.Tuple, uint64, bool) {
	if len(n.Fields) < 2 {
		return nil, offset, true
	}
	if len(n.Fields) <= 3 {
		var cur uint64
		if len(n.Fields) == 3 {
			c, ok := mdOffset(n.Fields[2])
			if !ok {
				return nil, offset, false
			}
			cur = c
		}
		p, _ := n.Fields[1].(*metadata.Tuple)
		return p, offset - cur, true
	}
	idx := 0
	for i := 1; i+1 < len(n.Fields); i += 2 {
		cur, ok := mdOffset(n.Fields[i+1])
		if !ok {
			return nil, offset, false
		}
		if cur > offset {
			if i < 3 {
				return nil, offset, false // no member at the offset
			}
			idx = i - 2
			break
		}
	}
	if idx == 0 {
		idx = len(n.Fields) - 2
	}
	cur, ok := mdOffset(n.Fields[idx+1])
	if !ok {
		return nil, offset, false
	}
	p, _ := n.Fields[idx].(*metadata.Tuple)
	return p, offset - cur, true
}

// subobjectAccess is LLVM's mayBeAccessToSubobjectOf (old format, no
// generic tag): whether sub may access a subobject of what base accesses
// (decided), and then whether they may alias.
func subobjectAccess(base, sub, common *metadata.Tuple) (mayAlias, decided bool) {
	bBase, bAccess := base.Fields[0].(*metadata.Tuple), base.Fields[1].(*metadata.Tuple)
	if sameNode(bAccess, bBase) && sameNode(bAccess, common) {
		return true, true
	}
	sBase := sub.Fields[0].(*metadata.Tuple)
	sOff, _ := mdOffset(sub.Fields[2])
	off, _ := mdOffset(base.Fields[2])
	n := bBase
	for steps := 0; n != nil; steps++ {
		if steps > 256 {
			return true, true // malformed: may alias
		}
		if sameNode(n, sBase) {
			return off == sOff, true
		}
		var ok bool
		if n, off, ok = tbaaField(n, off); !ok {
			return true, true
		}
	}
	return false, false
}

// tbaaMayAlias is LLVM's matchAccessTags for two access tags: false only
// where TypeBasedAA proves the accesses apart.
func tbaaMayAlias(a, b *metadata.Tuple) bool {
	if a == nil || b == nil || sameNode(a, b) || !structPathTag(a) || !structPathTag(b) {
		return true
	}
	common := leastCommonType(a.Fields[1].(*metadata.Tuple), b.Fields[1].(*metadata.Tuple))
	if common == nil {
		return true // different type systems
	}
	if m, ok := subobjectAccess(a, b, common); ok {
		return m
	}
	if m, ok := subobjectAccess(b, a, common); ok {
		return m
	}
	return false
}

// tagShadowAccesses gives the loads and stores of shadow address sp that
// blk gained from index from on the !tbaa tag of primal access inst (if
// any, in clang's format): a shadow has its primal's layout, so the type
// the primal access names is the type of the shadow bytes it touches. The
// optimizer after AD may then keep a primal pointer the reverse reads (a
// vector's data) in a register across the shadow updates of a loop.
func tagShadowAccesses(blk *ir.Block, from int, sp value.Value, inst ir.Instruction) {
	tag := tbaaTagOf(inst)
	if tag == nil || !structPathTag(tag) {
		return
	}
	for _, x := range blk.Insts[from:] {
		switch x := x.(type) {
		case *ir.InstLoad:
			if x.Src == sp && tbaaTagOf(x) == nil {
				x.Metadata = append(x.Metadata, &metadata.Attachment{Name: "tbaa", Node: tag})
			}
		case *ir.InstStore:
			if x.Dst == sp && tbaaTagOf(x) == nil {
				x.Metadata = append(x.Metadata, &metadata.Attachment{Name: "tbaa", Node: tag})
			}
		}
	}
}
