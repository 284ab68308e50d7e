package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
)

// Alias scopes of the cache. The loop buffers the forward sweep fills for
// the reverse sweep (reverse.go, loopBuffer) are gozyme's own mallocs: no
// program or shadow pointer ever points into them. The optimizer after AD
// cannot know that, so without help it reloads every cached value (loop
// entry counters, cached operands) on each iteration of an inner reverse
// loop that stores into shadow memory, and does not vectorize it. Each
// gradient gets its own scope domain with one scope, "the cache": element
// accesses of its loop buffers carry !alias.scope, every other load, store
// and memory intrinsic of the gradient carries !noalias. The claim is only
// made between those two groups, so it survives inlining gradients into
// each other (different domains) and retained buffers (cache with cache).

// markCacheAccess records a load or store of a loop buffer's element.
func (r *reverseGen) markCacheAccess(inst ir.Instruction) {
	if r.cacheAccess == nil {
		r.cacheAccess = map[ir.Instruction]bool{}
	}
	r.cacheAccess[inst] = true
}

// applyCacheScope attaches the cache scope to the gradient's memory
// accesses: !alias.scope on cache element accesses, !noalias on the rest.
func (r *reverseGen) applyCacheScope() {
	if len(r.cacheAccess) == 0 {
		return
	}
	name := r.g.Name()
	domain := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: "gozyme cache domain " + name}}}
	scope := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: "gozyme cache " + name}, domain}}
	list := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{scope}}
	for _, b := range r.g.Blocks {
		for _, inst := range b.Insts {
			kind := "noalias"
			if r.cacheAccess[inst] {
				kind = "alias.scope"
			}
			switch x := inst.(type) {
			case *ir.InstLoad:
				x.Metadata = addScope(x.Metadata, kind, scope, list)
			case *ir.InstStore:
				x.Metadata = addScope(x.Metadata, kind, scope, list)
			case *ir.InstCall:
				if isMemIntrinsic(x) {
					x.Metadata = addScope(x.Metadata, kind, scope, list)
				}
			}
		}
	}
}

// addScope adds scope to the scope list attached as kind ("alias.scope" or
// "noalias"), extending a list already there.
func addScope(md ir.Metadata, kind string, scope, list *metadata.Tuple) ir.Metadata {
	for i, a := range md {
		if a.Name != kind {
			continue
		}
		old, ok := a.Node.(*metadata.Tuple)
		if !ok {
			return md
		}
		fields := append(append([]metadata.Field(nil), old.Fields...), scope)
		out := append(ir.Metadata(nil), md...)
		out[i] = &metadata.Attachment{Name: kind, Node: &metadata.Tuple{MetadataID: -1, Fields: fields}}
		return out
	}
	return append(md, &metadata.Attachment{Name: kind, Node: list})
}

// isMemIntrinsic reports whether c calls llvm.memcpy, llvm.memmove or
// llvm.memset.
func isMemIntrinsic(c *ir.InstCall) bool {
	n := irfacts.CalleeName(c)
	return strings.HasPrefix(n, "llvm.memcpy.") || strings.HasPrefix(n, "llvm.memmove.") || strings.HasPrefix(n, "llvm.memset.")
}
