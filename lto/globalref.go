package lto

// globalRefScanner finds the references to global values in a line of IR
// text: what the regular expression
//
//	@(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+)
//
// matches (as irutil's partial parse does), found by hand: the roots' cut
// scans every line of a module's text with it, and the regular
// expression's backtracking was most of the cut's time on large modules.
type globalRefScanner struct{}

// globalRefRE matches a reference to a global value.
var globalRefRE globalRefScanner

func isRefNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '$' || c == '.' || c == '_'
}

func isRefDigit(c byte) bool { return c >= '0' && c <= '9' }

// refEnd is the end of the reference whose '@' is at s[at], -1 when none
// starts there.
func refEnd(s string, at int) int {
	i := at + 1
	if i >= len(s) {
		return -1
	}
	switch c := s[i]; {
	case c == '"':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '"':
				return j + 1
			case '\\':
				if j+1 >= len(s) || s[j+1] == '\n' {
					return -1 // \\. needs a character, and . is not a newline
				}
				j++
			}
		}
		return -1
	case isRefNameStart(c):
		for i++; i < len(s) && (isRefNameStart(s[i]) || isRefDigit(s[i])); i++ {
		}
		return i
	case isRefDigit(c):
		for i++; i < len(s) && isRefDigit(s[i]); i++ {
		}
		return i
	}
	return -1
}

// FindAllStringIndex returns the [start, end) of every reference in s, as
// regexp's FindAllStringIndex(s, -1) does.
func (globalRefScanner) FindAllStringIndex(s string, _ int) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		if end := refEnd(s, i); end > 0 {
			out = append(out, []int{i, end})
			i = end - 1
		}
	}
	return out
}

// FindAllString returns every reference in s.
func (r globalRefScanner) FindAllString(s string, n int) []string {
	var out []string
	for _, loc := range r.FindAllStringIndex(s, n) {
		out = append(out, s[loc[0]:loc[1]])
	}
	return out
}

// FindString returns the first reference in s, "" when there is none.
func (globalRefScanner) FindString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			if end := refEnd(s, i); end > 0 {
				return s[i:end]
			}
		}
	}
	return ""
}
