package lto

import (
	"bytes"
	"debug/elf"
	"sort"
	"strings"
)

// cutInputs returns what the roots' cut of a group's module needs (see
// cut.go), or nil where the group must be rewritten whole: a member
// without native code (a -flto object) or whose symbols cannot be read,
// a member with versioned symbols (.symver), or a link that redirects
// symbols (--wrap, --defsym), whose native objects the cut would have to
// edit the same way.
func cutInputs(grp *rewriteGroup, view *symbolView) *CutInputs {
	if view != nil && (len(view.rules.wrap) > 0 || len(view.rules.defsym) > 0) {
		return nil
	}
	c := &CutInputs{Native: map[string]bool{}}
	stubs := map[string]bool{}
	for _, m := range grp.members {
		if m.LTO || m.Data == nil || m.SymErr != nil || IsBitcode(m.Data) {
			return nil
		}
		if e := grp.edits[m]; e != nil && len(e.rename) > 0 {
			return nil
		}
		for _, s := range nativeSyms(m) {
			switch {
			case strings.Contains(s.name, "@"):
				return nil // a versioned symbol would still name the weak native copy
			case s.defined:
				c.Native[s.name] = true
			case strings.Contains(s.name, "__enzyme_") || strings.HasPrefix(s.name, "enzyme_"):
				if view == nil || view.winner[s.name] == nil {
					stubs[s.name] = true
				}
			}
		}
	}
	for n := range stubs {
		if !c.Native[n] {
			c.Stubs = append(c.Stubs, n)
		}
	}
	sort.Strings(c.Stubs)
	c.Adaptable = adaptableEntries(grp, view, c.Stubs)
	return c
}

// adaptableEntries are the stubbed entry points of a group that only its
// members' native code calls: the group's object may define them (one
// definition in the link).
func adaptableEntries(grp *rewriteGroup, view *symbolView, stubs []string) map[string]bool {
	out := map[string]bool{}
	if view == nil || view.entryUnknown || view.rules.icf {
		return out // folded functions would defeat an adapter's dispatch
	}
	member := map[*Input]bool{}
	for _, m := range grp.members {
		member[m] = true
	}
	for _, n := range stubs {
		if !strings.Contains(n, "__enzyme_") {
			continue
		}
		ok := true
		for _, in := range view.entryUsers[n] {
			ok = ok && member[in]
		}
		if ok {
			out[n] = true
		}
	}
	return out
}

// partialOwned reads the owned names of an object made from the roots'
// cut (partialSection); nil for an object made from a whole module.
func partialOwned(path string) (map[string]bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(partialSection)
	if sec == nil {
		return nil, nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	owned := map[string]bool{}
	for _, n := range strings.Split(string(data), "\n") {
		if n != "" {
			owned[n] = true
		}
	}
	return owned, nil
}

// weakenedInput returns the input's native object with its definitions of
// the owned names made weak, and whether any was.
func weakenedInput(in *Input, owned map[string]bool) ([]byte, bool, error) {
	hit := false
	for _, s := range nativeSyms(in) {
		if s.defined && owned[s.name] && !s.weak {
			hit = true
			break
		}
	}
	if !hit {
		return in.Data, false, nil
	}
	out, n, err := weakenSymbols(in.Data, owned)
	if err != nil {
		return nil, false, err
	}
	return out, n > 0 && !bytes.Equal(out, in.Data), nil
}
