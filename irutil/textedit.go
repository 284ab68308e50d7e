package irutil

import (
	"fmt"
	"strconv"
	"strings"
)

// Text edits on a module as llvm-dis prints it (one global, declaration or
// function header per line, a function body closed by a lone "}"). They
// let the link change what a module defines or names without parsing it
// into llir; llvm-as (or llvm-link, opt) checks the result.

// DiscardDefinitions turns the definitions of the named global values
// (linker names, without '@') into declarations: a function's body goes, a
// variable's initializer goes, an alias becomes a declaration of its type.
// It is how a definition that loses at link time (a weak one overridden by
// another object, a later one under --allow-multiple-definition) leaves a
// module before it is merged with others. Names the module does not define
// are ignored; it returns those it discarded.
func DiscardDefinitions(text string, names map[string]bool) (string, []string, error) {
	if len(names) == 0 {
		return text, nil, nil
	}
	lines := strings.Split(text, "\n")
	var out []string
	var done []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "define "):
			name, _, _ := headerName(l)
			end := i
			for end < len(lines) && lines[end] != "}" {
				end++
			}
			if !names[name] {
				if end < len(lines) {
					out = append(out, lines[i:end+1]...)
					i = end
				} else {
					out = append(out, l)
				}
				continue
			}
			if end == len(lines) {
				return "", nil, fmt.Errorf("the body of @%s is not closed by a lone '}'", name)
			}
			decl, err := declareFromDefine(l)
			if err != nil {
				return "", nil, fmt.Errorf("@%s: %v", name, err)
			}
			out = append(out, decl)
			done = append(done, name)
			i = end
		case strings.HasPrefix(l, "@"):
			name, n := scanGlobalName(l, 0)
			if n < 0 || !names[name] || !strings.HasPrefix(l[n:], " = ") {
				out = append(out, l)
				continue
			}
			decl, err := externFromGlobal(l, n+len(" = "))
			if err != nil {
				return "", nil, fmt.Errorf("@%s: %v", name, err)
			}
			out = append(out, decl)
			done = append(done, name)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n"), done, nil
}

// linkageWords are the linkage keywords a declaration cannot carry.
var linkageWords = map[string]bool{
	"private": true, "internal": true, "available_externally": true, "linkonce": true,
	"weak": true, "common": true, "appending": true, "extern_weak": true,
	"linkonce_odr": true, "weak_odr": true, "external": true,
}

// DropUnusedDeclarations removes from a module's text the function
// declarations nothing else in it names, each with the "; Function Attrs"
// comment above it. The roots' cut turns the definitions it leaves to the
// native objects into declarations, most of which its kept code never
// calls: a client using a big header library leaves thousands, which opt
// would read, print and read again before the default pipeline's
// GlobalDCE drops them (the optimized module is the same without them).
// A name counts as used wherever it appears outside its own declaration
// line, strings and metadata included: a doubt keeps the declaration.
func DropUnusedDeclarations(text string) string {
	lines := strings.SplitAfter(text, "\n")
	used := map[string]bool{}
	declName := make([]string, len(lines))
	for i, l := range lines {
		own := ""
		if strings.HasPrefix(l, "declare ") {
			own, _, _ = headerName(l)
			declName[i] = own
		}
		for j := strings.IndexByte(l, '@'); j >= 0; {
			n, end := scanGlobalName(l, j)
			if end < 0 {
				end = j + 1
			} else if n != own {
				used[n] = true
			}
			k := strings.IndexByte(l[end:], '@')
			if k < 0 {
				break
			}
			j = end + k
		}
	}
	var b strings.Builder
	b.Grow(len(text))
	for i, l := range lines {
		if n := declName[i]; n != "" && !used[n] {
			continue
		}
		if strings.HasPrefix(l, "; Function Attrs:") && i+1 < len(lines) {
			if n := declName[i+1]; n != "" && !used[n] {
				continue
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// declareFromDefine turns a define line into a declare line: no linkage,
// the parameters as they were, and of what follows them only what a
// declaration may have (unnamed_addr, address space, attribute groups).
func declareFromDefine(l string) (string, error) {
	name, at, open := headerName(l)
	if name == "" {
		return "", fmt.Errorf("no function name in %q", l)
	}
	close := MatchClose(l, open)
	if close < 0 {
		return "", fmt.Errorf("unbalanced parameter list in %q", l)
	}
	var head []string
	for _, w := range strings.Fields(l[len("define "):at]) {
		if !linkageWords[w] {
			head = append(head, w)
		}
	}
	var tail []string
	for _, tok := range irTokens(strings.TrimSuffix(strings.TrimSpace(l[close:]), "{")) {
		if tok == "unnamed_addr" || tok == "local_unnamed_addr" || strings.HasPrefix(tok, "addrspace(") || strings.HasPrefix(tok, "#") {
			tail = append(tail, tok)
			continue
		}
		break // section, comdat, align, gc, prefix, prologue, personality, metadata
	}
	decl := "declare " + strings.Join(head, " ")
	if len(head) > 0 {
		decl += " "
	}
	decl += l[at:close]
	if len(tail) > 0 {
		decl += " " + strings.Join(tail, " ")
	}
	return decl, nil
}

// externFromGlobal turns a variable or alias definition line (the part
// after "@name = " starts at rest) into an external declaration.
func externFromGlobal(l string, rest int) (string, error) {
	body := l[rest:]
	var head []string
	pos := 0
	for _, tok := range irTokens(body) {
		pos = strings.Index(body[pos:], tok) + pos + len(tok)
		switch tok {
		case "global", "constant":
			typ := strings.TrimLeft(body[pos:], " ")
			n := TypeLen(typ)
			if n <= 0 {
				return "", fmt.Errorf("cannot read the type of %q", l)
			}
			decl := l[:rest] + joinWords(append(append([]string{"external"}, head...), tok, typ[:n]))
			if a := alignAttr(typ[n:]); a != "" {
				decl += ", " + a
			}
			return decl, nil
		case "alias":
			typ := strings.TrimLeft(body[pos:], " ")
			n := TypeLen(typ)
			if n <= 0 {
				return "", fmt.Errorf("cannot read the type of %q", l)
			}
			typ = typ[:n]
			ret, params, isFunc := splitFuncType(typ)
			if !isFunc {
				return l[:rest] + joinWords(append(append([]string{"external"}, head...), "global", typ)), nil
			}
			var pre, post []string
			for _, w := range head {
				switch {
				case w == "unnamed_addr" || w == "local_unnamed_addr":
					post = append(post, w)
				case strings.HasPrefix(w, "thread_local"):
				default:
					pre = append(pre, w)
				}
			}
			name, _ := scanGlobalName(l, 0)
			decl := "declare " + joinWords(append(pre, ret)) + " " + quoteGlobalName(name) + params
			if len(post) > 0 {
				decl += " " + joinWords(post)
			}
			return decl, nil
		case "ifunc":
			return "", fmt.Errorf("an ifunc cannot be discarded")
		}
		if !linkageWords[tok] && tok != "externally_initialized" {
			head = append(head, tok)
		}
	}
	return "", fmt.Errorf("not a global definition: %q", l)
}

func joinWords(w []string) string { return strings.Join(w, " ") }

// alignAttr returns the ", align N" attribute among a variable's trailing
// attributes, without its comma, or "".
func alignAttr(s string) string {
	for _, part := range SplitTopLevel(s, ',') {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, "align ") {
			return part
		}
	}
	return ""
}

// splitFuncType splits a function type "ret (params)" into its return type
// and parenthesized parameters.
func splitFuncType(t string) (ret, params string, ok bool) {
	if !strings.HasSuffix(t, ")") {
		return "", "", false
	}
	n := baseTypeLen(t)
	if n <= 0 || n >= len(t) || !strings.HasPrefix(t[n:], " (") {
		return "", "", false
	}
	if MatchClose(t, n+1) != len(t) {
		return "", "", false
	}
	return t[:n], t[n+1:], true
}

// headerName returns the name a define or declare line defines, the index
// of its '@' and of the '(' opening its parameters.
func headerName(l string) (name string, at, open int) {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '"':
			i = skipString(l, i) - 1
		case '@':
			n, end := scanGlobalName(l, i)
			if end > 0 && end < len(l) && l[end] == '(' {
				return n, i, end
			}
			if end > i {
				i = end - 1
			}
		}
	}
	return "", -1, -1
}

// scanGlobalName reads the global name starting with '@' at l[i]; it returns
// the name (quotes and escapes resolved) and the index after it, or -1.
func scanGlobalName(l string, i int) (string, int) {
	if i >= len(l) || l[i] != '@' || i+1 >= len(l) {
		return "", -1
	}
	if l[i+1] == '"' {
		end := skipString(l, i+1)
		if end < 0 {
			return "", -1
		}
		// A leading \01 (an asm label) is not part of the linker's name.
		return strings.TrimPrefix(UnescapeName(l[i+2:end-1]), "\x01"), end
	}
	j := i + 1
	for j < len(l) && isNameChar(l[j]) {
		j++
	}
	if j == i+1 {
		return "", -1
	}
	return l[i+1 : j], j
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '$' || c == '.' || c == '_'
}

// UnescapeName resolves the \XX escapes of a quoted LLVM name.
func UnescapeName(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quoteGlobalName spells a linker name as an LLVM global reference.
func quoteGlobalName(name string) string {
	plain := name != ""
	for i := 0; i < len(name); i++ {
		if !isNameChar(name[i]) {
			plain = false
		}
	}
	if plain && !(name[0] >= '0' && name[0] <= '9') {
		return "@" + name
	}
	var b strings.Builder
	b.WriteString(`@"`)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, `\%02X`, c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

// skipString returns the index after the string literal starting at s[i]
// (LLVM strings escape quotes as \22, so the next quote closes it), or -1.
func skipString(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '"')
	if j < 0 {
		return -1
	}
	return i + 1 + j + 1
}

// MatchClose returns the index after the bracket closing the one at s[i]
// ('(', '[', '{' or '<'), skipping strings and nested brackets, or -1.
func MatchClose(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			k := skipString(s, j)
			if k < 0 {
				return -1
			}
			j = k - 1
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// SplitTopLevel splits s at sep where it is outside brackets and strings.
func SplitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			if k := skipString(s, j); k > 0 {
				j = k - 1
			}
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}' || c == '>':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:j])
			start = j + 1
		}
	}
	return append(parts, s[start:])
}

// irTokens splits text into words, keeping strings and a word's
// parenthesized argument ("addrspace(1)", "comdat($x)") whole.
func irTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			switch s[j] {
			case '"':
				if k := skipString(s, j); k > 0 {
					j = k
					continue
				}
				j = len(s)
				continue
			case '(', '[', '{', '<':
				if k := MatchClose(s, j); k > 0 {
					j = k
					continue
				}
				j = len(s)
				continue
			}
			j++
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

// TypeLen returns the length of the type at the start of s: a base type,
// then pointer stars, address spaces and function parameter lists.
func TypeLen(s string) int {
	n := baseTypeLen(s)
	if n <= 0 {
		return n
	}
	for n < len(s) {
		switch {
		case s[n] == '*':
			n++
		case strings.HasPrefix(s[n:], " addrspace("):
			k := MatchClose(s, n+len(" addrspace"))
			if k < 0 || k >= len(s) || s[k] != '*' {
				return n
			}
			n = k
		case strings.HasPrefix(s[n:], " ("):
			k := MatchClose(s, n+1)
			if k < 0 {
				return n
			}
			n = k
		default:
			return n
		}
	}
	return n
}

// baseTypeLen returns the length of the type word or bracketed type at
// the start of s.
func baseTypeLen(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '{', '[', '<':
		return MatchClose(s, 0)
	case '%':
		if len(s) > 1 && s[1] == '"' {
			return skipString(s, 1)
		}
	}
	j := 0
	for j < len(s) && (isNameChar(s[j]) || s[j] == '%') {
		j++
	}
	return j
}

// RenameGlobals replaces every reference to a global value named in
// rename (linker names, without '@') by the new name, outside strings and
// comments. Two declarations that become one are kept once; two that
// differ are an error.
func RenameGlobals(text string, rename map[string]string) (string, error) {
	if len(rename) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ';':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			b.WriteString(text[i : i+j])
			i += j
		case c == '"':
			j := skipString(text, i)
			if j < 0 {
				j = len(text)
			}
			b.WriteString(text[i:j])
			i = j
		case c == '@':
			name, end := scanGlobalName(text, i)
			if end < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			if to, ok := rename[name]; ok {
				b.WriteString(quoteGlobalName(to))
			} else {
				b.WriteString(text[i:end])
			}
			i = end
		case c == '%' || c == '!' || c == '$' || isNameChar(c):
			// A local name, metadata, comdat or keyword: copy it whole so
			// that a quoted part of it is not taken for a string.
			j := i + 1
			if j < len(text) && text[j] == '"' {
				if k := skipString(text, j); k > 0 {
					j = k
				}
			}
			for j < len(text) && isNameChar(text[j]) {
				j++
			}
			b.WriteString(text[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return dedupeDeclarations(b.String())
}

// dedupeDeclarations keeps the first of several declarations of one name
// and drops the declarations of a name the module defines (a rename makes
// them meet: under --wrap=malloc, the declaration of malloc in the module
// defining __wrap_malloc); where their types differ, the calls through
// the dropped one no longer match and llvm-as says so.
func dedupeDeclarations(text string) (string, error) {
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "define "):
			if name, _, _ := headerName(l); name != "" {
				seen[name] = true
			}
		case strings.HasPrefix(l, "@") && !strings.Contains(l, " = external "):
			if name, end := scanGlobalName(l, 0); end > 0 {
				seen[name] = true
			}
		}
	}
	out := lines[:0]
	for _, l := range lines {
		var name string
		switch {
		case strings.HasPrefix(l, "declare "):
			name, _, _ = headerName(l)
		case strings.HasPrefix(l, "@") && strings.Contains(l, " = external "):
			name, _ = scanGlobalName(l, 0)
		}
		if name != "" {
			if seen[name] {
				continue
			}
			seen[name] = true
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), nil
}

// StripOptNone removes optnone from the attribute groups of a module: clang
// -O0 marks every function optnone, which the link-time optimizer before
// and after AD must not see (the compile keeps clang's own native code).
// It reports whether anything was removed.
func StripOptNone(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	changed := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "attributes #") || !strings.Contains(l, " optnone") {
			continue
		}
		lines[i] = strings.Replace(l, " optnone", "", 1)
		changed = true
	}
	if !changed {
		return text, false
	}
	return strings.Join(lines, "\n"), true
}
