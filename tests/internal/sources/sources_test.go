package sources

import (
	"os"
	"path/filepath"
	"testing"
)

// Read reads the Go files, go.mod and go.sum outside the folders no
// command is built from (a dangling link stands for a file that cannot be
// read, root or not) and fails on one it cannot read.
func TestRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkdir := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.WriteFile(mkdir("ad/ad.go"), []byte("package ad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"tests/e2e/x.go", "bench/x.go", "examples/x.go", "bin/x.go", "ad/notes.txt"} {
		if err := os.Symlink("missing", mkdir(rel)); err != nil {
			t.Fatal(err)
		}
	}
	if err := Read(root); err != nil {
		t.Fatalf("Read: %v", err)
	}
	for _, rel := range []string{"lto/x.go", "go.sum"} {
		p := mkdir(rel)
		if err := os.Symlink("missing", p); err != nil {
			t.Fatal(err)
		}
		if err := Read(root); err == nil {
			t.Errorf("Read did not read %s", rel)
		}
		os.Remove(p)
	}
}
