package lto

import "sort"

// A rewrite group is what one link-time AD job merges: a module calling an
// Enzyme entry point plus every bitcode module that defines something it
// references, transitively. Groups that share a module are one group, so
// every module is rewritten at most once; independent groups run in
// parallel. The merged module replaces its anchor input; the other members
// leave the link (their code now lives in the merged object), which is how
// the whole program's bitcode reaches the optimizer before AD.
type rewriteGroup struct {
	anchor  *Input   // where the merged object goes
	members []*Input // in link order, the anchor among them
}

// groupRoots builds the rewrite groups of roots among the link's inputs.
// A module's references are those of its native code and of its bitcode
// (bcSyms, see bitcodeSymbols); a symbol's definer is the module whose
// native code defines it, else one whose bitcode does.
func groupRoots(inputs, roots []*Input, bcSyms map[*Input][]objSym) []*rewriteGroup {
	index := map[*Input]int{}
	for i, in := range inputs {
		index[in] = i
	}
	// Which bitcode module defines each symbol (the first in link order,
	// strong definitions before weak ones), and what each module references.
	definer := map[string]*Input{}
	refs := map[*Input][]string{}
	native := map[*Input][]objSym{}
	for _, in := range inputs {
		if in.Bitcode != nil {
			native[in], _ = elfSymbols(in.Data)
		}
	}
	for _, pass := range []struct {
		syms map[*Input][]objSym
		weak bool
	}{{native, false}, {native, true}, {bcSyms, false}, {bcSyms, true}} {
		weakPass := pass.weak
		for _, in := range inputs {
			if in.Bitcode == nil {
				continue
			}
			for _, s := range pass.syms[in] {
				if s.defined && s.weak == weakPass {
					if _, ok := definer[s.name]; !ok {
						definer[s.name] = in
					}
				}
				if !weakPass && !s.defined {
					refs[in] = append(refs[in], s.name)
				}
			}
		}
	}
	// Union-find over inputs: each root joins everything it reaches.
	parent := map[*Input]*Input{}
	var find func(*Input) *Input
	find = func(x *Input) *Input {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		parent[x] = x
		return x
	}
	union := func(a, b *Input) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if index[ra] < index[rb] {
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}
	inGroup := map[*Input]bool{}
	for _, root := range roots {
		seen := map[*Input]bool{root: true}
		work := []*Input{root}
		inGroup[root] = true
		find(root)
		for len(work) > 0 {
			m := work[len(work)-1]
			work = work[:len(work)-1]
			for _, name := range refs[m] {
				d, ok := definer[name]
				if !ok || seen[d] {
					continue
				}
				seen[d] = true
				inGroup[d] = true
				union(root, d)
				work = append(work, d)
			}
		}
	}
	byRep := map[*Input]*rewriteGroup{}
	var groups []*rewriteGroup
	for _, in := range inputs {
		if !inGroup[in] {
			continue
		}
		rep := find(in)
		g := byRep[rep]
		if g == nil {
			g = &rewriteGroup{}
			byRep[rep] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, in)
	}
	for _, g := range groups {
		// The merged object takes the place of the first plain object of
		// the group (archive members are only loaded when needed), else of
		// its first member.
		g.anchor = g.members[0]
		for _, m := range g.members {
			if m.Member == nil {
				g.anchor = m
				break
			}
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return index[groups[i].members[0]] < index[groups[j].members[0]] })
	return groups
}
