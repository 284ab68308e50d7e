package lto

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
)

// Reading pieces of an instruction's text: argument lists, types,
// parameter attributes.

// splitTop splits a comma-separated list at its top level, each piece
// trimmed; an empty list is no piece.
func splitTop(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := irutil.SplitTopLevel(s, ',')
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// matchClose is the index of the bracket closing the one at s[i], -1 for
// none.
func matchClose(s string, i int) int {
	j := irutil.MatchClose(s, i)
	if j < 0 {
		return -1
	}
	return j - 1
}

// paramAttrs are the parameter and return attributes an argument list may
// carry; those that take a value in parentheses or after them are read
// with it.
var paramAttrs = map[string]bool{
	"noundef": true, "nonnull": true, "noalias": true, "nocapture": true, "readonly": true, "readnone": true,
	"writeonly": true, "signext": true, "zeroext": true, "inreg": true, "returned": true, "nest": true,
	"swiftself": true, "swifterror": true, "immarg": true, "nofree": true, "align": true,
	"dereferenceable": true, "dereferenceable_or_null": true, "byval": true, "sret": true, "byref": true,
}

// takeAttrs splits the attributes s starts with from what follows.
func takeAttrs(s string) (attrs, rest string) {
	s = strings.TrimSpace(s)
	var out []string
	for s != "" {
		w := s
		if k := strings.IndexAny(s, " ("); k >= 0 {
			w = s[:k]
		}
		if !paramAttrs[w] {
			break
		}
		n := len(w)
		switch {
		case n < len(s) && s[n] == '(':
			j := irutil.MatchClose(s, n)
			if j < 0 {
				return strings.Join(out, " "), s
			}
			n = j
		case w == "align":
			k := strings.TrimLeft(s[n:], " ")
			d := 0
			for d < len(k) && k[d] >= '0' && k[d] <= '9' {
				d++
			}
			n = len(s) - len(k) + d
		}
		out = append(out, s[:n])
		s = strings.TrimSpace(s[n:])
	}
	return strings.Join(out, " "), s
}

// splitOperand splits a call argument "type attrs value".
func splitOperand(s string) (typ, attrs, val string, ok bool) {
	n := irutil.TypeLen(s)
	if n <= 0 || n >= len(s) || s[n] != ' ' {
		return "", "", "", false
	}
	attrs, val = takeAttrs(s[n:])
	if val == "" {
		return "", "", "", false
	}
	return s[:n], attrs, val, true
}

// splitParam splits a declaration's parameter "type attrs" (no name).
func splitParam(s string) (typ, attrs string, ok bool) {
	n := irutil.TypeLen(s)
	if n <= 0 {
		return "", "", false
	}
	attrs, rest := takeAttrs(s[n:])
	return s[:n], attrs, rest == ""
}
