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
	size := func() int64 {
		st, err := os.Stat(obj)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	size0 := size()
	// Larger contents, then the smaller replacement: each time the file
	// holds the new bytes alone, in its old size plus the difference (and
	// padding below the largest alignment).
	larger := append(append([]byte{}, want.Bitcode...), bytes.Repeat([]byte{0xa5}, 3000)...)
	for _, data := range [][]byte{larger, want.Bitcode} {
		if err := ReplaceSection(obj, ".llvmbc", data); err != nil {
			t.Fatal(err)
		}
		grow := size() - (size0 + int64(len(data)-len(before.Bitcode)))
		if grow < 0 || grow >= 64 {
			t.Errorf("replacing %d bytes of .llvmbc by %d: file %d -> %d bytes", len(before.Bitcode), len(data), size0, size())
		}
		checkLayout(t, obj)
	}
	after := read(obj)
	if !bytes.Equal(after.Bitcode, want.Bitcode) || bytes.Equal(after.Bitcode, before.Bitcode) {
		t.Errorf(".llvmbc not replaced")
	}
	if file, _ := os.ReadFile(obj); bytes.Contains(file, before.Bitcode) || bytes.Contains(file, larger) {
		t.Errorf("a replaced .llvmbc is still in the file")
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

// checkLayout fails the test unless every section of the object at path
// lies inside the file, aligned, without overlapping another.
func checkLayout(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		name       string
		start, end uint64
	}
	var spans []span
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NULL || s.Type == elf.SHT_NOBITS {
			continue
		}
		if s.Addralign > 1 && s.Offset%s.Addralign != 0 {
			t.Errorf("%s at %#x, not aligned to %d", s.Name, s.Offset, s.Addralign)
		}
		if s.Offset+s.FileSize > uint64(st.Size()) {
			t.Errorf("%s ends past the file", s.Name)
		}
		for _, o := range spans {
			if s.Offset < o.end && o.start < s.Offset+s.FileSize {
				t.Errorf("%s overlaps %s", s.Name, o.name)
			}
		}
		spans = append(spans, span{s.Name, s.Offset, s.Offset + s.FileSize})
	}
}
