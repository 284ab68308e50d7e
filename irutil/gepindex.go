package irutil

import (
	"fmt"
	"strings"
)

// hoistConstIndices rewrites a getelementptr instruction whose index is a
// constant expression other than ptrtoint (Lua's string cache indexed by
// `zext (i32 urem (i32 ptrtoint (...), i32 53) to i64)`), on which llir
// v0.3.6's parser panics: the index becomes a value computed just before
// the line (`%gozyme.gepidx.L.K = add i64 <expression>, 0`), the same
// address. It returns the line's replacement: the line itself when there
// is nothing to rewrite. line is the line's number, for unique names.
func hoistConstIndices(l string, line int) []string {
	eq := strings.Index(l, " = getelementptr ")
	if eq < 0 || !strings.HasPrefix(l, "  %") || strings.Contains(l[2:eq], " ") {
		return []string{l}
	}
	start := eq + len(" = getelementptr ")
	ops, ok := splitTopLevel(l[start:])
	if !ok || len(ops) < 3 {
		return []string{l}
	}
	var pre []string
	changed := false
	for k := 2; k < len(ops); k++ {
		op := strings.TrimSpace(ops[k])
		sp := strings.IndexByte(op, ' ')
		if sp < 0 || !strings.HasPrefix(op, "i") {
			continue
		}
		typ, val := op[:sp], op[sp+1:]
		word := val
		if w := strings.Index(val, " ("); w > 0 {
			word = val[:w]
		} else {
			continue
		}
		if word == "ptrtoint" || strings.ContainsAny(word, " %@<{[") {
			continue
		}
		name := fmt.Sprintf("%%gozyme.gepidx.%d.%d", line, k)
		pre = append(pre, fmt.Sprintf("  %s = add %s %s, 0", name, typ, val))
		ops[k] = " " + typ + " " + name
		changed = true
	}
	if !changed {
		return []string{l}
	}
	return append(pre, l[:start]+strings.Join(ops, ","))
}

// splitTopLevel splits s at the commas outside brackets and quotes.
func splitTopLevel(s string) ([]string, bool) {
	var out []string
	depth, from := 0, 0
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '"':
			j = skipQuoted(s, j)
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			depth--
			if depth < 0 {
				return nil, false
			}
		case ',':
			if depth == 0 {
				out = append(out, s[from:j])
				from = j + 1
			}
		}
	}
	return append(out, s[from:]), depth == 0
}

// skipQuoted is the index of the quote closing the one at s[j], len(s)
// when there is none.
func skipQuoted(s string, j int) int {
	for j++; j < len(s) && s[j] != '"'; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	return j
}
