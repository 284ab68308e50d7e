package lto

import (
	"context"
	"os/exec"
	"regexp"
	"sync"
	"time"
)

var (
	searchDirMu    sync.Mutex
	searchDirCache = map[string][]string{}
	searchDirRE    = regexp.MustCompile(`SEARCH_DIR\("([^"]*)"\)`)
)

// DefaultSearchDirs returns the library directories the linker at path
// searches after the -L ones: the SEARCH_DIR entries of its built-in linker
// script (`ld --verbose`), with the leading "=" (sysroot) still attached.
// ld.lld has none. Results are cached per process.
func DefaultSearchDirs(path string) []string {
	searchDirMu.Lock()
	defer searchDirMu.Unlock()
	if dirs, ok := searchDirCache[path]; ok {
		return dirs
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "--verbose").Output()
	var dirs []string
	for _, m := range searchDirRE.FindAllSubmatch(out, -1) {
		dirs = append(dirs, string(m[1]))
	}
	searchDirCache[path] = dirs
	return dirs
}
