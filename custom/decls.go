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

// Declared is what the attributes of one declaration say, by symbol name:
// the custom derivative an enzyme(...) attribute gives a function (a part
// is "" when no attribute gives it), and Enzyme's other attributes
// (attributes.go) on functions and globals.
type Declared struct {
	Func                       string
	Augment, Gradient, Forward string
	Global                     bool   // Func names a global variable
	Inactive                   bool   // enzyme_inactive
	FunctionLike               string // enzyme_function_like("name")
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
// with AttributeMacros), and enzyme_inactive and enzyme_function_like on
// functions and global variables. Static functions and globals are left
// out: only their own TU can define them, and there the definition's
// annotation registers them. Two different rules of one kind for one
// function are an error.
func DeclaredInAST(r io.Reader) ([]Declared, error) {
	var root astNode
	if err := json.NewDecoder(r).Decode(&root); err != nil {
		return nil, fmt.Errorf("reading clang's AST dump: %v", err)
	}
	symbol := map[string]string{} // declaration id -> symbol name
	external := map[string]bool{}
	var decls []*astNode
	var index func(n *astNode)
	index = func(n *astNode) {
		if (n.Kind == "FunctionDecl" || n.Kind == "VarDecl") && n.MangledName != "" {
			symbol[n.ID] = n.MangledName
			if n.StorageClass != "static" {
				external[n.MangledName] = true
			}
			decls = append(decls, n)
			return
		}
		for i := range n.Inner {
			index(&n.Inner[i])
		}
	}
	index(&root)
	byName := map[string]*Declared{}
	get := func(n *astNode) *Declared {
		d := byName[n.MangledName]
		if d == nil {
			d = &Declared{Func: n.MangledName, Global: n.Kind == "VarDecl"}
			byName[n.MangledName] = d
		}
		return d
	}
	for _, n := range decls {
		if !external[n.MangledName] {
			continue
		}
		for i := range n.Inner {
			a := &n.Inner[i]
			if kind, like := otherAttr(a); kind != "" {
				d := get(n)
				switch {
				case kind == "inactive":
					d.Inactive = true
				case kind == "function_like" && n.Kind == "FunctionDecl":
					if d.FunctionLike != "" && d.FunctionLike != like {
						return nil, fmt.Errorf("'%s' is declared enzyme_function_like(\"%s\") and enzyme_function_like(\"%s\")", n.MangledName, d.FunctionLike, like)
					}
					d.FunctionLike = like
				}
				continue
			}
			kind, rule := enzymeAttr(a, symbol)
			if kind == "" || n.Kind != "FunctionDecl" || !external[rule] {
				continue
			}
			d := get(n)
			slot := map[string]*string{"augment": &d.Augment, "gradient": &d.Gradient, "forward": &d.Forward}[kind]
			if *slot != "" && *slot != rule {
				return nil, fmt.Errorf("two different enzyme(\"%s\", ...) rules for '%s': '%s' and '%s'", kind, n.MangledName, *slot, rule)
			}
			*slot = rule
		}
	}
	out := make([]Declared, 0, len(byName))
	for _, d := range byName {
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
	switch k := literal(lit); k {
	case "augment", "gradient", "forward":
		return k, symbol[ref.ReferencedDecl.ID]
	}
	return "", ""
}

// otherAttr reads an annotate attribute made by InactiveMacro or
// FunctionLikeMacro: its first argument is the kind as a string literal,
// the second the function's name for function_like. It returns "" for
// other nodes.
func otherAttr(n *astNode) (kind, like string) {
	if n.Kind != "AnnotateAttr" || len(n.Inner) == 0 {
		return "", ""
	}
	lit := find(&n.Inner[0], "StringLiteral")
	if lit == nil || find(&n.Inner[0], "DeclRefExpr") != nil {
		return "", ""
	}
	switch k := literal(lit); {
	case k == "inactive" && len(n.Inner) == 1:
		return k, ""
	case k == "function_like" && len(n.Inner) == 2:
		if name := find(&n.Inner[1], "StringLiteral"); name != nil {
			return k, literal(name)
		}
	}
	return "", ""
}

// literal is the text of a StringLiteral node ("" when it has none).
func literal(n *astNode) string {
	var text string
	if json.Unmarshal(n.Value, &text) != nil {
		return ""
	}
	return strings.Trim(text, `"`)
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
//
// Enzyme's other attributes become the globals Enzyme's own forms use:
// __enzyme_inactivefn = {f}, __enzyme_inactive_global = {&g} (g declared
// as an i8 when the TU does not define it) and __enzyme_function_like =
// {f, "name"}.
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
	other := func(kind, f string, elems ...string) {
		h := fnv.New32a()
		io.WriteString(h, strings.Join(append([]string{kind, f}, elems...), "\x00"))
		fmt.Fprintf(&b, "@\"%s%s%s.%08x:%s\" = weak global [%d x i8*] [%s], section \"llvm.metadata\"\n",
			kind, gozymeRegistration, f, h.Sum32(), source, len(elems), strings.Join(elems, ", "))
	}
	var globals []string
	for _, d := range decls {
		if !plainName.MatchString(d.Func) {
			continue
		}
		switch {
		case d.Global && d.Inactive:
			globals = append(globals, d.Func)
			other("__enzyme_inactive_global", d.Func, "i8* @"+d.Func)
		case d.Inactive:
			other("__enzyme_inactivefn", d.Func, ref(d.Func))
		}
		if d.FunctionLike != "" && !d.Global {
			h := fnv.New32a()
			io.WriteString(h, d.Func+"\x00"+d.FunctionLike)
			str := fmt.Sprintf("@\"__gozyme_function_like.%08x\"", h.Sum32())
			n := len(d.FunctionLike) + 1
			fmt.Fprintf(&b, "%s = private unnamed_addr constant [%d x i8] c\"%s\\00\", section \"llvm.metadata\"\n", str, n, irBytes(d.FunctionLike))
			other("__enzyme_function_like", d.Func, ref(d.Func), fmt.Sprintf("i8* getelementptr ([%d x i8], [%d x i8]* %s, i64 0, i64 0)", n, n, str))
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
	sort.Strings(globals)
	for _, g := range globals {
		fmt.Fprintf(&b, "@%s = external global i8\n", g)
	}
	return b.String()
}

// irBytes escapes a string for an LLVM c"..." constant.
func irBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%02X", c)
		}
	}
	return b.String()
}
