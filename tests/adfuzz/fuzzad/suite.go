package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gozyme/gozyme/tests/adfuzz"
)

// runSuite runs Enzyme's integration suite in dir at each level and prints
// the counts and every failing program with its class.
func runSuite(dir, bin string, levels []string, jobs int, runFlags bool, timeout, buildTimeout time.Duration) int {
	cfg := adfuzz.SuiteConfig{Dir: dir, Bin: bin, Levels: levels, Jobs: jobs, RunFlags: runFlags, RunTimeout: timeout, BuildTimeout: buildTimeout}
	res, err := cfg.Run(context.Background(), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzad:", err)
		return 2
	}
	res.Write(os.Stdout)
	return 0
}
