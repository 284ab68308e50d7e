package lto

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rootSrc = `double sq(double x) { return x * x; }
double __enzyme_autodiff(void *, ...);
double dsq(double x) { return __enzyme_autodiff((void *)sq, x); }
`

func readObj(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadEmbedded(t *testing.T) {
	dir := t.TempDir()
	obj := fatCompile(t, dir, "r.o", rootSrc, "-O2")
	if err := MarkFatObject(obj); err != nil {
		t.Fatal(err)
	}
	emb, err := ReadEmbedded(bytes.NewReader(readObj(t, obj)), obj)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(emb.Bitcode, bcMagic) {
		t.Fatalf("bitcode starts %x", emb.Bitcode[:4])
	}
	if n, err := countModules(emb.Bitcode); n != 1 || err != nil {
		t.Fatalf("countModules = %d, %v", n, err)
	}
	if len(emb.CC1Args) == 0 || emb.CC1Args[0] != "-cc1" {
		t.Fatalf("cc1 args %q", emb.CC1Args)
	}
	if got := OptLevelFromCC1(emb.CC1Args); got != "2" {
		t.Fatalf("opt level %q, want 2", got)
	}
	if !HasADRoots(emb.Bitcode) {
		t.Fatal("HasADRoots missed __enzyme_autodiff")
	}

	plain := plainCompile(t, dir, "p.o", mainSrc)
	emb, err = ReadEmbedded(bytes.NewReader(readObj(t, plain)), plain)
	if err != nil || emb.Bitcode != nil || emb.CC1Args != nil {
		t.Fatalf("plain object: %+v, %v", emb, err)
	}
}

func TestOptLevelFromCC1(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "0"},
		{[]string{"-cc1", "-O2"}, "2"},
		{[]string{"-O3", "-Os"}, "s"},
		{[]string{"-Oz"}, "z"},
		{[]string{"-Ofast"}, "3"},
		{[]string{"-O"}, "1"},
		{[]string{"-O2", "-O0"}, "0"},
		{[]string{"-Oxyz", "-O1"}, "1"},
	} {
		if got := OptLevelFromCC1(c.args); got != c.want {
			t.Errorf("OptLevelFromCC1(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestReadEmbeddedConcatenated(t *testing.T) {
	dir := t.TempDir()
	a := fatCompile(t, dir, "a.o", "int a(void) { return 1; }\n")
	b := fatCompile(t, dir, "b.o", "int b(void) { return 2; }\n")

	// ld -r merges both .llvmbc sections into one holding two modules.
	ab := filepath.Join(dir, "ab.o")
	run(t, dir, needTool(t, "ld"), "-r", a, b, "-o", ab)
	_, err := ReadEmbedded(bytes.NewReader(readObj(t, ab)), ab)
	if err == nil || !strings.Contains(err.Error(), ab) || !strings.Contains(err.Error(), "2 concatenated") {
		t.Fatalf("ld -r object: err = %v", err)
	}

	// --add-section adds a second .llvmbc section.
	bc, err := SectionBytes(bytes.NewReader(readObj(t, b)), b, ".llvmbc")
	if err != nil {
		t.Fatal(err)
	}
	bcFile := writeFile(t, dir, "b.bc", string(bc))
	two := filepath.Join(dir, "two.o")
	run(t, dir, needTool(t, "llvm-objcopy-14"), "--add-section", ".llvmbc="+bcFile, a, two)
	_, err = ReadEmbedded(bytes.NewReader(readObj(t, two)), "lib.a(two.o)")
	if err == nil || !strings.Contains(err.Error(), "lib.a(two.o)") || !strings.Contains(err.Error(), "2 .llvmbc sections") {
		t.Fatalf("two sections: err = %v", err)
	}
}

func TestReadEmbeddedCorrupt(t *testing.T) {
	dir := t.TempDir()
	obj := fatCompile(t, dir, "c.o", rootSrc)
	data := readObj(t, obj)
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".llvmbc")
	var idx int
	for i, s := range f.Sections {
		if s == sec {
			idx = i
		}
	}
	shoff := binary.LittleEndian.Uint64(data[0x28:])
	shentsize := uint64(binary.LittleEndian.Uint16(data[0x3a:]))

	cases := map[string][]byte{}
	// sh_offset (at +24 in an ELF64 section header) pointing past the end.
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint64(bad[shoff+uint64(idx)*shentsize+24:], uint64(len(data))+100)
	cases["offset past end"] = bad
	// sh_size larger than the file.
	bad = bytes.Clone(data)
	binary.LittleEndian.PutUint64(bad[shoff+uint64(idx)*shentsize+32:], uint64(len(data)))
	cases["size past end"] = bad
	// The file cut off inside the section headers.
	cases["truncated headers"] = data[:shoff+shentsize*2]
	// The file cut off in the ELF header.
	cases["truncated header"] = data[:20]
	// The bitcode's first block length scribbled over.
	bad = bytes.Clone(data)
	binary.LittleEndian.PutUint32(bad[sec.Offset+8:], 0x7fffffff)
	cases["corrupt bitcode"] = bad

	for name, b := range cases {
		_, err := ReadEmbedded(bytes.NewReader(b), "dir/c.o")
		if err == nil || !strings.HasPrefix(err.Error(), "dir/c.o: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
