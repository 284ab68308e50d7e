package lto

import (
	"strings"
)

// dropUnusedDeclarations removes from a module's text the function
// declarations nothing else in it names, each with the "; Function Attrs"
// comment above it. The roots' cut turns the definitions it leaves to the
// native objects into declarations, most of which its kept code never
// calls: a client using a big header library leaves thousands, which opt
// would read, print and read again before the default pipeline's
// GlobalDCE drops them (the optimized module is the same without them).
// A name counts as used wherever it appears outside its own declaration
// line, strings and metadata included: a doubt keeps the declaration.
func dropUnusedDeclarations(text string) string {
	lines := strings.SplitAfter(text, "\n")
	used := map[string]bool{}
	declName := make([]string, len(lines))
	for i, l := range lines {
		own := ""
		if strings.HasPrefix(l, "declare ") {
			own = declaredName(l)
			declName[i] = own
		}
		for _, n := range globalNames(l) {
			if n != own {
				used[n] = true
			}
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

// declaredName is the "@name" a declaration line declares: the first
// global name before its parameter list; "" when there is none.
func declaredName(line string) string {
	names := globalNames(line)
	if len(names) == 0 {
		return ""
	}
	n := names[0]
	if i := strings.Index(line, n); i < 0 || !strings.HasPrefix(line[i+len(n):], "(") {
		return ""
	}
	return n
}

// globalNames lists the @-names in a line of IR text, as written: "@name",
// "@\"quoted name\"" or "@12".
func globalNames(line string) []string {
	var names []string
	for i := 0; i < len(line); i++ {
		if line[i] != '@' {
			continue
		}
		j := i + 1
		if j < len(line) && line[j] == '"' {
			k := strings.IndexByte(line[j+1:], '"')
			if k < 0 {
				break
			}
			j += k + 2
		} else {
			for j < len(line) && isNameChar(line[j]) {
				j++
			}
		}
		if j > i+1 {
			names = append(names, line[i:j])
		}
		i = j - 1
	}
	return names
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '$' || c == '.' || c == '_'
}
