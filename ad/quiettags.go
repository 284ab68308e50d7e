package ad

import (
	"sort"
	"strconv"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
)

// Reloads across a split, by type. Where the caller does write primal
// memory between a callee's augmented forward and its reverse (the calls
// of a recursion that edit index vectors between the recursive calls), but
// every such write carries a TBAA tag, the callee's reverse may still load
// again what those writes cannot change by LLVM's type-based rules
// (tbaaalias.go): a double entry of a matrix, the pointer to its data, past
// stores of long indices. The pair generated for such call sites is named
// for the tags written in between (_qt and their metadata ids); the rest of
// quiet.go's conditions hold as they are (no alloca on the chain, no
// threads).

// betweenTags is what may write primal memory between this function's
// augmented forward's return and its reverse's start (and in its callers up
// to the root), by TBAA tags: none for the combined gradient and quiet
// pairs; ok false where unknown or where its frame does not outlive its
// forward (an alloca).
func (r *reverseGen) betweenTags() ([]*metadata.Tuple, bool) {
	switch {
	case r.parallel || r.d.gpu:
		return nil, false
	case !r.split:
		return nil, true
	case hasAlloca(r.f):
		return nil, false
	case r.quiet:
		return nil, true
	case r.quietTyped:
		return r.quietTags, true
	}
	return nil, false
}

// quietTagsAfter is quietAfter by type: the tags of every write that may
// run after primal call c before the reverse sweep comes back to it, with
// betweenTags; ok false where some such write has no usable tag.
func (r *reverseGen) quietTagsAfter(c *ir.InstCall) ([]*metadata.Tuple, bool) {
	tags, ok := r.betweenTags()
	if !ok || r.blockOf[c] == nil {
		return nil, false
	}
	tags = append([]*metadata.Tuple{}, tags...)
	for _, w := range r.writers() {
		if r.mayRunAfterCall(w, c) {
			if !w.tags.typed {
				return nil, false
			}
			tags = append(tags, w.tags.tags...)
		}
	}
	return uniqueTags(tags)
}

// uniqueTags sorts tags by metadata id and drops repeats; ok false where
// one has no id (it could not be named).
func uniqueTags(tags []*metadata.Tuple) ([]*metadata.Tuple, bool) {
	byID := map[int64]*metadata.Tuple{}
	for _, t := range tags {
		if t.MetadataID < 0 {
			return nil, false
		}
		byID[int64(t.MetadataID)] = t
	}
	var out []*metadata.Tuple
	for _, t := range byID {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MetadataID < out[j].MetadataID })
	return out, true
}

// quietTagsSuffix names a pair by the tags written between its halves.
func quietTagsSuffix(tags []*metadata.Tuple) string {
	var sb strings.Builder
	sb.WriteString("_qt")
	for i, t := range tags {
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(strconv.FormatInt(int64(t.MetadataID), 10))
	}
	return sb.String()
}

// typedReload reports whether this split function's reverse may load
// primal load p again although writes run between its halves: all of them
// tagged apart from p (see above).
func (r *reverseGen) typedReload(p *ir.InstLoad) bool {
	if !r.split || !r.quietTyped || r.parallel || r.d.gpu || hasAlloca(r.f) {
		return false
	}
	return writeTags{typed: true, tags: r.quietTags}.disjointFrom(tbaaTagOf(p))
}
