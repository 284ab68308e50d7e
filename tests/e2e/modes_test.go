package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModes builds tests/projects/modes with CC=gozyme-cc make at -O0..-O3:
// forward and batch mode of a loss in another translation unit, and
// Hessian-vector products by forward mode over a gradient root that lives
// in a third unit, and a custom forward rule in batch mode (called once per
// lane). The program checks every value itself (finite
// differences, single calls); here its verdict and line count are checked.
func TestModes(t *testing.T) {
	setup(t)
	for _, opt := range []string{"-O0", "-O1", "-O2", "-O3"} {
		t.Run(opt, func(t *testing.T) {
			dir := copyProject(t, "modes")
			env := toolEnv("CC=gozyme-cc")
			run(t, dir, env, "make", "CFLAGS="+opt)
			out := run(t, dir, env, filepath.Join(dir, "modes"))
			if !strings.Contains(out, "failures 0\n") || strings.Count("\n"+out, "\nok ") != 1+3+1+3+5 {
				t.Errorf("modes %s:\n%s", opt, out)
			}
		})
	}
}
