package lto

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/irutil"
)

// The roots' cut of a link module. Every object of a rewrite group is
// native code already; only the functions that call an Enzyme entry point
// (the roots) must run as the link rewrites them, and AD needs the bodies
// of what the roots reach. So the link module keeps, as definitions:
//   - the owned functions: the roots and, transitively, every function
//     that refers to an owned one (a caller may have inlined it into its
//     native code). The link's object defines them strongly and their
//     native definitions are made weak (weakenSymbols), so every reference
//     the linker resolves by name reaches the rewritten code;
//   - what the roots reach, through any reference: the bodies AD
//     differentiates, and inlines before it;
//   - what owned functions reach through their internal symbols (a native
//     object's local symbols cannot be named from another object);
//   - copies of internal functions and constants whose address nothing in
//     the cut takes or compares. An internal variable, an internal constant
//     whose address may matter, and an internal function whose address the
//     cut takes must stay single: it becomes owned, so that all its users
//     are the link's and the native copy is dead.
//
// Where an adapter may define an entry symbol (cutadapter.go), the
// adapter is the root instead of the functions calling it: they, and their
// callers, stay native code.
//
// Everything else becomes a declaration the native objects define. After
// AD, the external definitions kept only for AD and inlining go too
// (trimNames), so code generation compiles the owned functions, the
// internal copies and the derivatives. Whatever the cut cannot prove, it
// refuses (planCut's reason), and the link falls back to the whole module.

// indirectSigs lists the signatures (irutil.IndirectCallSig) of the calls
// through pointers in the functions the plan keeps in full (bodies AD may
// differentiate); any is true where one is unreadable (every function may
// be its target), and the set is empty where there are none.
func indirectSigs(m *cutModule, p *cutPlan) (sigs map[string]bool, any bool) {
	sigs = map[string]bool{}
	for _, e := range m.order {
		if !e.fn || !p.full[e.key] {
			continue
		}
		for _, s := range e.callSigs {
			if s == "" {
				any = true
			}
			sigs[s] = true
		}
	}
	return sigs, any
}

// addressTakenKeys lists, in module order, the defined functions whose
// address something in the module uses other than as a callee and that a
// call of one of the signatures sigs may reach (any: every one), and the
// variables whose initializers name one (vtables, tables of callbacks).
// The special globals the native objects keep (constructors) call what
// they name themselves, through no pointer of the program.
func addressTakenKeys(m *cutModule, p *cutPlan, sigs map[string]bool, any bool) []string {
	taken := map[string]bool{}
	for _, e := range m.order {
		if p.drop[e.key] {
			continue
		}
		for r := range e.taken {
			t := m.ents[r]
			if t == nil || !t.fn || !(any || t.sig == "" || sigs[t.sig]) {
				continue
			}
			taken[r] = true
			if !e.fn {
				taken[e.key] = true
			}
		}
	}
	var out []string
	for _, e := range m.order {
		if taken[e.key] && !e.decl {
			out = append(out, e.key)
		}
	}
	return out
}

// cutEntity is one global value of a module's text.
type cutEntity struct {
	key     string // "@name" as printed
	name    string // the linker's name
	fn      bool
	decl    bool
	linkage string // "" (external) or the linkage keyword
	mutable bool   // a variable, not a constant
	unnamed bool   // unnamed_addr or local_unnamed_addr
	alias   bool   // an alias or ifunc
	comdat  string // the comdat it belongs to, "" for none
	enzyme  bool   // its body mentions an Enzyme entry point
	// callSigs: the signatures of its calls through pointers
	// (irutil.IndirectCallSig; "" where unreadable)
	callSigs []string
	sig      string // a definition's signature (irutil.DefineSig), "" unread
	refs     []string
	taken    map[string]bool // refs used other than as a callee
	start    int             // first line
	end      int             // last line
}

func (e *cutEntity) local() bool { return e.linkage == "internal" || e.linkage == "private" }

// cutModule is a module's text (llvm-dis output) read for the cut.
type cutModule struct {
	lines     []string
	ents      map[string]*cutEntity
	order     []*cutEntity
	moduleAsm bool
	sharedPIC bool // PIC without PIE: native calls may bypass the symbol
	pic, pie  bool
}

var cutLinkages = map[string]bool{
	"private": true, "internal": true, "available_externally": true, "linkonce": true,
	"weak": true, "common": true, "appending": true, "extern_weak": true,
	"linkonce_odr": true, "weak_odr": true, "external": true,
}

var cutComdat = regexp.MustCompile(`comdat(?:\((\$(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+))\))?`)

// parseCutModule reads the global values of a module's text, their
// linkage and what each refers to.
func parseCutModule(text string) (*cutModule, error) {
	m := &cutModule{lines: strings.Split(text, "\n"), ents: map[string]*cutEntity{}}
	if err := m.scan(0); err != nil {
		return nil, err
	}
	return m, nil
}

// scan reads the global values of m.lines from line from on (the module's
// text, or definitions appended to it).
func (m *cutModule) scan(from int) error {
	add := func(e *cutEntity) {
		e.name = linkerName(e.key)
		m.ents[e.key] = e
		m.order = append(m.order, e)
	}
	for i := from; i < len(m.lines); i++ {
		l := m.lines[i]
		switch {
		case strings.HasPrefix(l, "define "):
			key := defineKey(l)
			end := i
			for end < len(m.lines) && m.lines[end] != "}" {
				end++
			}
			if key == "" || end == len(m.lines) {
				return fmt.Errorf("line %d: not a function definition llvm-dis prints", i+1)
			}
			e := &cutEntity{key: key, fn: true, start: i, end: end, taken: map[string]bool{}}
			e.sig, _ = irutil.DefineSig(l)
			e.linkage = leadingLinkage(l[len("define "):])
			if c := cutComdat.FindStringSubmatch(l[strings.Index(l, key)+len(key):]); c != nil {
				e.comdat = c[1]
				if e.comdat == "" {
					e.comdat = "$" + key[1:]
				}
			}
			for j := i; j <= end; j++ {
				body := m.lines[j]
				if strings.Contains(body, "__enzyme_") {
					e.enzyme = true
				}
				if irutil.IsIndirectCall(body) {
					sig, _ := irutil.IndirectCallSig(body)
					e.callSigs = append(e.callSigs, sig)
				}
				for _, loc := range globalRefRE.FindAllStringIndex(body, -1) {
					r := body[loc[0]:loc[1]]
					if j == i && r == key {
						continue
					}
					e.refs = append(e.refs, r)
					if (loc[1] >= len(body) || body[loc[1]] != '(') && !isEnzymeOperand(body, loc[0]) {
						e.taken[r] = true
					}
				}
			}
			add(e)
			i = end
		case strings.HasPrefix(l, "declare "):
			if key := defineKey(l); key != "" {
				add(&cutEntity{key: key, fn: true, decl: true, start: i, end: i})
			}
		case strings.HasPrefix(l, "@"):
			key := globalRefRE.FindString(l)
			rest := strings.TrimPrefix(l[len(key):], " = ")
			e := &cutEntity{key: key, start: i, end: i, taken: map[string]bool{}}
			e.linkage = leadingLinkage(rest)
			words := strings.Fields(rest)
			for _, w := range words {
				switch w {
				case "global":
					e.mutable = true
				case "unnamed_addr", "local_unnamed_addr":
					e.unnamed = true
				case "alias", "ifunc":
					e.alias = true
				}
				if w == "global" || w == "constant" || w == "alias" || w == "ifunc" {
					break
				}
			}
			e.decl = e.linkage == "external" || e.linkage == "extern_weak"
			if c := cutComdat.FindStringSubmatch(rest); c != nil && strings.Contains(rest, ", comdat") {
				e.comdat = c[1]
				if e.comdat == "" {
					e.comdat = "$" + key[1:]
				}
			}
			for _, r := range globalRefRE.FindAllString(rest, -1) {
				e.refs = append(e.refs, r)
				e.taken[r] = true
			}
			add(e)
		case strings.HasPrefix(l, "module asm "):
			m.moduleAsm = true
		case strings.HasPrefix(l, "!") && strings.Contains(l, `!"PIC Level"`):
			m.pic = true
		case strings.HasPrefix(l, "!") && strings.Contains(l, `!"PIE Level"`):
			m.pie = true
		}
	}
	m.sharedPIC = m.pic && !m.pie
	return nil
}

// defineKey is the @name a define or declare line defines.
func defineKey(l string) string {
	for _, loc := range globalRefRE.FindAllStringIndex(l, -1) {
		if loc[1] < len(l) && l[loc[1]] == '(' {
			return l[loc[0]:loc[1]]
		}
	}
	return ""
}

// leadingLinkage is the linkage keyword among the first words of s, ""
// when it has none (external).
func leadingLinkage(s string) string {
	for i, w := range strings.Fields(s) {
		if i > 2 {
			break
		}
		if cutLinkages[w] {
			return w
		}
	}
	return ""
}

// isEnzymeOperand reports whether the reference at byte at of line l is
// an operand of a call of an Enzyme entry point on that line: the function
// handed to AD, which the rewritten call no longer refers to.
func isEnzymeOperand(l string, at int) bool {
	i := strings.Index(l, "__enzyme_")
	return i >= 0 && at > i && (strings.Contains(l[:i], "call ") || strings.Contains(l[:i], "invoke "))
}

// linkerName is the symbol name of a reference ("@name" or `@"na\22me"`).
func linkerName(key string) string {
	s := key[1:]
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	return irutil.UnescapeName(strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`))
}

// blasName matches the Fortran names of BLAS and LAPACK routines.
var blasName = regexp.MustCompile(`^[sdcz][a-z0-9]{2,}_$`)

// adLooksUp reports a function AD uses where the module has it, whether or
// not the roots reach it (package ad: a LAPACK routine the program links
// instead of gozyme's own loop, CBLAS routines, Enzyme's error logger). A
// cut keeps it, so that AD chooses as it would on the whole module; the
// definition leaves after AD like any other the native objects provide.
func adLooksUp(name string) bool {
	return strings.HasPrefix(name, "cblas_") || blasName.MatchString(name) || name == "enzymeLogError"
}

// cutPlan is what the link module keeps.
type cutPlan struct {
	keep  map[string]bool // keys kept as definitions
	owned map[string]bool // keys whose link-time definition must be the one that runs
	full  map[string]bool // keys whose every reference is kept (AD may need it)
	drop  map[string]bool // special globals deleted (constructors, used lists)
	// pinned: linkonce keys nothing in the cut refers to, kept for AD (a
	// vtable an indirect call may read): the link module defines them
	// with external linkage, so that the optimization before AD keeps
	// them; trimText makes them declarations after AD like any other.
	pinned map[string]bool
}

// ownedNames returns the linker names of the owned functions with external
// linkage: the symbols whose native definitions are made weak.
func (p *cutPlan) ownedNames(m *cutModule) []string {
	var out []string
	for k := range p.owned {
		if e := m.ents[k]; !e.local() {
			out = append(out, e.name)
		}
	}
	sort.Strings(out)
	return out
}

// cutSpecial are the special globals the native objects keep: removed from
// the link module (constructors run once, from the native objects).
var cutSpecial = map[string]bool{
	"@llvm.global_ctors": true, "@llvm.global_dtors": true, "@llvm.used": true, "@llvm.compiler.used": true,
}

// planCut decides what the link module keeps; native reports whether a
// native object of the group defines a symbol. A non-empty reason says why
// the module must be taken whole.
func planCut(m *cutModule, native func(string) bool) (*cutPlan, string) {
	if m.moduleAsm {
		return nil, "module-level inline assembly"
	}
	p := &cutPlan{keep: map[string]bool{}, owned: map[string]bool{}, full: map[string]bool{}, drop: map[string]bool{}, pinned: map[string]bool{}}
	referrers := map[string][]string{}
	for _, e := range m.order {
		if strings.HasPrefix(e.key, "@llvm.") {
			if cutSpecial[e.key] {
				p.drop[e.key] = true
			} else if !e.decl {
				return nil, "the special global " + e.key
			}
		} else if strings.Contains(e.name, "__enzyme_") && !e.decl {
			return nil, "the Enzyme global " + e.key
		}
		seen := map[string]bool{}
		for _, r := range e.refs {
			if r != e.key && !seen[r] {
				seen[r] = true
				referrers[r] = append(referrers[r], e.key)
			}
		}
	}
	var work []string
	reason := ""
	push := func(k string) { work = append(work, k) }
	keepAs := func(k string, full bool) {
		if !p.keep[k] || full && !p.full[k] {
			p.keep[k] = true
			if full {
				p.full[k] = true
			}
			push(k)
		}
	}
	own := func(k string) {
		e := m.ents[k]
		switch {
		case reason != "" || p.owned[k]:
			return
		case p.drop[k]:
			reason = "a constructor, destructor or used-list entry reaches a root"
			return
		case e.alias:
			reason = "the alias " + k + " refers to a root"
			return
		case !e.local() && e.linkage != "":
			reason = fmt.Sprintf("%s (%s) reaches a root", k, e.linkage)
			return
		case !e.local() && !e.fn:
			reason = "the variable " + k + " refers to a root"
			return
		case e.comdat != "":
			reason = k + " reaches a root from a comdat (the linker may keep the native group)"
			return
		case !e.local() && m.sharedPIC:
			reason = "position-independent code for a shared library (calls to " + k + " may not go through its symbol)"
			return
		}
		p.owned[k] = true
		keepAs(k, false)
		push(k)
	}
	for _, e := range m.order {
		if e.fn && !e.decl && e.enzyme {
			own(e.key)
			keepAs(e.key, true)
		}
	}
	if len(p.owned) == 0 && reason == "" {
		return nil, "no function calls an Enzyme entry point"
	}
	for _, e := range m.order {
		if e.fn && !e.decl && !e.local() && adLooksUp(e.name) {
			keepAs(e.key, false)
		}
	}
	// The signatures widened for so far: a function kept for one may
	// call through a pointer of another.
	widened, widenedAny := map[string]bool{}, false
	for reason == "" {
		if len(work) == 0 {
			// A call through a pointer in what AD differentiates may reach
			// any function of its type whose address the program takes
			// (AD dispatches over them, ad/dispatch.go), such as the
			// overrides in a vtable only code outside the cut fills in (an
			// object made in main): keep them, and the tables naming them,
			// in full.
			sigs, any := indirectSigs(m, p)
			grown := any && !widenedAny
			for sig := range sigs {
				grown = grown || !widened[sig]
				widened[sig] = true
			}
			if !grown {
				break
			}
			widenedAny = any
			for _, k := range addressTakenKeys(m, p, sigs, any) {
				t := m.ents[k]
				if t == nil || t.decl || p.full[k] || p.drop[k] || strings.HasPrefix(k, "@llvm.") {
					continue
				}
				switch t.linkage {
				case "", "weak", "weak_odr", "common":
					keepAs(k, true)
				case "linkonce", "linkonce_odr":
					if !native(t.name) {
						reason = "a call through a pointer may reach " + k + ", which no native object defines"
						break
					}
					p.pinned[k] = true
					keepAs(k, true)
				default:
					// Nothing in the cut refers to it: the optimization
					// before AD would drop it (linkonce, internal, ...).
					reason = "a call through a pointer may reach " + k + " (" + t.linkage + "), which only code outside the cut refers to"
				}
				if reason != "" {
					break
				}
			}
			continue
		}
		k := work[len(work)-1]
		work = work[:len(work)-1]
		e := m.ents[k]
		if p.owned[k] {
			for _, u := range referrers[k] {
				own(u)
			}
		}
		if !p.keep[k] {
			continue
		}
		full := p.full[k]
		for _, x := range e.refs {
			t := m.ents[x]
			if t == nil || t.decl || x == k {
				continue
			}
			if p.drop[x] || strings.HasPrefix(x, "@llvm.") {
				reason = k + " refers to " + x
				break
			}
			if t.alias {
				reason = "the alias " + x + " is used by what the roots reach"
				break
			}
			taken := e.taken[x]
			switch {
			case t.local() && t.fn:
				if taken {
					own(x) // its address may meet the native copy's
				}
				keepAs(x, full || taken)
			case t.local():
				if t.mutable || !t.unnamed {
					own(x) // one instance, one address
				}
				keepAs(x, full)
			case !t.fn && full:
				// Its initializer may be what AD needs (a vtable's
				// functions are the candidates of a virtual call);
				// trimNames makes it a declaration after AD.
				keepAs(x, true)
			case !t.fn:
				if !native(t.name) {
					if t.linkage == "" {
						reason = "no native object defines the variable " + x
						break
					}
					keepAs(x, false)
				}
			case full || taken:
				keepAs(x, true) // a body AD may differentiate
			case !native(t.name):
				keepAs(x, false) // the native code inlined it everywhere
			}
		}
	}
	if reason != "" {
		return nil, reason
	}
	// A comdat kept in the object must be whole there: the linker keeps
	// one group of a name and drops the others with all their members.
	stays := func(e *cutEntity) bool { return p.keep[e.key] && (e.local() || p.owned[e.key] || !native(e.name)) }
	groups := map[string][]*cutEntity{}
	for _, e := range m.order {
		if e.comdat != "" && !e.decl {
			groups[e.comdat] = append(groups[e.comdat], e)
		}
	}
	for c, members := range groups {
		in, out := 0, 0
		for _, e := range members {
			if stays(e) {
				in++
			} else {
				out++
			}
		}
		if in > 0 && out > 0 {
			return nil, "the comdat " + c + " would be split"
		}
	}
	return p, ""
}

// cutText writes the link module's text for plan: definitions outside it
// become declarations (irutil.DiscardDefinitions, by discardNames), local
// ones go, and so do the special globals the native objects keep.
func cutText(m *cutModule, p *cutPlan) (text string, discard map[string]bool) {
	discard = map[string]bool{}
	remove := map[int]int{} // first line -> last line of what goes
	for _, e := range m.order {
		switch {
		case e.decl || p.keep[e.key]:
		case p.drop[e.key] || e.local():
			remove[e.start] = e.end
		default:
			discard[e.name] = true
		}
	}
	out := make([]string, 0, len(m.lines))
	for i := 0; i < len(m.lines); i++ {
		if end, ok := remove[i]; ok {
			i = end
			continue
		}
		out = append(out, pinLinkage(m, p, m.lines[i]))
	}
	return strings.Join(out, "\n"), discard
}

// pinLinkage returns line l of m with the linkage of a pinned definition
// (cutPlan.pinned) taken off: an external definition.
func pinLinkage(m *cutModule, p *cutPlan, l string) string {
	var key, prefix string
	switch {
	case strings.HasPrefix(l, "define "):
		key, prefix = defineKey(l), "define "
	case strings.HasPrefix(l, "@"):
		key = globalRefRE.FindString(l)
		prefix = key + " = "
	default:
		return l
	}
	if !p.pinned[key] {
		return l
	}
	e := m.ents[key]
	if e == nil || !strings.HasPrefix(l, prefix+e.linkage+" ") {
		return l
	}
	return prefix + l[len(prefix)+len(e.linkage)+1:]
}

// trimText edits a differentiated module's text for code generation:
// the external definitions the native objects provide and the link does
// not own (kept for AD and inlining) become declarations, and the Enzyme
// entry points and markers the native copies of owned functions still
// refer to (dead code, which nothing else defines) become weak hidden
// definitions: functions that trap, zeroed variables. It edits the text a
// line at a time, never holding it whole: a huge derivative's text is
// hundreds of megabytes, read from r as it is written to w. The entry
// adapters (cutadapter.go, adapters: each one's name to its entry's) take
// their entries' names, whose declarations go. It returns the names it
// made declarations.
func trimText(w io.Writer, r io.Reader, owned map[string]bool, native func(string) bool, stubs []string, adapters map[string]string) (map[string]bool, error) {
	want := map[string]bool{}
	adapted := map[string]bool{}
	for _, entry := range adapters {
		adapted[entry] = true
	}
	for _, n := range stubs {
		if !adapted[n] {
			want[n] = true
		}
	}
	trimmable := func(linkage, name string) bool {
		switch linkage {
		case "internal", "private", "available_externally", "external", "extern_weak", "appending":
			return false
		}
		return !owned[name] && native(name)
	}
	discard := func(def, name string) (string, error) {
		decl, _, err := irutil.DiscardDefinitions(def, map[string]bool{name: true})
		return decl, err
	}
	b := bufio.NewWriterSize(w, 1<<20)
	trimmed := map[string]bool{}
	defined := map[string]bool{} // stubbed markers that were declared
	hasTrap := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	skipping := "" // the function whose body is being left out
	for sc.Scan() {
		l := sc.Text()
		if skipping != "" {
			if l == "}" {
				skipping = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "define "):
			key := defineKey(l)
			name := linkerName(key)
			if entry, ok := adapters[name]; ok && key != "" {
				l = strings.Replace(l, key+"(", "@"+entry+"(", 1)
				break
			}
			if key == "" || !trimmable(leadingLinkage(l[len("define "):]), name) {
				break
			}
			decl, err := discard(l+"\n}", name)
			if err != nil {
				return nil, err
			}
			b.WriteString(decl)
			b.WriteByte('\n')
			trimmed[name] = true
			skipping = key
			continue
		case strings.HasPrefix(l, "declare "):
			if strings.Contains(l, "@llvm.trap()") {
				hasTrap = true
			}
			if n := linkerName(defineKey(l)); want[n] || adapted[n] {
				continue // defined below, or by its adapter
			}
		case strings.HasPrefix(l, "@"):
			key := globalRefRE.FindString(l)
			name := linkerName(key)
			rest, ok := strings.CutPrefix(l[len(key):], " = ")
			if !ok || strings.HasPrefix(key, "@llvm.") {
				break
			}
			if want[name] {
				// A marker still declared keeps its type, now defined.
				attrs, typ, ok := strings.Cut(strings.TrimPrefix(rest, "external "), "global ")
				if strings.HasPrefix(rest, "external ") && ok && !strings.Contains(attrs, "constant") {
					typ, align, _ := strings.Cut(typ, ", align ")
					l = key + " = weak hidden " + dropVisibility(attrs) + "global " + typ + " zeroinitializer"
					if align != "" {
						l += ", align " + align
					}
					defined[name] = true
				}
				break
			}
			words := strings.Fields(rest)
			alias := false
			for _, w := range words {
				if w == "alias" || w == "ifunc" {
					alias = true
				}
			}
			if !alias && trimmable(leadingLinkage(rest), name) {
				decl, err := discard(l, name)
				if err != nil {
					return nil, err
				}
				l = decl
				trimmed[name] = true
			}
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if skipping != "" {
		return nil, fmt.Errorf("the body of %s is not closed by a lone '}'", skipping)
	}
	for _, n := range stubs {
		if defined[n] || adapted[n] {
			continue
		}
		q := `@"` + strings.NewReplacer(`\`, `\5C`, `"`, `\22`).Replace(n) + `"`
		if strings.HasPrefix(n, "enzyme_") {
			fmt.Fprintf(b, "%s = weak hidden global i64 0\n", q)
			continue
		}
		fmt.Fprintf(b, "define weak hidden void %s() {\n  call void @llvm.trap()\n  unreachable\n}\n", q)
		if !hasTrap {
			b.WriteString("declare void @llvm.trap()\n")
			hasTrap = true
		}
	}
	return trimmed, b.Flush()
}

// dropVisibility removes the preemption and visibility words of a global's
// declaration (dso_local, default ...): a definition made weak hidden
// writes its own, and LLVM reads them only in that order, before the rest.
func dropVisibility(attrs string) string {
	var out []string
	for _, w := range strings.Fields(attrs) {
		switch w {
		case "dso_local", "dso_preemptable", "default", "hidden", "protected":
			continue
		}
		out = append(out, w+" ")
	}
	return strings.Join(out, "")
}
