package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gozyme/gozyme/tests/internal/sources"
)

var (
	// repoRoot is the gozyme checkout; binDir holds the commands built from it.
	repoRoot string
	binDir   string
)

// TestMain builds gozyme-cc, gozyme-c++ and gozyme-ld into a temporary bin
// directory, runs the tests, and removes the directory.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = root
	tmp, err := os.MkdirTemp("", "gozyme-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = tmp
	// Links reuse what they cached only within this run (TestLinkCache
	// uses a cache of its own).
	os.Setenv("GOZYME_CACHE", filepath.Join(tmp, "link-cache"))
	build := exec.Command("go", "build", "-buildvcs=false", "-o", binDir+string(filepath.Separator), "./cmd/...")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build -o %s/ ./cmd/... failed: %v\n%s", binDir, err, out)
		return 1
	}
	for _, name := range []string{"gozyme-cc", "gozyme-c++", "gozyme-fc", "gozyme-ld"} {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/... did not produce %s: %v\n", name, err)
			return 1
		}
	}
	return m.Run()
}

var (
	trackOnce sync.Once
	trackErr  error
)

// trackSources reads the gozyme sources the commands were built from.
// go test caches a package's result keyed by the files the test opens; the
// commands are built by a separate go build, so without this a change to
// lto/ or ad/ would not invalidate a cached pass.
func trackSources(t *testing.T) {
	t.Helper()
	trackOnce.Do(func() {
		trackErr = sources.Read(repoRoot)
	})
	if trackErr != nil {
		t.Fatalf("reading the gozyme sources: %v", trackErr)
	}
}
