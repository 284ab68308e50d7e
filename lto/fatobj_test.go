package lto

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mainSrc = "int main(void) { return 0; }\n"

// sectionFlags returns the flags of every section called name in the ELF file.
func sectionFlags(t *testing.T, path, name string) []elf.SectionFlag {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fl []elf.SectionFlag
	for _, s := range f.Sections {
		if s.Name == name {
			fl = append(fl, s.Flags)
		}
	}
	return fl
}

func TestMarkFatObjectLinkDropsBitcode(t *testing.T) {
	dir := t.TempDir()
	clang := needTool(t, "clang-14")
	obj := fatCompile(t, dir, "x.o", mainSrc)

	// Unmarked: ld.bfd keeps .llvmbc in the executable.
	run(t, dir, clang, obj, "-o", filepath.Join(dir, "before"))
	if len(sectionFlags(t, filepath.Join(dir, "before"), ".llvmbc")) == 0 {
		t.Fatal("control: unmarked fat object's .llvmbc not in executable")
	}

	if err := MarkFatObject(obj); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".llvmbc", ".llvmcmd"} {
		fl := sectionFlags(t, obj, name)
		if len(fl) != 1 || fl[0]&shfExclude == 0 {
			t.Fatalf("%s flags after marking: %v", name, fl)
		}
	}
	for _, ld := range []string{"bfd", "lld"} {
		exe := filepath.Join(dir, "app-"+ld)
		run(t, dir, clang, "-fuse-ld="+ld, obj, "-o", exe)
		for _, name := range []string{".llvmbc", ".llvmcmd"} {
			if n := len(sectionFlags(t, exe, name)); n != 0 {
				t.Errorf("ld.%s kept %s in the executable", ld, name)
			}
		}
	}
	// Marking twice is harmless; the object still links.
	if err := MarkFatObject(obj); err != nil {
		t.Fatal(err)
	}
}

func TestMarkFatObjectClassesAndEndianness(t *testing.T) {
	for _, target := range []string{"i386-linux-gnu", "powerpc64-linux-gnu", "powerpc-linux-gnu", "aarch64-linux-gnu"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			obj := fatCompile(t, dir, "x.o", "int f(int x) { return x + 1; }\n", "--target="+target)
			before := sectionFlags(t, obj, ".text")
			if err := MarkFatObject(obj); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{".llvmbc", ".llvmcmd"} {
				fl := sectionFlags(t, obj, name)
				if len(fl) != 1 || fl[0]&shfExclude == 0 {
					t.Errorf("%s flags after marking: %v", name, fl)
				}
			}
			if after := sectionFlags(t, obj, ".text"); len(after) != 1 || after[0] != before[0] {
				t.Errorf(".text flags changed: %v -> %v", before, after)
			}
		})
	}
}

func TestMarkFatObjectNoBitcode(t *testing.T) {
	dir := t.TempDir()
	obj := plainCompile(t, dir, "x.o", mainSrc)
	if err := MarkFatObject(obj); err != nil {
		t.Fatal(err)
	}
	if err := MarkFatObject(filepath.Join(dir, "x.o.c")); err == nil {
		t.Fatal("MarkFatObject accepted a C source file")
	}
}

// ReplaceSection gives .llvmbc new contents; the object still links and
// the other sections are unchanged.
func TestReplaceSection(t *testing.T) {
	dir := t.TempDir()
	clang := needTool(t, "clang-14")
	obj := fatCompile(t, dir, "x.o", mainSrc)
	other := fatCompile(t, dir, "y.o", "int y(void) { return 1; }\n")
	if err := MarkFatObject(obj); err != nil {
		t.Fatal(err)
	}
	read := func(p string) Embedded {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		e, err := ReadEmbedded(f, p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	before, want := read(obj), read(other)
	if err := ReplaceSection(obj, ".llvmbc", want.Bitcode); err != nil {
		t.Fatal(err)
	}
	after := read(obj)
	if !bytes.Equal(after.Bitcode, want.Bitcode) || bytes.Equal(after.Bitcode, before.Bitcode) {
		t.Errorf(".llvmbc not replaced")
	}
	if strings.Join(after.CC1Args, " ") != strings.Join(before.CC1Args, " ") {
		t.Errorf(".llvmcmd changed")
	}
	if fl := sectionFlags(t, obj, ".llvmbc"); len(fl) != 1 || fl[0]&shfExclude == 0 {
		t.Errorf(".llvmbc flags after replacing: %v", fl)
	}
	run(t, dir, clang, obj, "-o", filepath.Join(dir, "app"))
	run(t, dir, filepath.Join(dir, "app"))
}
