package irutil

import "strings"

// IsIndirectCall reports whether line holds a call or invoke through a
// local value, exactly as IndirectCall.MatchString(line) does, without the
// regular expression's backtracking over every line of a module (the
// roots' cut and the partial parse test each line of each definition): a
// "call" or "invoke" keyword standing as a word, then on the same line,
// before any '@', a local name followed by '('.
func IsIndirectCall(line string) bool {
	for from := 0; from < len(line); {
		i, n := nextCallKeyword(line, from)
		if i < 0 {
			return false
		}
		if localCalleeFollows(line[i+n:]) {
			return true
		}
		from = i + 1
	}
	return false
}

// nextCallKeyword finds the first "call" or "invoke" at or after from
// that stands as a word (ASCII word characters neither before nor after
// it, as the regular expression's \b) and returns its index and length,
// or -1.
func nextCallKeyword(line string, from int) (int, int) {
	for from < len(line) {
		c := strings.Index(line[from:], "call")
		v := strings.Index(line[from:], "invoke")
		i, n := c, len("call")
		if c < 0 || (v >= 0 && v < c) {
			i, n = v, len("invoke")
		}
		if i < 0 {
			return -1, 0
		}
		i += from
		if (i == 0 || !isASCIIWord(line[i-1])) && (i+n == len(line) || !isASCIIWord(line[i+n])) {
			return i, n
		}
		from = i + 1
	}
	return -1, 0
}

// localCalleeFollows reports whether rest, before its first '@' or
// newline, holds '%', one or more name characters and '('.
func localCalleeFollows(rest string) bool {
	if end := strings.IndexAny(rest, "@\n"); end >= 0 {
		rest = rest[:end]
	}
	for {
		p := strings.IndexByte(rest, '%')
		if p < 0 {
			return false
		}
		j := p + 1
		for j < len(rest) && isNameChar(rest[j]) {
			j++
		}
		if j > p+1 && j < len(rest) && rest[j] == '(' {
			return true
		}
		rest = rest[p+1:]
	}
}

// isASCIIWord is \w of Go's regular expressions: [0-9A-Za-z_].
func isASCIIWord(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
