package ad

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
)

// Loop hints. The llvm.loop attachment on a loop's latch branch says what the
// optimizer before AD already did to the loop, or what the programmer asked
// of it: vectorized already (a vector body or its scalar remainder), not to
// be unrolled at run time, a pragma's width or count. A copy of the loop in
// the forward sweep, or in a forward-mode derivative, keeps all of it (but
// its locations, copyHint). The loop's reverse keeps the hints about
// vectorizing and unrolling: it runs as many iterations as the loop, so the
// reverse of a scalar remainder (a few iterations) is not vectorized and
// unrolled again by the optimizer after AD, with the run-time checks, the
// prologue and the dispatch that cost on every entry.

// loopIDOf returns the llvm.loop attachment in md, or nil.
func loopIDOf(md ir.Metadata) *metadata.Tuple {
	for _, a := range md {
		if a.Name == "llvm.loop" {
			if t, ok := a.Node.(*metadata.Tuple); ok {
				return t
			}
		}
	}
	return nil
}

// termMetadata returns the attachments of a branching terminator.
func termMetadata(t ir.Terminator) *ir.Metadata {
	switch t := t.(type) {
	case *ir.TermBr:
		return &t.Metadata
	case *ir.TermCondBr:
		return &t.Metadata
	case *ir.TermSwitch:
		return &t.Metadata
	}
	return nil
}

// hintName is the name a loop ID's operand states ("llvm.loop.isvectorized"),
// or "" for an operand that is not a named hint.
func hintName(f metadata.Field) string {
	t, ok := f.(*metadata.Tuple)
	if !ok || len(t.Fields) == 0 {
		return ""
	}
	s, ok := t.Fields[0].(*metadata.String)
	if !ok {
		return ""
	}
	return s.Value
}

// newLoopID adds a distinct loop ID with the given hints to the module.
func (d *differ) newLoopID(hints []metadata.Field) *metadata.Tuple {
	t := &metadata.Tuple{MetadataID: -1, Distinct: true}
	t.Fields = append([]metadata.Field{t}, hints...)
	d.m.MetadataDefs = append(d.m.MetadataDefs, t)
	return t
}

// loopIDCopies maps a source loop ID to its copy in one generated function.
type loopIDCopies map[*metadata.Tuple]*metadata.Tuple

// copyLoopID gives to, a copy of the terminator from, the copy of from's
// loop ID with its hints (copyHint): one copy per source ID in the function
// copies is kept for, so the latches of a loop with several still agree
// (LLVM drops the hints of a loop whose latches disagree).
func (d *differ) copyLoopID(copies loopIDCopies, from, to ir.Terminator) {
	fm, tm := termMetadata(from), termMetadata(to)
	if fm == nil || tm == nil {
		return
	}
	id := loopIDOf(*fm)
	if id == nil {
		return
	}
	c, ok := copies[id]
	if !ok {
		var hints []metadata.Field
		for _, f := range id.Fields[1:] {
			if copyHint(hintName(f)) {
				hints = append(hints, f)
			}
		}
		c = d.newLoopID(hints)
		copies[id] = c
	}
	*tm = append(*tm, &metadata.Attachment{Name: "llvm.loop", Node: c})
}

// copyHint reports whether a copy of a loop keeps the hint named so: all
// but the loop's source locations (the primal's debug scope, which the
// gradient has not), llvm.loop.parallel_accesses (the copies of the loop's
// accesses leave their access groups behind, irutil.CloneInst) and the
// followups (loop IDs for what a transformation makes, with locations).
func copyHint(name string) bool {
	return strings.HasPrefix(name, "llvm.loop.") && name != "llvm.loop.parallel_accesses" && !strings.Contains(name, ".followup")
}

// reverseHint reports whether the reverse of a loop keeps the hint named so:
// those about vectorizing and unrolling.
func reverseHint(name string) bool {
	switch name {
	case "llvm.loop.isvectorized", "llvm.loop.unroll.disable", "llvm.loop.unroll.runtime.disable",
		"llvm.loop.vectorize.width", "llvm.loop.vectorize.enable", "llvm.loop.interleave.count":
		return true
	}
	return false
}

// reverseLoopID returns the loop ID for the reverse of l, made once per
// loop: the hints of l's latch branches that the reverse keeps, and nil
// where there are none or the latches disagree.
func (r *reverseGen) reverseLoopID(l *irutil.Loop) *metadata.Tuple {
	if id, ok := r.revLoopIDs[l]; ok {
		return id
	}
	var hints []metadata.Field
	var first *metadata.Tuple
	for i, latch := range l.Latches {
		md := termMetadata(latch.Term)
		if md == nil {
			hints = nil
			break
		}
		id := loopIDOf(*md)
		if i == 0 {
			first = id
		}
		if id == nil || id != first {
			hints = nil
			break
		}
		if i == 0 {
			for _, f := range id.Fields[1:] {
				if reverseHint(hintName(f)) {
					hints = append(hints, f)
				}
			}
		}
	}
	var id *metadata.Tuple
	if len(hints) > 0 {
		id = r.d.newLoopID(hints)
	}
	if r.revLoopIDs == nil {
		r.revLoopIDs = map[*irutil.Loop]*metadata.Tuple{}
	}
	r.revLoopIDs[l] = id
	return id
}

// markReverseLatch attaches the reverse loop ID of l to the branch ending e,
// the reverse of l's back edge: from the reverse of l's header back into
// the reverse of a latch, the reverse loop's own back edge.
func (r *reverseGen) markReverseLatch(e *ir.Block, l *irutil.Loop) {
	id := r.reverseLoopID(l)
	md := termMetadata(e.Term)
	if id == nil || md == nil {
		return
	}
	*md = append(*md, &metadata.Attachment{Name: "llvm.loop", Node: id})
}
