package lto

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchDirsKeptInLinkCache: the linker's default search directories
// are asked of it once and then read from the link cache, until the
// linker's binary changes; without a cache, each process asks.
func TestSearchDirsKeptInLinkCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	count := filepath.Join(dir, "asked")
	ld := filepath.Join(dir, "fake-ld")
	script := func(dirs string) string {
		return "#!/bin/sh\necho x >> " + count + "\necho '" + dirs + "'\n"
	}
	if err := os.WriteFile(ld, []byte(script(`SEARCH_DIR("=/usr/local/lib"); SEARCH_DIR("/opt/lib");`)), 0o755); err != nil {
		t.Fatal(err)
	}
	asked := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "x")
	}
	forget := func() { // a new process: its own cache empty
		searchDirMu.Lock()
		delete(searchDirCache, ld)
		searchDirMu.Unlock()
	}
	want := "=/usr/local/lib /opt/lib"
	for i := 0; i < 3; i++ {
		forget()
		if got := strings.Join(cachedSearchDirs(cache, ld), " "); got != want {
			t.Fatalf("link %d: dirs %q, want %q", i, got, want)
		}
	}
	if n := asked(); n != 1 {
		t.Errorf("the linker was asked %d times over three links, want once", n)
	}
	// Another linker binary at the same path is asked again.
	if err := os.WriteFile(ld, []byte(script(`SEARCH_DIR("/other/lib");`)), 0o755); err != nil {
		t.Fatal(err)
	}
	forget()
	if got := strings.Join(cachedSearchDirs(cache, ld), " "); got != "/other/lib" || asked() != 2 {
		t.Errorf("after the linker changed: dirs %q, asked %d times", got, asked())
	}
	// Without a cache every process asks.
	forget()
	cachedSearchDirs("", ld)
	if asked() != 3 {
		t.Errorf("without a cache: asked %d times, want 3", asked())
	}
}
