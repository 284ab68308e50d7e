package lto

import (
	"regexp"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad"
)

// The target an adapter is compiled for. An adapter written without
// target attributes is compiled for the baseline CPU, while the gradient
// it calls carries the differentiated function's "target-features"; LLVM's
// inliner refuses to inline a callee whose features the caller lacks, so
// every call of the entry point paid a second call (arguments passed on
// the stack twice, two prologues). The adapter takes the target
// attributes its callers carry when they all carry the same ones, the
// keys derivatives take from their primal (ad.IsTargetAttr: the features,
// not the CPU's name, whose tuning made the GMM gradient slower): it runs
// only when one of them calls it (an adapter exists only where every
// reference is a direct call from the group's functions), on a CPU their
// own native code already requires.

// stringAttrRE matches a string attribute, its key the first group.
var stringAttrRE = regexp.MustCompile(`"([^"]*)"="[^"]*"`)

// attrGroupRefRE matches an attribute group reference on a define line.
var attrGroupRefRE = regexp.MustCompile(` #([0-9]+)\b`)

// adapterTarget is the target attributes every calling function of sites
// carries, written for a define line (leading space), or "" where they
// differ or none are written.
func adapterTarget(m *cutModule, sites []*entrySite) string {
	groups := attrGroups(m)
	want, first := "", true
	for _, s := range sites {
		got := functionTarget(m.lines[s.fn.start], groups)
		if !first && got != want {
			return ""
		}
		want, first = got, false
	}
	if want == "" {
		return ""
	}
	return " " + want
}

// functionTarget is the target attributes of the function defined on line
// def, from the line itself and its attribute groups, in a fixed order.
func functionTarget(def string, groups map[string]string) string {
	text := def
	if i := strings.LastIndex(def, "{"); i >= 0 {
		text = def[:i]
	}
	var attrs []string
	take := func(text string) {
		for _, a := range stringAttrRE.FindAllStringSubmatch(text, -1) {
			if ad.IsTargetAttr(a[1]) {
				attrs = append(attrs, a[0])
			}
		}
	}
	take(text)
	for _, g := range attrGroupRefRE.FindAllStringSubmatch(text, -1) {
		take(groups[g[1]])
	}
	seen := map[string]string{}
	for _, a := range attrs {
		key := a[:strings.Index(a, "=")]
		if v, ok := seen[key]; ok && v != a {
			return "" // two values for one key: no agreement to take
		}
		seen[key] = a
	}
	out := make([]string, 0, len(seen))
	for _, a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// attrGroups maps each attribute group's number to its text.
func attrGroups(m *cutModule) map[string]string {
	groups := map[string]string{}
	for _, l := range m.lines {
		if !strings.HasPrefix(l, "attributes #") {
			continue
		}
		rest := l[len("attributes #"):]
		if i := strings.Index(rest, " "); i > 0 {
			groups[rest[:i]] = rest[i:]
		}
	}
	return groups
}
