package irutil

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/llir/llvm/ir"
)

// Partial is a module parsed into llir only where it is needed: the bodies
// of function definitions nothing needed refers to are left out of the
// parse (each stands in as a body that is only `unreachable`) and written
// back verbatim by WriteText. Parsing with llir costs about 3x llvm-as and
// 3 KB per line, so a whole program should not be parsed for a few roots.
type Partial struct {
	Module *ir.Module
	elided map[string]bool // names of the stand-in functions
	text   []string        // their original definitions, in module order
}

// Seeds says what must be parsed: functions whose body text satisfies
// Func, globals whose name satisfies Global, and everything they refer to,
// transitively.
type Seeds struct {
	Func   func(body string) bool
	Global func(name string) bool
}

// LoadPartial reads an IR file, text (a name ending in .ll) or bitcode
// (ReadText), and parses what seeds need.
func LoadPartial(ctx context.Context, path string, seeds Seeds) (*Partial, error) {
	text, err := ReadText(ctx, path)
	if err != nil {
		return nil, err
	}
	return ParsePartial(path, string(text), seeds)
}

// globalRef matches a reference to a global value; names in quotes are
// matched whole (and their functions are never left out).
var (
	globalRef    = regexp.MustCompile(`@(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+)`)
	blockAddress = regexp.MustCompile(`blockaddress\((@[^,]+),`)
)

// IndirectCall matches, in a function's text, a call or invoke whose
// callee is a local value (a function pointer): no global name between the
// keyword and the callee on its line.
var IndirectCall = regexp.MustCompile(`\b(?:call|invoke)\b[^@\n]*?%[-a-zA-Z$._0-9]+\(`)

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// textFunc is one function definition of a module's text.
type textFunc struct {
	name       string
	start, end int // line range: the define line through the closing brace
}

// ParsePartial is LoadPartial for textual IR (as llvm-dis prints it).
func ParsePartial(name, text string, seeds Seeds) (*Partial, error) {
	lines := strings.Split(text, "\n")
	refs := map[string][]string{} // global value -> what its text refers to
	needed := map[string]bool{}
	var work []string
	need := func(n string) {
		if !needed[n] {
			needed[n] = true
			work = append(work, n)
		}
	}
	var funcs []textFunc
	taken := map[string]bool{}        // functions and globals whose address is used, not called
	callSigs := map[string][]string{} // a function's calls through pointers (IndirectCallSig)
	defSigs := map[string]string{}    // a definition's signature (DefineSig), "" unread
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "define "):
			end := i
			for end < len(lines) && lines[end] != "}" {
				end++
			}
			if end == len(lines) {
				// Not llvm-dis output: parse it all.
				m, err := ParseText(name, []byte(text))
				if err != nil {
					return nil, err
				}
				return &Partial{Module: m, elided: map[string]bool{}}, nil
			}
			body := strings.Join(lines[i:end+1], "\n")
			fname := definedName(l)
			var names []string
			for _, loc := range globalRef.FindAllStringIndex(body, -1) {
				r := body[loc[0]:loc[1]]
				names = append(names, r)
				if loc[1] < len(body) && body[loc[1]] != '(' {
					taken[r] = true
				}
			}
			refs[fname] = names
			for j := i; j <= end; j++ {
				if IsIndirectCall(lines[j]) {
					sig, _ := IndirectCallSig(lines[j])
					callSigs[fname] = append(callSigs[fname], sig)
				}
			}
			defSigs[fname], _ = DefineSig(l)
			if fname == "" || strings.HasPrefix(fname, `@"`) || !strings.HasSuffix(l, "{") || seeds.Func(body) {
				need(fname)
			}
			funcs = append(funcs, textFunc{fname, i, end})
			i = end
		case strings.HasPrefix(l, "@"):
			gname := globalRef.FindString(l)
			inits := globalRef.FindAllString(l[len(gname):], -1)
			refs[gname] = append(refs[gname], inits...)
			for _, r := range inits {
				taken[r] = true
			}
			if seeds.Global(strings.Trim(gname[1:], `"`)) {
				need(gname)
			}
		}
		if strings.Contains(l, "blockaddress(") {
			// The blocks of a function named in a blockaddress must exist.
			for _, m := range blockAddress.FindAllStringSubmatch(l, -1) {
				need(m[1])
			}
		}
	}
	closure := func() {
		for len(work) > 0 {
			n := work[len(work)-1]
			work = work[:len(work)-1]
			for _, r := range refs[n] {
				need(r)
			}
		}
	}
	closure()
	// A call through a pointer may reach any function of its type whose
	// address the program takes (AD dispatches over them, ad/dispatch.go):
	// a vtable filled in code nothing needed refers to (an object made in
	// main) still names its overrides. Their bodies must be parsed, not
	// stand-ins; a function they need may call through another type.
	sigs, any := map[string]bool{}, false
	for {
		grown := false
		for _, n := range sortedKeys(needed) {
			for _, sig := range callSigs[n] {
				if !sigs[sig] {
					sigs[sig], grown = true, true
					any = any || sig == ""
				}
			}
		}
		if !grown {
			break
		}
		for _, t := range sortedKeys(taken) {
			if sig, fn := defSigs[t]; fn && (any || sig == "" || sigs[sig]) {
				need(t)
			}
		}
		closure()
	}
	p := &Partial{elided: map[string]bool{}}
	var out []string
	prev := 0
	for _, f := range funcs {
		if needed[f.name] {
			continue
		}
		out = append(out, lines[prev:f.start+1]...)
		out = append(out, "  unreachable", "}")
		p.text = append(p.text, strings.Join(lines[f.start:f.end+1], "\n"))
		p.elided[f.name[1:]] = true
		prev = f.end + 1
	}
	out = append(out, lines[prev:]...)
	m, err := ParseText(name, []byte(strings.Join(out, "\n")))
	if err != nil {
		return nil, err
	}
	p.Module = m
	return p, nil
}

// definedName returns the @name a define line defines.
func definedName(l string) string {
	for _, loc := range globalRef.FindAllStringIndex(l, -1) {
		if loc[1] < len(l) && l[loc[1]] == '(' {
			return l[loc[0]:loc[1]]
		}
	}
	return ""
}

// Elided reports whether f's body was left out of the parse (its body in
// the module is a stand-in).
func (p *Partial) Elided(f *ir.Func) bool { return p.elided[f.Name()] }

// Parsed reports how many function definitions were parsed and how many
// were left out.
func (p *Partial) Parsed() (parsed, elided int) {
	for _, f := range p.Module.Funcs {
		if len(f.Blocks) > 0 {
			parsed++
		}
	}
	return parsed - len(p.text), len(p.text)
}

// WriteText writes the module like WriteText, with the definitions left out
// of the parse restored as they were. The module is not usable afterwards.
func (p *Partial) WriteText(path string) error {
	kept := p.Module.Funcs[:0]
	for _, f := range p.Module.Funcs {
		if !p.elided[f.Name()] {
			kept = append(kept, f)
		}
	}
	p.Module.Funcs = kept
	var tail string
	if len(p.text) > 0 {
		tail = "\n" + strings.Join(p.text, "\n\n") + "\n"
	}
	return writeText(p.Module, path, tail)
}
