package wrapper

import "bytes"

// includeDirective is one #include, #include_next or #import line of a
// file's text: the header it names, or computed when a macro names it.
type includeDirective struct {
	name     string
	computed bool
}

// includeDirectives lists the include directives of a file's text, as the
// attribute scan reads them: a line of optional blanks, '#', optional
// blanks, include, include_next or import, optional blanks, then "name" or
// <name> (a name on one line), or an identifier (computed). A hand-written
// scan: the regular expression it replaces cost a compile of a small
// source more than the rest of gozyme's work on it.
func includeDirectives(data []byte) []includeDirective {
	var out []includeDirective
	for i := 0; i < len(data); {
		k := bytes.IndexByte(data[i:], '#')
		if k < 0 {
			break
		}
		hash := i + k
		i = hash + 1
		if !lineStartsAt(data, hash) {
			continue
		}
		rest := skipBlanks(data[hash+1:])
		for _, kw := range []string{"include_next", "include", "import"} {
			if !bytes.HasPrefix(rest, []byte(kw)) {
				continue
			}
			if d, ok := includeOperand(skipBlanks(rest[len(kw):])); ok {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// lineStartsAt reports whether only blanks come before data[at] on its line.
func lineStartsAt(data []byte, at int) bool {
	for j := at - 1; j >= 0; j-- {
		switch data[j] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

func skipBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// includeOperand reads what follows the directive's keyword.
func includeOperand(b []byte) (includeDirective, bool) {
	if len(b) == 0 {
		return includeDirective{}, false
	}
	switch c := b[0]; {
	case c == '<' || c == '"':
		end := bytes.IndexAny(b[1:], ">\"\n")
		if end <= 0 || b[1+end] == '\n' {
			return includeDirective{}, false
		}
		return includeDirective{name: string(b[1 : 1+end])}, true
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return includeDirective{computed: true}, true
	}
	return includeDirective{}, false
}
