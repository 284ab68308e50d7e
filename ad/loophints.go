package ad

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
)

// Loop hints. The llvm.loop attachment on a loop's latch branch says what the
// optimizer before AD already did to the loop, or what the programmer asked
// of it: vectorized already (a pragma's vector body or its scalar
// remainder), not to be unrolled at run time, a pragma's width or count. A
// copy of the loop in the forward sweep, or in a forward-mode derivative,
// keeps all of it (but its locations, copyHint). The loop's reverse keeps
// the hints about vectorizing and unrolling: it runs as many iterations as
// the loop, so the reverse of a scalar remainder (a few iterations) is not
// vectorized and unrolled again by the optimizer after AD.
//
// A gradient's loops inside other loops are not vectorized after AD unless
// their hints decide about it (gradientHints), but for the forward copies
// and reverses of innermost loops that run many iterations at run time
// (loopversion.go). The optimizer before AD vectorizes no
// loop either (preopt's noVectorize), so after AD is where a gradient's
// loop could be vectorized, and there a vector loop costs on every entry:
// the forward copy and the reverse address the primal's memory, its
// shadows and the records, so the vector loop is entered through run-time
// overlap checks and a minimum-count test and left through a scalar
// remainder; the reverse loops count down (every vector access reversed);
// the sums into the adjoints of values from outside a loop are
// floating-point reductions the vectorizer may not reorder, so such
// reverse loops stay scalar anyway. An inner loop is entered once per
// iteration of the loops around it, so a short one pays that on every
// iteration; long inner loops lose what the vector loop gained, but less
// (bench/results/history.md has the workloads' figures). An outermost loop
// pays once per call and keeps vectorizing (the norm gradient's loops over
// n). The primal's own functions are vectorized after AD as the user's
// level asks; so are a forward-mode derivative's tangent loops
// (copyLoopID).

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

// newLoopID adds a distinct loop ID with the given hints to the module,
// numbered at once: a loop ID names itself, and a tuple without a number
// prints inline, so printing a function (irutil.Renumber, errors) before
// the module would recurse without end.
func (d *differ) newLoopID(hints []metadata.Field) *metadata.Tuple {
	if d.nextMetadataID == 0 {
		for _, md := range d.m.MetadataDefs {
			d.nextMetadataID = max(d.nextMetadataID, md.ID()+1)
		}
	}
	t := &metadata.Tuple{MetadataID: metadata.MetadataID(d.nextMetadataID), Distinct: true}
	d.nextMetadataID++
	t.Fields = append([]metadata.Field{t}, hints...)
	d.m.MetadataDefs = append(d.m.MetadataDefs, t)
	return t
}

// loopIDCopies maps a source loop ID to its copy in one generated function.
type loopIDCopies map[*metadata.Tuple]*metadata.Tuple

// copyLoopID gives to, a copy of the terminator from, the copy of from's
// loop ID with its hints (copyHint): one copy per source ID in the function
// copies is kept for, so the latches of a loop with several still agree
// (LLVM drops the hints of a loop whose latches disagree). The copy of an
// ID with a scalar twin (versionTwins) gets a copy of the twin.
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
		if twin := d.versionTwins[id]; twin != nil {
			// A copy of a gradient's loop given two versions (a
			// gradient differentiated in forward mode): versioned too.
			d.versionTwins[c] = d.newLoopID(twin.Fields[1:len(twin.Fields):len(twin.Fields)])
		}
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
// loop: the hints of l's latches that the reverse keeps (reverseHint).
func (r *reverseGen) reverseLoopID(l *irutil.Loop) *metadata.Tuple {
	return r.d.gradientLoopID(r.revLoopIDs, l, reverseHint)
}

// forwardLoopID returns the loop ID for l's copy in the forward sweep, made
// once per loop (so the copy's latches agree, as LLVM needs): the hints of
// l's latches but its locations (copyHint).
func (r *reverseGen) forwardLoopID(l *irutil.Loop) *metadata.Tuple {
	return r.d.gradientLoopID(r.fwdLoopIDs, l, copyHint)
}

// gradientLoopID returns ids[l], made on first use: a loop ID with the
// hints of l's latches that keep admits and noVectorHints where
// gradientHints adds them; nil where there are none. For a loop given
// noVectorHints (a forward copy or a reverse), the ID returned asks for
// vectorizing instead (forwardVectorHints) and has the scalar one as its
// twin (versionTwins): versionLoops gives each such loop both versions or
// the twin alone.
func (d *differ) gradientLoopID(ids map[*irutil.Loop]*metadata.Tuple, l *irutil.Loop, keep func(string) bool) *metadata.Tuple {
	if id, ok := ids[l]; ok {
		return id
	}
	var hints []metadata.Field
	if src := latchID(l, func(b *ir.Block) ir.Terminator { return b.Term }); src != nil {
		for _, f := range src.Fields[1:] {
			if keep(hintName(f)) {
				hints = append(hints, f)
			}
		}
	}
	var id *metadata.Tuple
	if scalar := gradientHints(l, hints); len(scalar) > 0 {
		id = d.newLoopID(scalar)
		if len(scalar) > len(hints) && !d.gpu {
			// Vectorized where its trip count at run time is long
			// (versionLoops), else this scalar twin.
			vec := d.newLoopID(append(hints[:len(hints):len(hints)], forwardVectorHints()...))
			d.versionTwins[vec] = id
			id = vec
		}
	}
	ids[l] = id
	return id
}

// markForwardLatch attaches to tail's terminator, the forward sweep's copy
// of primal block b's, the forward loop ID of the innermost loop b is a
// latch of, if any.
func (r *reverseGen) markForwardLatch(b, tail *ir.Block) {
	md := termMetadata(tail.Term)
	if md == nil {
		return
	}
	for l := r.cfg.LoopOf[b]; l != nil; l = l.Parent {
		for _, latch := range l.Latches {
			if latch != b {
				continue
			}
			if id := r.forwardLoopID(l); id != nil {
				*md = append(*md, &metadata.Attachment{Name: "llvm.loop", Node: id})
			}
			return
		}
	}
}

// latchID returns the loop ID all of l's latches carry (their terminators
// as term gives them), or nil where one has none or they disagree: LLVM
// then takes the loop to have no hints (Loop::getLoopID).
func latchID(l *irutil.Loop, term func(*ir.Block) ir.Terminator) *metadata.Tuple {
	var id *metadata.Tuple
	for i, latch := range l.Latches {
		md := termMetadata(term(latch))
		if md == nil {
			return nil
		}
		c := loopIDOf(*md)
		if c == nil || (i > 0 && c != id) {
			return nil
		}
		id = c
	}
	return id
}

// vectorDecided reports whether hints decide about vectorizing the loop:
// the programmer's pragma (a width, an interleave count, enable or disable)
// or the vectorizer's mark on a loop it made.
func vectorDecided(hints []metadata.Field) bool {
	for _, f := range hints {
		n := hintName(f)
		if strings.HasPrefix(n, "llvm.loop.vectorize.") || n == "llvm.loop.interleave.count" || n == "llvm.loop.isvectorized" {
			return true
		}
	}
	return false
}

// gradientHints is hints for a copy or the reverse of loop l in a
// gradient: with noVectorHints added where l is inside another loop and
// hints decide nothing about vectorizing.
func gradientHints(l *irutil.Loop, hints []metadata.Field) []metadata.Field {
	if l.Parent == nil || vectorDecided(hints) {
		return hints
	}
	return append(hints, noVectorHints()...)
}

// noVectorHints are the hints of `#pragma clang loop vectorize(disable)
// interleave(disable)`: vector width 1, interleave count 1.
func noVectorHints() []metadata.Field {
	hint := func(name string) metadata.Field {
		return &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: name}, constant.NewInt(types.I32, 1)}}
	}
	return []metadata.Field{hint("llvm.loop.vectorize.width"), hint("llvm.loop.interleave.count")}
}

// intHint is a loop hint with an i32 value.
func intHint(name string, v int64) metadata.Field {
	return &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: name}, constant.NewInt(types.I32, v)}}
}

// forwardVectorHints leave the long version of an inner loop's forward
// copy (loopversion.go) to the vectorizer with interleave count 2, and name
// the hints of the loops it makes (followups, which replace its defaults):
// the vector loop and the scalar remainder are vectorized already, the
// vector loop is not unrolled at run time and the remainder not at all.
func forwardVectorHints() []metadata.Field {
	attr := func(name string) metadata.Field {
		return &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: name}}}
	}
	followup := func(name string, attrs ...metadata.Field) metadata.Field {
		return &metadata.Tuple{MetadataID: -1, Fields: append([]metadata.Field{&metadata.String{Value: name}}, attrs...)}
	}
	done := intHint("llvm.loop.isvectorized", 1)
	return []metadata.Field{
		intHint("llvm.loop.interleave.count", 2),
		followup("llvm.loop.vectorize.followup_vectorized", done, attr("llvm.loop.unroll.runtime.disable")),
		followup("llvm.loop.vectorize.followup_epilogue", done, attr("llvm.loop.unroll.disable")),
	}
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
