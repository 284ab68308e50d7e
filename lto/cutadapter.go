package lto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad"
	"github.com/gozyme/gozyme/irutil"
)

// Entry adapters. The native code of a function calling an Enzyme entry
// point calls an undefined symbol: __enzyme_autodiff in C, a mangled
// _Z17__enzyme_autodiff... per signature in C++. Instead of owning such a
// function (and every function that refers to it, up to main, compiled
// again at link time), the link's object may define the entry symbol
// itself: an adapter whose body is the call, with the arguments that carry
// values taken from its parameters, and the function to differentiate,
// the activity markers and the constants every call passes written in, so
// that AD sees one root and rewrites it as any other. The native callers
// stay as they are and call the adapter.
//
// An entry symbol gets an adapter only where that is proven to mean what
// the calls mean (otherwise its callers are owned, as before):
//   - every reference to it is the callee of a direct call or invoke, and
//     no native object outside the group refers to it (cutInputs);
//   - its calls that differentiate the same function agree on the markers
//     at every position; calls of different functions are told apart by
//     the first argument, compared with the address of each function,
//     which must then be named by a symbol the native code shares;
//   - a variadic C declaration (__enzyme_autodiff(void *, ...)) only on
//     x86-64, with every call passing the same argument types, each a
//     pointer, i32, i64 or double: the System V ABI passes these in the
//     same registers and stack slots to a variadic and to a fixed
//     parameter list.

// entryAdapterPrefix names an adapter while AD runs (a name AD does not
// take for an entry point); trimText gives it the entry's name.
const entryAdapterPrefix = "gozyme.entry."

// entryOp is one argument of an entry call.
type entryOp struct {
	typ, attrs, val string
	marker          string // the marker load's right-hand side, when val loads one
}

func (o entryOp) text(val string) string {
	s := o.typ
	if o.attrs != "" {
		s += " " + o.attrs
	}
	return s + " " + val
}

// entrySite is one call of an entry point.
type entrySite struct {
	fn   *cutEntity
	line int
	head string // "call void " up to the callee
	ops  []entryOp
}

// adaptEntries adds to m an adapter for every entry symbol that may have
// one (adaptable: no native object outside the group refers to it) and
// clears the enzyme mark of the functions whose every mention of an entry
// point is a call an adapter serves. It returns the adapters' names, each
// to the entry's.
func adaptEntries(m *cutModule, adaptable func(string) bool) (map[string]string, error) {
	sites := map[string][]*entrySite{} // entry key -> calls
	bad := map[string]bool{}
	mentions := map[*cutEntity][]int{} // function -> its lines mentioning __enzyme_
	for _, e := range m.order {
		if !e.fn || e.decl || !e.enzyme {
			continue
		}
		for j := e.start; j <= e.end; j++ {
			l := m.lines[j]
			if !strings.Contains(l, "__enzyme_") {
				continue
			}
			mentions[e] = append(mentions[e], j)
			for _, loc := range globalRefRE.FindAllStringIndex(l, -1) {
				k := l[loc[0]:loc[1]]
				if !strings.Contains(k, "__enzyme_") {
					continue
				}
				s, ok := parseEntrySite(m, e, j, loc)
				if !ok {
					bad[k] = true
					continue
				}
				sites[k] = append(sites[k], s)
			}
		}
	}
	// A reference from a global's initializer: not only called.
	for _, e := range m.order {
		if !e.fn {
			for _, r := range e.refs {
				bad[r] = true
			}
		}
	}
	if !markersOnlyAtCalls(m, sites) {
		return nil, nil
	}
	keys := make([]string, 0, len(sites))
	for k := range sites {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	names := map[string]string{}
	served := map[int]bool{}
	needTrap := false
	for _, k := range keys {
		x := m.ents[k]
		if bad[k] || x == nil || !x.fn || !x.decl || !adaptable(x.name) || strings.HasPrefix(k, `@"`) {
			continue
		}
		if mode, ok := ad.EntryPointMode(x.name); !ok || mode != ad.Reverse && mode != ad.Forward {
			continue
		}
		name := fmt.Sprintf("%s%d", entryAdapterPrefix, len(names))
		text, trap, ok := entryAdapter(m, x, name, sites[k])
		if !ok {
			continue
		}
		needTrap = needTrap || trap
		from := len(m.lines)
		m.lines = append(m.lines, strings.Split(text, "\n")...)
		if err := m.scan(from); err != nil {
			return nil, fmt.Errorf("the adapter of %s: %v", x.name, err)
		}
		names[name] = x.name
		for _, s := range sites[k] {
			served[s.line] = true
		}
	}
	if needTrap && m.ents["@llvm.trap"] == nil {
		from := len(m.lines)
		m.lines = append(m.lines, "declare void @llvm.trap()")
		if err := m.scan(from); err != nil {
			return nil, err
		}
	}
	for e, lines := range mentions {
		all := true
		for _, j := range lines {
			all = all && served[j]
		}
		if all {
			e.enzyme = false
		}
	}
	return names, nil
}

// parseEntrySite reads the call of the entry point referred to at loc of
// line j of function e: the callee of a direct call or invoke, nothing
// else on the line mentioning an entry point.
func parseEntrySite(m *cutModule, e *cutEntity, j int, loc []int) (*entrySite, bool) {
	l := m.lines[j]
	if loc[1] >= len(l) || l[loc[1]] != '(' || strings.Count(l, "__enzyme_") != 1 {
		return nil, false
	}
	prefix := strings.TrimSpace(l[:loc[0]])
	if _, rhs, ok := strings.Cut(prefix, " = "); ok && strings.HasPrefix(prefix, "%") {
		prefix = rhs
	}
	for _, p := range []string{"tail ", "musttail ", "notail "} {
		prefix = strings.TrimPrefix(prefix, p)
	}
	switch {
	case strings.HasPrefix(prefix, "call "):
	case strings.HasPrefix(prefix, "invoke "):
		prefix = "call " + strings.TrimPrefix(prefix, "invoke ")
	default:
		return nil, false
	}
	end := matchClose(l, loc[1])
	if end < 0 || strings.Contains(l[end:], "[") {
		return nil, false // operand bundles
	}
	s := &entrySite{fn: e, line: j, head: prefix + " "}
	for _, a := range splitTop(l[loc[1]+1 : end]) {
		typ, attrs, val, ok := splitOperand(a)
		if !ok {
			return nil, false
		}
		op := entryOp{typ: typ, attrs: attrs, val: val}
		if strings.HasPrefix(val, "%") {
			op.marker = markerLoad(m, e, val)
		}
		s.ops = append(s.ops, op)
	}
	return s, true
}

// markerLoad returns the right-hand side of val's definition in e when it
// loads an Enzyme marker global ("load i32, i32* @enzyme_dup"), else "".
func markerLoad(m *cutModule, e *cutEntity, val string) string {
	def := "  " + val + " = "
	for j := e.start + 1; j < e.end; j++ {
		l := m.lines[j]
		if !strings.HasPrefix(l, def) {
			continue
		}
		rhs := l[len(def):]
		if !strings.HasPrefix(rhs, "load ") {
			return ""
		}
		parts := splitTop(strings.TrimPrefix(rhs, "load "))
		if len(parts) < 2 {
			return ""
		}
		g := globalRefRE.FindString(parts[1])
		if !strings.HasPrefix(g, "@enzyme_") || !strings.HasSuffix(parts[1], " "+g) {
			return ""
		}
		return "load " + parts[0] + ", " + parts[1]
	}
	return ""
}

// isMarker reports an argument that is a marker: a load of one, or its
// address.
func (o entryOp) isMarker() bool {
	return o.marker != "" || strings.Contains(o.val, "@enzyme_")
}

// names reports a marker argument naming the marker global g.
func (o entryOp) names(g string) bool {
	for _, s := range []string{o.marker, o.val} {
		if s == g || strings.HasSuffix(s, " "+g) {
			return true
		}
	}
	return false
}

// entryAdapter writes the adapter of entry x from its calls; trap reports
// that it calls llvm.trap (no function matched the first argument).
func entryAdapter(m *cutModule, x *cutEntity, name string, sites []*entrySite) (text string, trap, ok bool) {
	decl := m.lines[x.start]
	at := strings.Index(decl, x.key+"(")
	if at < 0 {
		return "", false, false
	}
	ret, ok := declReturn(strings.TrimPrefix(decl[:at], "declare "))
	if !ok {
		return "", false, false
	}
	pend := matchClose(decl, at+len(x.key))
	if pend < 0 {
		return "", false, false
	}
	params := splitTop(decl[at+len(x.key)+1 : pend])
	variadic := len(params) > 0 && params[len(params)-1] == "..."
	// The parameters: the declaration's, or for a variadic one the types
	// every call passes.
	var ptext []string
	var ptypes []string
	if variadic {
		if !strings.Contains(moduleTriple(m), "x86_64") {
			return "", false, false
		}
		fixed := params[:len(params)-1]
		first := sites[0].ops
		for i, o := range first {
			if !variadicScalar(o) {
				return "", false, false
			}
			if i < len(fixed) {
				if t, _, ok := splitParam(fixed[i]); !ok || t != o.typ {
					return "", false, false
				}
			}
			ptypes = append(ptypes, o.typ)
			ptext = append(ptext, fmt.Sprintf("%s %%p%d", o.typ, i))
		}
		for _, s := range sites[1:] {
			if len(s.ops) != len(first) {
				return "", false, false
			}
			for i, o := range s.ops {
				if o.typ != first[i].typ || !variadicScalar(o) {
					return "", false, false
				}
			}
		}
	} else {
		for i, p := range params {
			t, attrs, ok := splitParam(p)
			if !ok {
				return "", false, false
			}
			ptypes = append(ptypes, t)
			q := t
			if attrs != "" {
				q += " " + attrs
			}
			ptext = append(ptext, fmt.Sprintf("%s %%p%d", q, i))
		}
		for _, s := range sites {
			if len(s.ops) != len(params) {
				return "", false, false
			}
			for i, o := range s.ops {
				if o.typ != ptypes[i] {
					return "", false, false
				}
			}
		}
	}
	// Group the calls by the function they differentiate.
	fi := -1
	for i, o := range sites[0].ops {
		if !strings.Contains(o.attrs, "sret(") {
			fi = i
			break
		}
	}
	if fi < 0 {
		return "", false, false
	}
	var order []string
	groups := map[string][]*entrySite{}
	for _, s := range sites {
		f := s.ops[fi].val
		if strings.HasPrefix(f, "%") || s.ops[fi].isMarker() || s.head != sites[0].head {
			return "", false, false
		}
		if groups[f] == nil {
			order = append(order, f)
		}
		groups[f] = append(groups[f], s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "define %s @%s(%s)%s {\n", ret.text, name, strings.Join(ptext, ", "), adapterTarget(m, sites))
	if len(order) > 1 {
		// Several functions: dispatch on the first argument, which
		// must be the address of a function the native code names too,
		// each group's another.
		b.WriteString("entry:\n")
		named := map[string]bool{}
		for gi, f := range order {
			refs := globalRefRE.FindAllString(f, -1)
			if len(refs) != 1 || named[refs[0]] {
				return "", false, false
			}
			named[refs[0]] = true
			t := m.ents[refs[0]]
			if t == nil || !t.fn || t.local() {
				return "", false, false
			}
			fmt.Fprintf(&b, "  %%is%d = icmp eq %s %%p%d, %s\n", gi, ptypes[fi], fi, f)
			fmt.Fprintf(&b, "  br i1 %%is%d, label %%g%d, label %%n%d\n", gi, gi, gi)
			fmt.Fprintf(&b, "n%d:\n", gi)
		}
		b.WriteString("  call void @llvm.trap()\n  unreachable\n")
		trap = true
	}
	for gi, f := range order {
		body, ok := adapterCall(groups[f], ret, x.key, fi, gi)
		if !ok {
			return "", false, false
		}
		if len(order) > 1 {
			fmt.Fprintf(&b, "g%d:\n", gi)
		}
		b.WriteString(body)
	}
	b.WriteString("}")
	return b.String(), trap, true
}

// adapterCall writes the call of one group (calls differentiating the same
// function) and the return: every position is a marker all calls pass, a
// constant naming no global all calls pass, or the parameter. The width
// after enzyme_width must be such a constant (AD reads it at link time).
func adapterCall(group []*entrySite, ret declRet, callee string, fi, gi int) (string, bool) {
	var b strings.Builder
	var args []string
	for i, o := range group[0].ops {
		same := true
		for _, s := range group[1:] {
			p := s.ops[i]
			same = same && p.typ == o.typ && p.attrs == o.attrs && p.val == o.val
			if p.isMarker() != o.isMarker() || o.isMarker() && (p.marker != o.marker || o.marker == "" && p.val != o.val) {
				return "", false // the activity differs between calls
			}
		}
		if i > 0 && group[0].ops[i-1].names("@enzyme_width") && !(same && !strings.HasPrefix(o.val, "%") && !strings.Contains(o.val, "@")) {
			return "", false // AD needs the width a constant, as each call passes it
		}
		switch {
		case o.marker != "":
			fmt.Fprintf(&b, "  %%m%d.%d = %s\n", gi, i, o.marker)
			args = append(args, o.text(fmt.Sprintf("%%m%d.%d", gi, i)))
		case o.isMarker() || i == fi:
			args = append(args, o.text(o.val))
		case same && !strings.HasPrefix(o.val, "%") && !strings.Contains(o.val, "@"):
			args = append(args, o.text(o.val))
		default:
			args = append(args, o.text(fmt.Sprintf("%%p%d", i)))
		}
	}
	call := group[0].head + callee + "(" + strings.Join(args, ", ") + ")"
	if ret.typ == "void" {
		fmt.Fprintf(&b, "  %s\n  ret void\n", call)
	} else {
		fmt.Fprintf(&b, "  %%r%d = %s\n  ret %s %%r%d\n", gi, call, ret.typ, gi)
	}
	return b.String(), true
}

// variadicScalar reports an argument a variadic call passes where a fixed
// parameter of its type is read (x86-64 System V).
func variadicScalar(o entryOp) bool {
	switch {
	case o.attrs != "" && strings.Trim(strings.ReplaceAll(o.attrs, "noundef", ""), " ") != "":
		return false
	case o.typ == "i32", o.typ == "i64", o.typ == "double":
		return true
	}
	return strings.HasSuffix(o.typ, "*") && !strings.Contains(o.typ, "(")
}

// declRet is a declaration's return: the attributes and type to define it
// with, and the type alone.
type declRet struct{ text, typ string }

// declReturn reads what precedes the name in a declaration: linkage and
// visibility words (dropped), return attributes, the return type.
func declReturn(s string) (declRet, bool) {
	words := strings.Fields(s)
	for len(words) > 0 {
		switch words[0] {
		case "dso_local", "dso_preemptable", "default", "hidden", "protected", "external":
			words = words[1:]
			continue
		}
		break
	}
	rest := strings.Join(words, " ")
	attrs, tail := takeAttrs(rest)
	n := irutil.TypeLen(tail)
	if n <= 0 || strings.TrimSpace(tail[n:]) != "" {
		return declRet{}, false
	}
	return declRet{text: strings.TrimSpace(attrs + " " + tail), typ: tail}, true
}

// moduleTriple is the module's target triple line.
func moduleTriple(m *cutModule) string {
	for _, l := range m.lines {
		if strings.HasPrefix(l, "target triple") {
			return l
		}
		if strings.HasPrefix(l, "define ") {
			break
		}
	}
	return ""
}

// markersOnlyAtCalls reports that every mention of a marker global is one
// the adapters see as AD will: an argument of an entry call, or the load
// of one that an entry call passes. A marker reaching a call any other way
// (through a local variable, a helper function, a pointer in memory) may
// be a marker to AD once the module is optimized, but an ordinary argument
// to an adapter, which would then not mean what the call means.
func markersOnlyAtCalls(m *cutModule, sites map[string][]*entrySite) bool {
	loads := map[*cutEntity]map[string]bool{}
	calls := map[int]bool{}
	for _, ss := range sites {
		for _, s := range ss {
			calls[s.line] = true
			for _, o := range s.ops {
				if o.marker != "" {
					if loads[s.fn] == nil {
						loads[s.fn] = map[string]bool{}
					}
					loads[s.fn]["  "+o.val+" = "] = true
				}
			}
		}
	}
	for _, e := range m.order {
		for j := e.start; j <= e.end; j++ {
			l := m.lines[j]
			if !strings.Contains(l, "@enzyme_") || calls[j] {
				continue
			}
			if !e.fn {
				if strings.HasPrefix(l, "@enzyme_") && !strings.Contains(l[1:], "@") {
					continue // the marker's own declaration or definition
				}
				return false
			}
			def, _, ok := strings.Cut(l, "= ")
			if j == e.start || !ok || !loads[e][def+"= "] {
				return false
			}
		}
	}
	return true
}
