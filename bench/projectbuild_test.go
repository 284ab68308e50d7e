package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without a Lua source the project build is skipped with the reason; a
// release tree's src/ is found, and the library's sources leave out the
// programs and onelua.c.
func TestFindLua(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GOZYME_BENCH_LUA", empty)
	if dir, why := findLua(filepath.Join(t.TempDir(), "x")); dir != "" || !strings.Contains(why, "GOZYME_BENCH_LUA") {
		t.Errorf("empty directory: got %q, %q", dir, why)
	}
	tree := t.TempDir()
	src := filepath.Join(tree, "src")
	os.MkdirAll(src, 0o755)
	for _, f := range []string{"lua.c", "luac.c", "onelua.c", "lapi.c", "lvm.c", "lua.h"} {
		os.WriteFile(filepath.Join(src, f), nil, 0o644)
	}
	t.Setenv("GOZYME_BENCH_LUA", tree)
	if dir, _ := findLua(filepath.Join(t.TempDir(), "x")); dir != src {
		t.Errorf("release tree: found %q, want %q", dir, src)
	}
	lib, err := luaLibSources(src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range lib {
		names = append(names, filepath.Base(f))
	}
	if got := strings.Join(names, " "); got != "lapi.c lvm.c" {
		t.Errorf("library sources %q, want \"lapi.c lvm.c\"", got)
	}
	if got := goalRatio(1.31); !strings.Contains(got, "**") {
		t.Errorf("1.31x not marked over the goal: %s", got)
	}
}
