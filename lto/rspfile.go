package lto

import (
	"fmt"
	"os"
	"strings"
)

// ExpandResponseFiles replaces every @file argument by the arguments the
// file holds, recursively, as GNU ld (libiberty's expandargv) does: words
// split at whitespace, single and double quotes group, backslash escapes
// the next character. An @file that cannot be read stays as it is.
func ExpandResponseFiles(args []string) ([]string, error) {
	return expandRsp(args, 0)
}

func expandRsp(args []string, depth int) ([]string, error) {
	if depth > 32 {
		return nil, fmt.Errorf("response files nested too deeply")
	}
	var out []string
	for _, a := range args {
		if len(a) < 2 || a[0] != '@' {
			out = append(out, a)
			continue
		}
		data, err := os.ReadFile(a[1:])
		if err != nil {
			out = append(out, a)
			continue
		}
		inner, err := expandRsp(splitRsp(string(data)), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return out, nil
}

// splitRsp splits response-file text into words (libiberty buildargv rules).
func splitRsp(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// quoteRsp quotes one argument for a response file read by splitRsp.
func quoteRsp(a string) string {
	var b strings.Builder
	if a == "" {
		return `""`
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if strings.IndexByte(" \t\n\r\f\v'\"\\", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}
