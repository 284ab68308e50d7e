// Command gozyme-cc is a drop-in for clang-14 (CC=gozyme-cc): it runs
// clang-14 with the same arguments, embeds each object's bitcode so that
// the link can differentiate it, and links through gozyme-ld, which must
// sit beside it or on PATH.
//
// Environment: GOZYME_FLAGS (shell-quoted flags added to every compiler
// call), GOZYME_VERBOSE=1 (print each command run), GOZYME_KEEP_TEMPS=DIR
// (keep intermediate files in DIR).
package main

import (
	"os"

	"github.com/gozyme/gozyme/wrapper"
)

func main() {
	os.Exit(wrapper.Main(wrapper.LangC, wrapper.ConfigFromEnv(), os.Args[1:]))
}
