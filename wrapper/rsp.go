package wrapper

import (
	"os"
	"strings"
)

// maxRspDepth bounds response-file nesting (clang reports a cycle; the
// wrapper just stops expanding and lets clang report it).
const maxRspDepth = 32

// ExpandResponseFiles replaces each @file argument by the arguments the
// file holds, recursively, as the clang 14 driver does on Linux: GNU
// tokenization (whitespace separates; single and double quotes group;
// backslash escapes the next character, also inside quotes), nested file
// names relative to the working directory. An @file that cannot be read
// stays as it is, as clang then reports it as a missing input.
func ExpandResponseFiles(args []string) []string {
	return expandRsp(args, 0)
}

func expandRsp(args []string, depth int) []string {
	var out []string
	for _, a := range args {
		if len(a) < 2 || a[0] != '@' || depth >= maxRspDepth {
			out = append(out, a)
			continue
		}
		data, err := os.ReadFile(a[1:])
		if err != nil {
			out = append(out, a)
			continue
		}
		out = append(out, expandRsp(TokenizeGNU(string(data)), depth+1)...)
	}
	return out
}

// TokenizeGNU splits response-file text into arguments as LLVM's
// cl::TokenizeGNUCommandLine does.
func TokenizeGNU(s string) []string {
	var (
		args []string
		tok  strings.Builder
	)
	// As in LLVM, an empty token ("") is dropped.
	flush := func() {
		if tok.Len() > 0 {
			args = append(args, tok.String())
		}
		tok.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			tok.WriteByte(s[i])
		case c == '"' || c == '\'':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				tok.WriteByte(s[i])
			}
		case isSpace(c):
			flush()
		default:
			tok.WriteByte(c)
		}
	}
	flush()
	return args
}

// isSpace is LLVM's isWhitespace for GNU tokenization.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// QuoteGNU quotes one non-empty argument so that TokenizeGNU reads it
// back (an empty argument cannot be written to a response file).
func QuoteGNU(a string) string {
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		if isSpace(a[i]) || strings.IndexByte(`'"\`, a[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(a[i])
	}
	return b.String()
}
