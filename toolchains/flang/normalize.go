package flang

import (
	"regexp"
	"strings"
)

// Normalize rewrites the textual IR that flang-16's tools print (typed
// pointers, LLVM 16 syntax) into LLVM 14 syntax that llvm-as-14 and llir
// accept. It changes attribute spellings only, never code:
//   - memory(...) becomes the LLVM 14 attributes that cover the same
//     accesses (readnone, readonly, writeonly, argmemonly,
//     inaccessiblememonly, inaccessiblemem_or_argmemonly), erring on the
//     side of allowing more;
//   - allocptr, allockind("..."), nofpclass(...) and the arguments of
//     uwtable(...) are dropped (LLVM 14 has no such attributes);
//   - module-flag behaviour 8 (Min, LLVM 16) becomes 7 (Max), the
//     behaviour clang-14 gives the same flags.
//
// Text inside string literals and comments is left alone.
func Normalize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = ""
		}
		b.WriteString(normalizeLine(line))
	}
	return b.String()
}

// moduleFlagMin matches a module flag whose behaviour is LLVM 16's Min (8).
var moduleFlagMin = regexp.MustCompile(`^(![0-9]+ = !\{)i32 8(, !")`)

// normalizeLine rewrites the code parts of one line.
func normalizeLine(line string) string {
	if moduleFlagMin.MatchString(line) {
		return moduleFlagMin.ReplaceAllString(line, "${1}i32 7${2}")
	}
	if !strings.Contains(line, "memory(") && !strings.Contains(line, "alloc") &&
		!strings.Contains(line, "nofpclass(") && !strings.Contains(line, "uwtable(") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ';':
			b.WriteString(line[i:]) // a comment runs to the end of the line
			return b.String()
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				b.WriteString(line[i:])
				return b.String()
			}
			b.WriteString(line[i : i+j+2])
			i += j + 2
		case isWordByte(c) && (i == 0 || !isWordByte(line[i-1])):
			j := i
			for j < len(line) && isWordByte(line[j]) {
				j++
			}
			if repl, end, ok := rewriteAttr(line, i, j); ok {
				if repl == "" {
					// A dropped attribute takes its separating space along.
					kept := strings.TrimRight(b.String(), " ")
					b.Reset()
					b.WriteString(kept)
				}
				b.WriteString(repl)
				i = end
				continue
			}
			b.WriteString(line[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c == '%' || c == '@' || c == '#' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// rewriteAttr looks at the word line[i:j]; when it (with its parenthesized
// arguments) is an LLVM 16 attribute it returns the LLVM 14 replacement
// and the end of the text replaced; ok is false for any other word.
func rewriteAttr(line string, i, j int) (repl string, end int, ok bool) {
	word := line[i:j]
	args, end := "", j
	if j < len(line) && line[j] == '(' {
		k := strings.IndexByte(line[j:], ')')
		if k < 0 {
			return "", j, false
		}
		args, end = line[j+1:j+k], j+k+1
	}
	switch {
	case word == "allocptr":
		return "", j, true
	case word == "allockind" && end > j, word == "nofpclass" && end > j:
		return "", end, true
	case word == "uwtable" && end > j:
		return "uwtable", end, true
	case word == "memory" && end > j:
		return memoryAttrs(args), end, true
	}
	return "", j, false
}

// memAccess is what a memory(...) clause allows on one kind of location.
type memAccess uint8

const (
	accRead memAccess = 1 << iota
	accWrite
)

func parseAccess(s string) memAccess {
	switch strings.TrimSpace(s) {
	case "read":
		return accRead
	case "write":
		return accWrite
	case "readwrite":
		return accRead | accWrite
	}
	return 0
}

// memoryAttrs translates the arguments of memory(...) ("read",
// "argmem: readwrite", "read, inaccessiblemem: none", ...) to LLVM 14
// function attributes that allow at least the same accesses.
func memoryAttrs(args string) string {
	// Locations: argmem, inaccessiblemem, other. A bare access kind is the
	// default for every location not named.
	loc := map[string]memAccess{}
	def := memAccess(0)
	for _, part := range strings.Split(args, ",") {
		if k, v, ok := strings.Cut(part, ":"); ok {
			loc[strings.TrimSpace(k)] = parseAccess(v)
		} else {
			def = parseAccess(part)
		}
	}
	get := func(name string) memAccess {
		if a, ok := loc[name]; ok {
			return a
		}
		return def
	}
	arg, inacc, other := get("argmem"), get("inaccessiblemem"), def
	all := arg | inacc | other
	var out []string
	switch {
	case all == 0:
		return "readnone"
	case other != 0:
	case inacc == 0:
		out = append(out, "argmemonly")
	case arg == 0:
		out = append(out, "inaccessiblememonly")
	default:
		out = append(out, "inaccessiblemem_or_argmemonly")
	}
	switch all {
	case accRead:
		out = append(out, "readonly")
	case accWrite:
		out = append(out, "writeonly")
	}
	return strings.Join(out, " ")
}
