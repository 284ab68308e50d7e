package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIrreducibleLoopsLink: loops entered at two places (gotos into a loop
// body) differentiate at every level: the pre-AD pipeline makes their
// control flow reducible (preopt's FixIrreducible). The program checks
// reverse and forward gradients against central differences.
func TestIrreducibleLoopsLink(t *testing.T) {
	setup(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "ad", "testdata", "irreducible_loops.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, o := range []string{"-O0", "-O1", "-O2", "-O3"} {
		exe := filepath.Join(dir, "prog"+o)
		run(t, dir, toolEnv("GOZYME_CACHE=off"), tool("gozyme-cc"), o, src, "-lm", "-o", exe)
		if out := run(t, dir, nil, exe); strings.Count(out, "central difference") != 6 {
			t.Errorf("%s: %s", o, out)
		}
	}
}
