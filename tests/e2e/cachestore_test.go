package e2e

import (
	"debug/elf"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheStoresStayInLoops builds tests/projects/cachestore with
// gozyme-cc -O2: the program checks its gradient against central
// differences itself, and its executable imports no memcpy (the forward
// sweep's cache stores of loaded values stay in their loop; the program
// calls memcpy nowhere else).
func TestCacheStoresStayInLoops(t *testing.T) {
	setup(t)
	dir := copyProject(t, "cachestore")
	env := toolEnv()
	exe := filepath.Join(dir, "cachestore")
	run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", "cachestore.c", "-o", "cachestore.o")
	run(t, dir, env, tool("gozyme-cc"), "-O2", "cachestore.o", "-o", exe, "-lm")
	out := run(t, dir, env, exe)
	if n := strings.Count(out, "sweeps "); n != 3 {
		t.Errorf("%d derivatives printed, want 3:\n%s", n, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "memcpy") {
			t.Errorf("%s imports %s: a cache copy became a memcpy call", exe, s.Name)
		}
	}
}
