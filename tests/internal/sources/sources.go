// Package sources lets the end-to-end test packages key go test's result
// cache on gozyme's sources. go test caches a package's result by the files
// its test binary opens; these packages run commands built by a separate go
// build, so a change to lto/ or ad/ would not invalidate a cached pass unless
// the test reads the sources the commands are built from.
package sources

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// notCommands are the folders of the checkout no command is built from.
var notCommands = map[string]bool{".git": true, "bin": true, "build": true, "tests": true, "bench": true, "bazel": true, "examples": true}

// Read reads go.mod, go.sum and every Go file of the checkout at root that
// the commands may be built from. Call it from a test, not from TestMain:
// go test records the files opened from m.Run on.
func Read(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if notCommands[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || rel == "go.mod" || rel == "go.sum" {
			_, err = os.ReadFile(path)
		}
		return err
	})
}
