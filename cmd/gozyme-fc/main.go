// Command gozyme-fc is a drop-in for flang-new-16 (FC=gozyme-fc): it runs
// flang-new-16 with the same arguments, embeds each Fortran object's
// LLVM 14 bitcode so that the link can differentiate it (C and Fortran
// alike), and links through gozyme-ld, which must sit beside it or on
// PATH, with the Fortran runtime libraries.
//
// Environment: GOZYME_FLAGS (shell-quoted flags added to every compiler
// call), GOZYME_VERBOSE=1 (print each command run), GOZYME_KEEP_TEMPS=DIR
// (keep intermediate files in DIR), GOZYME_FLANG_BIN (directory of
// flang-new when not flang-new-16 on PATH or in /usr/lib/llvm-16/bin).
package main

import (
	"os"

	"github.com/gozyme/gozyme/wrapper"
)

func main() {
	os.Exit(wrapper.Main(wrapper.LangFortran, wrapper.ConfigFromEnv(), os.Args[1:]))
}
