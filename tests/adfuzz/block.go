package adfuzz

import (
	"fmt"
	"strings"
)

// block is C source being written, with an indentation level.
type block struct {
	b   strings.Builder
	ind int
}

// p writes one line at the current indentation.
func (w *block) p(format string, args ...any) {
	w.b.WriteString(strings.Repeat("\t", w.ind))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// open writes a line ending in "{" and indents what follows.
func (w *block) open(format string, args ...any) {
	if format == "" {
		w.p("{")
	} else {
		w.p(format+" {", args...)
	}
	w.ind++
}

// close ends the innermost open block.
func (w *block) close() {
	w.ind--
	w.p("}")
}

// cpp writes a preprocessor line, unindented.
func (w *block) cpp(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *block) String() string { return w.b.String() }
