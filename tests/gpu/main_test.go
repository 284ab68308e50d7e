package gpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var (
	repoRoot string // the gozyme checkout
	binDir   string // gozyme-c++ and friends, built by TestMain
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpu:", err)
		return 1
	}
	repoRoot = root
	tmp, err := os.MkdirTemp("", "gozyme-gpu-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpu:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = tmp
	// Links reuse what they cached only within this run, never the
	// user's link cache.
	os.Setenv("GOZYME_CACHE", filepath.Join(tmp, "link-cache"))
	build := exec.Command("go", "build", "-buildvcs=false", "-o", binDir+string(filepath.Separator), "./cmd/...")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "gpu: go build ./cmd/... failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// libdevice returns NVIDIA's libdevice for the tests, skipping the test
// where there is none.
func libdevice(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("GOZYME_LIBDEVICE"), filepath.Join(repoRoot, "..", "shared", "cuda", "libdevice.10.bc")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no libdevice.10.bc (NVIDIA's device math library, part of the CUDA toolkit): set GOZYME_LIBDEVICE=/path/to/libdevice.10.bc")
	return ""
}
