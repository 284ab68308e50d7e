package custom

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"regexp"
	"sort"
	"strings"
)

// clang emits the annotate attribute only on a function's definition, so
// an enzyme(...) attribute on a declaration would reach the link only from
// the translation unit defining the function. gozyme-cc therefore reads
// the attributes of every declaration a TU sees (clang's JSON AST dump) and
// adds Enzyme registration globals for them to the TU's embedded bitcode:
// any TU that declares a function with the attribute registers its rule.

// Declared is the custom derivative an enzyme(...) attribute gives one
// function, by symbol name; a part is "" when no attribute gives it.
type Declared struct {
	Func                       string
	Augment, Gradient, Forward string
}

// gozymeRegistration marks the registration globals gozyme-cc generates
// (their rules may be declarations of unknown type, see Find).
const gozymeRegistration = ".gozyme."

// seenBy marks, in messages, the rules of gozyme-cc's registrations.
const seenBy = " on a declaration seen by "

// registeredFrom describes where a registration global comes from, for messages:
// for gozyme-cc's, the attribute and the translation unit that saw it.
func registeredFrom(global, kind string) string {
	i := strings.Index(global, gozymeRegistration)
	j := strings.LastIndexByte(global, ':')
	if i < 0 || j < i {
		return "@" + global
	}
	return fmt.Sprintf("enzyme(\"%s\", ...)%s%s", kind, seenBy, global[j+1:])
}

// astNode is the part of clang's JSON AST dump that rules are read from.
type astNode struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	MangledName    string          `json:"mangledName"`
	StorageClass   string          `json:"storageClass"`
	Value          json.RawMessage `json:"value"` // a string in string literals; other nodes have numbers
	Inner          []astNode       `json:"inner"`
	ReferencedDecl *astNode        `json:"referencedDecl"`
}

// DeclaredInAST reads the enzyme(...) attributes of the function
// declarations in a JSON AST dump (clang -Xclang -ast-dump=json, compiled
// with AttributeMacro). Static functions are left out: only their own TU
// can define them, and there the definition's annotation registers them.
// Two different rules of one kind for one function are an error.
func DeclaredInAST(r io.Reader) ([]Declared, error) {
	var root astNode
	if err := json.NewDecoder(r).Decode(&root); err != nil {
		return nil, fmt.Errorf("reading clang's AST dump: %v", err)
	}
	symbol := map[string]string{} // declaration id -> symbol name
	external := map[string]bool{}
	var funcs []*astNode
	var index func(n *astNode)
	index = func(n *astNode) {
		if n.Kind == "FunctionDecl" && n.MangledName != "" {
			symbol[n.ID] = n.MangledName
			if n.StorageClass != "static" {
				external[n.MangledName] = true
			}
			funcs = append(funcs, n)
			return
		}
		for i := range n.Inner {
			index(&n.Inner[i])
		}
	}
	index(&root)
	byFunc := map[string]*Declared{}
	for _, fn := range funcs {
		for i := range fn.Inner {
			kind, rule := enzymeAttr(&fn.Inner[i], symbol)
			if kind == "" || !external[fn.MangledName] || !external[rule] {
				continue
			}
			d := byFunc[fn.MangledName]
			if d == nil {
				d = &Declared{Func: fn.MangledName}
				byFunc[fn.MangledName] = d
			}
			slot := map[string]*string{"augment": &d.Augment, "gradient": &d.Gradient, "forward": &d.Forward}[kind]
			if *slot != "" && *slot != rule {
				return nil, fmt.Errorf("two different enzyme(\"%s\", ...) rules for '%s': '%s' and '%s'", kind, fn.MangledName, *slot, rule)
			}
			*slot = rule
		}
	}
	out := make([]Declared, 0, len(byFunc))
	for _, d := range byFunc {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Func < out[j].Func })
	return out, nil
}

// enzymeAttr reads an annotate attribute made by AttributeMacro: its
// arguments are the rule and the kind as a string literal. It returns the
// kind and the rule's symbol, or "" for other nodes.
func enzymeAttr(n *astNode, symbol map[string]string) (kind, rule string) {
	if n.Kind != "AnnotateAttr" || len(n.Inner) != 2 {
		return "", ""
	}
	ref := find(&n.Inner[0], "DeclRefExpr")
	lit := find(&n.Inner[1], "StringLiteral")
	if ref == nil || lit == nil || ref.ReferencedDecl == nil {
		return "", ""
	}
	var text string
	if json.Unmarshal(lit.Value, &text) != nil {
		return "", ""
	}
	switch k := strings.Trim(text, `"`); k {
	case "augment", "gradient", "forward":
		return k, symbol[ref.ReferencedDecl.ID]
	}
	return "", ""
}

// find returns the first node of a kind in n's subtree.
func find(n *astNode, kind string) *astNode {
	if n.Kind == kind {
		return n
	}
	for i := range n.Inner {
		if f := find(&n.Inner[i], kind); f != nil {
			return f
		}
	}
	return nil
}

// plainName matches symbols usable as unquoted LLVM identifiers.
var plainName = regexp.MustCompile(`^[A-Za-z_$.][-\w$.]*$`)

// RegistrationIR is a textual LLVM module registering the declared rules
// with Enzyme's globals, to be linked into a TU's embedded bitcode. The
// globals are weak (every TU that declares the function emits the same
// one) and in section llvm.metadata (code generation leaves them out); the
// functions are declared as void() when the TU does not already have them
// (llvm-link keeps the TU's own declarations; Find gives the others the
// types the rules must have).
//
// Each global's name ends in ":" and the TU's source file, which messages
// about the rule give as where it was registered (see registeredFrom).
func RegistrationIR(decls []Declared, source string) string {
	source = strings.NewReplacer(`"`, "_", `\`, "_", "\n", "_", " ", "_").Replace(source)
	var b strings.Builder
	declared := map[string]bool{}
	ref := func(name string) string {
		if name == "" {
			return "i8* null"
		}
		declared[name] = true
		return "i8* bitcast (void ()* @" + name + " to i8*)"
	}
	global := func(kind, f string, parts ...string) {
		h := fnv.New32a()
		io.WriteString(h, strings.Join(append([]string{f}, parts...), "\x00"))
		elems := []string{ref(f)}
		for _, p := range parts {
			elems = append(elems, ref(p))
		}
		fmt.Fprintf(&b, "@\"__enzyme_register_%s%s%s.%08x:%s\" = weak global [%d x i8*] [%s], section \"llvm.metadata\"\n",
			kind, gozymeRegistration, f, h.Sum32(), source, len(elems), strings.Join(elems, ", "))
	}
	for _, d := range decls {
		if !plainName.MatchString(d.Func) {
			continue
		}
		ok := true
		for _, p := range []string{d.Augment, d.Gradient, d.Forward} {
			ok = ok && (p == "" || plainName.MatchString(p))
		}
		if !ok {
			continue
		}
		if d.Augment != "" || d.Gradient != "" {
			global("gradient", d.Func, d.Augment, d.Gradient)
		}
		if d.Forward != "" {
			global("derivative", d.Func, d.Forward)
		}
	}
	names := make([]string, 0, len(declared))
	for n := range declared {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "declare void @%s()\n", n)
	}
	return b.String()
}
