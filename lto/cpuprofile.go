package lto

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts a Go CPU profile of this process written to path
// (GOZYME_CPUPROFILE) and returns what stops it; nil, with a warning, when
// the file cannot be created. The profile is for measuring gozyme itself:
// a failure to write it never fails the link.
func startCPUProfile(path string) func() {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gozyme-ld: warning: cpu profile: %v\n", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "gozyme-ld: warning: cpu profile: %v\n", err)
		f.Close()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
