package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuildLogHasOnlyDiagnostics: a build that compiles and links cleanly
// with clang prints nothing with gozyme-cc either. SSE code (at -O1) makes
// the IR parser gozyme uses (llir) log a notice per getelementptr into a
// vector; those went to the user's build log (irutil.QuietParser).
func TestBuildLogHasOnlyDiagnostics(t *testing.T) {
	setup(t)
	src := filepath.Join(repoRoot, "ad", "testdata", "sse_float_bits.c")
	dir := t.TempDir()
	for _, level := range []string{"-O0", "-O1", "-O2", "-O3"} {
		exe := filepath.Join(dir, "prog"+level)
		stdout, stderr, err := runErr(dir, toolEnv("GOZYME_CACHE=off"), tool("gozyme-cc"), level, "-mavx2", src, "-o", exe, "-lm")
		if err != nil {
			t.Fatalf("%s: %v\n%s%s", level, err, stdout, stderr)
		}
		if stdout != "" || stderr != "" {
			t.Errorf("%s: the build printed\nstdout:\n%s\nstderr:\n%s", level, stdout, stderr)
		}
		if _, err := os.Stat(exe); err != nil {
			t.Fatal(err)
		}
		run(t, dir, toolEnv(), exe)
	}
}
