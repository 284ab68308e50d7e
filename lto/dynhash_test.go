package lto

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedLibraryHashLookup: asked through its GNU hash table, a shared
// library (libc, libm, libstdc++ of this machine, and one built here)
// defines exactly the names its dynamic symbol table defines, of any
// version; a name only referenced, or absent, is not defined.
func TestSharedLibraryHashLookup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plainCompile(t, dir, "s.o", "extern int ext(void); int __attribute__((weak)) w(void) { return 1; } int d(void) { return ext() + w(); } static int hidden_local(void) { return 0; }", "-fPIC")
	run(t, dir, needTool(t, "clang-14"), "-shared", "-o", "libs.so", "s.o")
	libs := []string{filepath.Join(dir, "libs.so")}
	for _, name := range []string{"libc.so.6", "libm.so.6", "libstdc++.so.6"} {
		out, err := exec.Command(needTool(t, "clang++-14"), "-print-file-name="+name).Output()
		if p := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(p) {
			libs = append(libs, p)
		}
	}
	for _, lib := range libs {
		f, err := elf.Open(lib)
		if err != nil {
			t.Fatal(err)
		}
		tab := newDynTable(f)
		if tab == nil {
			t.Fatalf("%s: no GNU hash table read", lib)
		}
		syms, err := f.DynamicSymbols()
		if err != nil {
			t.Fatal(err)
		}
		defined := map[string]bool{}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				defined[s.Name] = true
			}
		}
		for _, s := range syms {
			if got := tab.defines(s.Name); got != defined[s.Name] {
				t.Errorf("%s: %q defined %v by the hash table, %v by the symbol table", lib, s.Name, got, defined[s.Name])
			}
		}
		for _, name := range []string{"gozyme_no_such_symbol", "", "hidden_local"} {
			if tab.defines(name) {
				t.Errorf("%s: %q defined", lib, name)
			}
		}
		f.Close()
	}
}

// TestResolveSysvHashLibrary: a shared library without a GNU hash table
// (--hash-style=sysv) has its dynamic symbols read one by one: what it
// defines is not pulled from a later archive.
func TestResolveSysvHashLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lazyLib(t, dir)
	run(t, dir, needTool(t, "clang-14"), "-shared", "-Wl,--hash-style=sysv", "-o", "libl.so", "f.o", "g.o")
	f, err := elf.Open(filepath.Join(dir, "libl.so"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newDynTable(f) != nil {
		t.Fatal("a sysv-hash library has a GNU hash table")
	}
	sameList(t, "sysv shared first", members(resolveClang(t, dir, "main.o", "./libl.so", "libl.a", "-o", "app")), nil)
	sameList(t, "archive alone", members(resolveClang(t, dir, "main.o", "libl.a", "-o", "app")), []string{"libl.a(f.o)", "libl.a(g.o)"})
}
