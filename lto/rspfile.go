package lto

import (
	"fmt"
	"os"
	"strings"
)

// RspSyntax is how a tool splits a response file into arguments. Both
// syntaxes split at whitespace, group with single and double quotes, and
// let a backslash escape the next character (inside quotes too); they
// differ only in what counts as whitespace and in empty arguments.
type RspSyntax int

const (
	// RspGNU is libiberty's buildargv, as GCC and GNU ld read response
	// files: \v and \f are whitespace too, and "" is an empty argument.
	RspGNU RspSyntax = iota
	// RspClang is LLVM's cl::TokenizeGNUCommandLine, as clang (and lld)
	// read them: only space, \t, \r and \n are whitespace, and an empty
	// token ("") is dropped.
	RspClang
)

// MaxRspDepth bounds response-file nesting: a file nested deeper (a file
// that names itself, directly or not) is an error.
const MaxRspDepth = 32

// ExpandResponseFiles replaces every @file argument by the arguments the
// file holds, recursively, as GNU ld (libiberty's expandargv) does (see
// ExpandResponseFilesAs).
func ExpandResponseFiles(args []string) ([]string, error) {
	return ExpandResponseFilesAs(args, RspGNU)
}

// ExpandResponseFilesAs replaces every @file argument by the arguments the
// file holds, split with syntax, recursively; nested file names are
// relative to the working directory. An @file that cannot be read stays as
// it is (the tool then reports it as a missing input). Nesting deeper than
// MaxRspDepth is an error.
func ExpandResponseFilesAs(args []string, syntax RspSyntax) ([]string, error) {
	return expandRsp(args, syntax, 0)
}

func expandRsp(args []string, syntax RspSyntax, depth int) ([]string, error) {
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
		if depth >= MaxRspDepth {
			return nil, fmt.Errorf("response file %s: nested more than %d deep (does it include itself?)", a[1:], MaxRspDepth)
		}
		inner, err := expandRsp(SplitResponseFile(string(data), syntax), syntax, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return out, nil
}

// SplitResponseFile splits response-file text into arguments with syntax.
// An unterminated quote runs to the end of the text; a backslash at the
// very end stands for itself.
func SplitResponseFile(s string, syntax RspSyntax) []string {
	var words []string
	var cur strings.Builder
	inWord := false // an argument has begun (maybe empty: "")
	flush := func() {
		if inWord && (cur.Len() > 0 || syntax == RspGNU) {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
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
		case rspSpace(c, syntax):
			flush()
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// rspSpace reports whether c separates arguments in syntax.
func rspSpace(c byte, syntax RspSyntax) bool {
	switch c {
	case ' ', '\t', '\n', '\r':
		return true
	case '\f', '\v':
		return syntax == RspGNU
	}
	return false
}

// QuoteResponseArg quotes one argument for a response file, so that
// SplitResponseFile reads it back in either syntax (an empty argument
// reads back only in RspGNU: clang drops it).
func QuoteResponseArg(a string) string {
	if a == "" {
		return `""`
	}
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		c := a[i]
		if strings.IndexByte(" \t\n\r\f\v'\"\\", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}
