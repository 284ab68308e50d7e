package lto

import (
	"fmt"
	"sort"
	"strings"
)

// A rewrite group is what one link-time AD job merges: a module calling an
// Enzyme entry point plus every bitcode module that defines something it
// references, transitively, the way the linker resolves it (symbols.go).
// Groups that share a module are one group, so every module is rewritten
// at most once; independent groups run in parallel. The merged module
// replaces its anchor input; the other members leave the link (their code
// now lives in the merged object), which is how the whole program's
// bitcode reaches the optimizer before AD.
type rewriteGroup struct {
	anchor  *Input   // where the merged object goes
	members []*Input // in link order, the anchor among them
	// What each member's bitcode must change before merging, so that the
	// merged module means what the linker makes of the objects (nil: none).
	edits map[*Input]*moduleEdits
}

// moduleEdits are the changes one module's bitcode needs before merging.
type moduleEdits struct {
	discard map[string]bool   // definitions the linker takes from elsewhere (another input, --defsym)
	rename  map[string]string // references the linker resolves to another symbol (--wrap, --defsym)
}

func (e *moduleEdits) empty() bool { return e == nil || len(e.discard) == 0 && len(e.rename) == 0 }

// nativeSyms returns an input's ELF symbols, read once.
func nativeSyms(in *Input) []objSym {
	if in.Syms == nil && in.SymErr == nil && in.Data != nil {
		in.Syms, in.SymErr = elfSymbols(in.Data)
		if in.Syms == nil {
			in.Syms = []objSym{}
		}
	}
	return in.Syms
}

// grouper builds the groups of one link.
type grouper struct {
	view    *symbolView
	bcSyms  map[*Input][]objSym
	bcDef   map[string]*Input // bitcode definer of symbols no object defines natively
	edits   map[*Input]*moduleEdits
	reaches map[*Input][]*Input // the modules each module needs, once computed
}

// groupRoots builds the rewrite groups of roots among the link's inputs.
// A module's references are those of its native code and of its bitcode
// (bcSyms, see bitcodeSymbols). A symbol's definer is the input whose
// definition the linker uses (view); where that input has no bitcode the
// module's own definition, if any, is discarded and the symbol stays a
// declaration (AD then names that input). Symbols only bitcode defines
// (code the compile's optimizer dropped) go to the first module defining
// them, strong definitions first.
func groupRoots(inputs, roots []*Input, bcSyms map[*Input][]objSym, view *symbolView) ([]*rewriteGroup, error) {
	if view == nil {
		view = resolveSymbols(inputs, symbolRules{})
	}
	index := map[*Input]int{}
	for i, in := range inputs {
		index[in] = i
	}
	g := &grouper{view: view, bcSyms: bcSyms, bcDef: map[string]*Input{}, edits: map[*Input]*moduleEdits{}, reaches: map[*Input][]*Input{}}
	for _, weakPass := range []bool{false, true} {
		for _, in := range inputs {
			if in.Bitcode == nil {
				continue
			}
			for _, s := range bcSyms[in] {
				if s.defined && s.weak == weakPass {
					if _, ok := g.bcDef[s.name]; !ok {
						g.bcDef[s.name] = in
					}
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
			next, err := g.reach(m)
			if err != nil {
				return nil, err
			}
			for _, d := range next {
				if seen[d] {
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
		grp := byRep[rep]
		if grp == nil {
			grp = &rewriteGroup{edits: map[*Input]*moduleEdits{}}
			byRep[rep] = grp
			groups = append(groups, grp)
		}
		grp.members = append(grp.members, in)
		if e := g.edits[in]; !e.empty() {
			grp.edits[in] = e
		}
	}
	for _, grp := range groups {
		// The merged object takes the place of the first plain object of
		// the group (archive members are only loaded when needed), else of
		// its first member.
		grp.anchor = grp.members[0]
		for _, m := range grp.members {
			if m.Member == nil {
				grp.anchor = m
				break
			}
		}
		if err := g.checkMultiple(grp); err != nil {
			return nil, err
		}
		if err := checkVersioned(grp); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return index[groups[i].members[0]] < index[groups[j].members[0]] })
	return groups, nil
}

// reach returns the modules m needs merged with it, and records the edits
// its bitcode needs: definitions the linker takes from elsewhere are
// discarded (the module defining the one it takes joins the group), and
// references --wrap or --defsym redirect are renamed.
func (g *grouper) reach(m *Input) ([]*Input, error) {
	if r, ok := g.reaches[m]; ok {
		return r, nil
	}
	e := &moduleEdits{discard: map[string]bool{}, rename: map[string]string{}}
	g.edits[m] = e
	defines := map[string]bool{}
	strongHere := map[string]bool{} // names m's native code defines strongly
	for _, s := range nativeSyms(m) {
		if s.defined {
			defines[s.name] = true
		}
		if s.strong() {
			strongHere[s.name] = true
		}
	}
	for _, s := range g.bcSyms[m] {
		if s.defined {
			defines[s.name] = true
		}
	}
	var out []*Input
	need := func(name string) error {
		d, err := g.definer(name)
		if d != nil && d != m {
			out = append(out, d)
		}
		return err
	}
	rules := g.view.rules
	// Definitions the linker does not use.
	for _, s := range g.bcSyms[m] {
		if !s.defined {
			continue
		}
		if _, ok := rules.defsym[s.name]; ok {
			e.discard[s.name] = true
			continue
		}
		w := g.view.winner[s.name]
		if w == nil || w == m {
			continue
		}
		if g.view.sym[s.name].comdat && !strongHere[s.name] {
			continue // one of the equal copies of an inline function (ODR)
		}
		e.discard[s.name] = true
		if err := need(s.name); err != nil {
			return nil, err
		}
	}
	// References, and where the linker resolves them.
	refs := map[string]bool{}
	for _, list := range [][]objSym{nativeSyms(m), g.bcSyms[m]} {
		for _, s := range list {
			if !s.defined {
				refs[s.name] = true
			}
		}
	}
	for name := range e.discard {
		refs[name] = true // now a declaration
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		to, err := rules.target(name, defines[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.Origin, err)
		}
		if real, ok := strings.CutPrefix(name, "__real_"); ok && to == real {
			if d, _ := g.definer(real); d == nil {
				// No bitcode defines NAME (libc's malloc): __real_NAME stays
				// undefined in the link's object, and the linker resolves it
				// to NAME itself. Renamed to NAME it would be wrapped again
				// there: __wrap_NAME calling itself.
				to = name
			}
		}
		if to != name {
			e.rename[name] = to
		}
		if err := need(to); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Item < out[j].Item })
	g.reaches[m] = out
	return out, nil
}

// definer returns the module whose bitcode holds the definition of name the
// program uses: the input the linker takes it from, when that input has
// bitcode; nil when it has none or cannot be read (AD then stops if it
// needs the body, and explainMissingBody names the input), or when
// nothing defines name.
func (g *grouper) definer(name string) (*Input, error) {
	if w := g.view.winner[name]; w != nil {
		if w.Bitcode != nil {
			return w, nil
		}
		return nil, nil
	}
	return g.bcDef[name], nil
}

// checkMultiple reports two strong definitions of one symbol, one of them
// in the group, as the linker would, but naming the objects rather than
// the merged one (unless --allow-multiple-definition or -z muldefs, where
// the first is used and the others are discarded).
func (g *grouper) checkMultiple(grp *rewriteGroup) error {
	if g.view.rules.allowMultiple {
		return nil
	}
	in := map[*Input]bool{}
	for _, m := range grp.members {
		in[m] = true
	}
	var names []string
	for name, later := range g.view.later {
		involved := in[g.view.winner[name]]
		for _, l := range later {
			involved = involved || in[l]
		}
		if involved {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	name := names[0]
	var others []string
	for _, l := range g.view.later[name] {
		others = append(others, l.Origin)
	}
	return fmt.Errorf("multiple definition of '%s': first defined in %s, again in %s", name, g.view.winner[name].Origin, strings.Join(others, ", "))
}

// checkVersioned refuses to merge a module that defines or references a
// versioned symbol (name@VERSION, from .symver): what the version binds to
// is decided by the assembler and linker over each object's own names,
// which merging renames and moves. A module alone in its group keeps its
// object's meaning.
func checkVersioned(grp *rewriteGroup) error {
	if len(grp.members) < 2 {
		return nil
	}
	for _, m := range grp.members {
		for _, s := range nativeSyms(m) {
			if strings.Contains(s.name, "@") {
				return fmt.Errorf("%s: has the versioned symbol '%s' (.symver), and gozyme would merge it with %d other modules to differentiate %s; symbol versions are not supported there: move the versioned definitions to an object the derivative does not need", m.Origin, s.name, len(grp.members)-1, grp.anchor.Origin)
			}
		}
	}
	return nil
}
