package gpu

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

var (
	inputsOnce sync.Once
	inputsErr  error
)

// gozymeCXX is the gozyme-c++ TestMain built. The first call reads what the
// tests' results depend on beyond this package's Go files (readInputs): go
// test caches a result by the files the test binary opens, and these are
// read by subprocesses it does not see. It is done in a test, not in
// TestMain: go test logs the files opened from m.Run on.
func gozymeCXX(t *testing.T) string {
	t.Helper()
	inputsOnce.Do(func() { inputsErr = readInputs(repoRoot) })
	if inputsErr != nil {
		t.Fatalf("reading the tests' inputs: %v", inputsErr)
	}
	return filepath.Join(binDir, "gozyme-c++")
}

// readInputs reads gozyme's Go sources (the commands TestMain built), the
// kernels and the emulator's runtime.
func readInputs(root string) error {
	if err := sources.Read(root); err != nil {
		return err
	}
	for _, dir := range []string{"kernels", "emu"} {
		files, err := filepath.Glob(filepath.Join(root, "tests", "gpu", dir, "*"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if _, err := os.ReadFile(f); err != nil {
				return err
			}
		}
	}
	return nil
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
