package lto

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
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
	return cachedSearchDirs("", path)
}

// cachedSearchDirs is DefaultSearchDirs, its answer also kept in the link
// cache in cacheDir ("": none) under the linker's identity (its resolved
// path, size, modification time and inode): `ld --verbose` costs as much
// as the rest of a relink's own work, and its answer is built into the
// linker's binary.
func cachedSearchDirs(cacheDir, path string) []string {
	searchDirMu.Lock()
	defer searchDirMu.Unlock()
	if dirs, ok := searchDirCache[path]; ok {
		return dirs
	}
	key := searchDirsKey(cacheDir, path)
	if data, ok := cacheGet(cacheDir, key, ".dirs"); ok && strings.HasPrefix(string(data), searchDirsHeader) {
		var dirs []string
		for _, d := range strings.Split(strings.TrimPrefix(string(data), searchDirsHeader), "\n") {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
		searchDirCache[path] = dirs
		return dirs
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--verbose").Output()
	var dirs []string
	for _, m := range searchDirRE.FindAllSubmatch(out, -1) {
		dirs = append(dirs, string(m[1]))
	}
	searchDirCache[path] = dirs
	if err == nil && len(out) > 0 && !strings.ContainsRune(strings.Join(dirs, ""), '\n') {
		cachePut(context.Background(), cacheDir, key, ".dirs", []byte(searchDirsHeader+strings.Join(dirs, "\n")))
	}
	return dirs
}

// searchDirsHeader starts a cached answer (an empty list is an answer).
const searchDirsHeader = "ld search dirs\n"

// searchDirsKey identifies the linker at path for the cache in cacheDir;
// "" when the cache is off or the linker cannot be read.
func searchDirsKey(cacheDir, path string) string {
	if cacheDir == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "ld --verbose SEARCH_DIR\x00%s\x00%s\x00%d\x00%d\x00%d", path, real, st.Size(), st.ModTime().UnixNano(), inode(st))
	return hex.EncodeToString(h.Sum(nil))
}

// inode is the file's inode number (0 where the system gives none).
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}
