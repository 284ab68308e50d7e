// Command gozyme-ld is an ld-compatible linker: it differentiates the AD
// roots in the fat objects it links, then runs the real linker
// ($GOZYME_REAL_LD, else ld). Use it as `clang-14 --ld-path=gozyme-ld`.
package main

import (
	"os"

	"github.com/gozyme/gozyme/lto"
)

func main() {
	os.Exit(lto.Link(lto.ConfigFromEnv(), os.Args[1:]))
}
