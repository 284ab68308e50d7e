package lto

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeArchiveDir builds two objects named a.o in different directories and
// one with a long name, then archives them with GNU ar q (duplicates kept).
func makeArchiveDir(t *testing.T) (dir, lib string) {
	t.Helper()
	ar := needTool(t, "ar")
	dir = t.TempDir()
	a1 := plainCompile(t, dir, "d1/a.o", `int a1(void) { return 1; } int common_sym;
__attribute__((weak)) int w(void) { return 0; }
static int s(void) { return 2; }
extern int undef(void); int u(void) { return undef() + s(); }`)
	a2 := plainCompile(t, dir, "d2/a.o", "int a2(void) { return 2; }\n")
	long := plainCompile(t, dir, "averyveryverylongname_object.o", "int lng(void) { return 3; }\n")
	lib = filepath.Join(dir, "lib.a")
	for _, o := range []string{a1, a2, long} {
		run(t, dir, ar, "qD", lib, o)
	}
	run(t, dir, ar, "sD", lib)
	return dir, lib
}

func TestReadArchiveGNU(t *testing.T) {
	_, lib := makeArchiveDir(t)
	a, err := ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, m := range a.Members {
		if m.Index != i {
			t.Errorf("member %d has index %d", i, m.Index)
		}
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "a.o a.o averyveryverylongname_object.o" {
		t.Fatalf("members %q", got)
	}
	if got := definedSymbols(a.Members[0].Data); strings.Join(got, " ") != "a1 w u common_sym" {
		t.Errorf("defined symbols of first a.o: %q", got)
	}
	if got := definedSymbols(a.Members[1].Data); strings.Join(got, " ") != "a2" {
		t.Errorf("defined symbols of second a.o: %q", got)
	}
	if a.Origin(a.Members[2]) != lib+"(averyveryverylongname_object.o)" {
		t.Errorf("origin %q", a.Origin(a.Members[2]))
	}

	// Re-encoding what deterministic GNU ar wrote reproduces it byte for byte,
	// symbol table and long-name table included.
	orig := readObj(t, lib)
	enc, err := EncodeArchive(a.Members)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, orig) {
		t.Errorf("re-encoded archive differs from GNU ar's (%d vs %d bytes)", len(enc), len(orig))
	}
}

func TestReadArchiveBSDAndThin(t *testing.T) {
	llvmAr := needTool(t, "llvm-ar-14")
	dir, lib := makeArchiveDir(t)
	ga, err := ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	objs := []string{"d1/a.o", "d2/a.o", "averyveryverylongname_object.o"}

	bsd := filepath.Join(dir, "bsd.a")
	run(t, dir, llvmAr, append([]string{"--format=bsd", "rcs", bsd}, objs[2], objs[0])...)
	a, err := ReadArchive(bsd)
	if err != nil {
		t.Fatal(err)
	}
	if a.Thin || len(a.Members) != 2 || a.Members[0].Name != "averyveryverylongname_object.o" || a.Members[1].Name != "a.o" {
		t.Fatalf("bsd archive members: %+v", a.Members)
	}
	if !bytes.Equal(a.Members[0].Data, ga.Members[2].Data) || !bytes.Equal(a.Members[1].Data, ga.Members[0].Data) {
		t.Error("bsd member data differs from the objects")
	}

	thin := filepath.Join(dir, "thin.a")
	run(t, dir, needTool(t, "ar"), append([]string{"rcT", thin}, objs...)...)
	a, err = ReadArchive(thin)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Thin || len(a.Members) != 3 {
		t.Fatalf("thin archive: thin=%v, %d members", a.Thin, len(a.Members))
	}
	for i, m := range a.Members {
		if m.File != filepath.Join(dir, objs[i]) || !bytes.Equal(m.Data, ga.Members[i].Data) {
			t.Errorf("thin member %d: file %q, %d bytes", i, m.File, len(m.Data))
		}
	}
}

func TestReadArchiveCorrupt(t *testing.T) {
	_, lib := makeArchiveDir(t)
	data := readObj(t, lib)
	for name, b := range map[string][]byte{
		"truncated": data[:len(data)-100],
		"bad magic": append([]byte("!<arxh>\n"), data[8:]...),
		"bad fmag":  append(append([]byte{}, data[:66]...), append([]byte("xx"), data[68:]...)...),
	} {
		if _, err := ParseArchive(b, "dir/lib.a"); err == nil || !strings.HasPrefix(err.Error(), "dir/lib.a: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestArchiveReplaceLinks replaces the member defining a function and checks
// that ld.bfd and ld.lld link against the new definition.
func TestArchiveReplaceLinks(t *testing.T) {
	clang := needTool(t, "clang-14")
	ar := needTool(t, "ar")
	dir := t.TempDir()
	mainObj := plainCompile(t, dir, "main.o", "int pick(void); int other(void);\nint main(void) { return pick() + other(); }\n")
	pick := plainCompile(t, dir, "a_member_with_a_long_name.o", "int pick(void) { return 3; }\n")
	other := plainCompile(t, dir, "other.o", "int other(void) { return 4; }\n")
	lib := filepath.Join(dir, "libp.a")
	run(t, dir, ar, "rcs", lib, pick, other)

	a, err := ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	repl := plainCompile(t, dir, "new.o", "int helper(void) { return 30; }\nint pick(void) { return helper(); }\n")
	members, err := a.ReplaceMember(0, readObj(t, repl))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "libnew.a")
	if err := WriteArchiveFile(out, members); err != nil {
		t.Fatal(err)
	}
	if a2, err := ReadArchive(out); err != nil || len(a2.Members) != 2 || a2.Members[0].Name != "a_member_with_a_long_name.o" {
		t.Fatalf("rewritten archive: %v", err)
	}
	for _, ld := range []string{"bfd", "lld"} {
		exe := filepath.Join(dir, "app-"+ld)
		run(t, dir, clang, "-fuse-ld="+ld, mainObj, out, "-o", exe)
		err := exec.Command(exe).Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 34 {
			t.Errorf("ld.%s: program exit %v, want 34", ld, err)
		}
	}
	// The symbol table lists what nm sees.
	nm := string(run(t, dir, needTool(t, "nm"), "-s", out))
	for _, want := range []string{"helper in a_member_with_a_long_name.o", "pick in a_member_with_a_long_name.o", "other in other.o"} {
		if !strings.Contains(nm, want) {
			t.Errorf("archive index lacks %q:\n%s", want, nm)
		}
	}
	if _, err := os.Stat(lib); err != nil {
		t.Fatal(err)
	}
}

// A member header field that is not printable ASCII (a damaged archive:
// a date with UTF-8 bytes, found by FuzzObjectReaders) is written back as
// a default, keeping the copy's header 60 bytes long; a name holding a
// newline cannot be written at all.
func TestEncodeArchiveDamagedHeader(t *testing.T) {
	m := &Member{Name: "a.o", Date: "q\x87ۊ", UID: "0", GID: "0", Mode: "644", Data: []byte("xyz")}
	enc, err := EncodeArchive([]*Member{m})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseArchive(enc, "copy.a")
	if err != nil {
		t.Fatalf("copy does not parse: %v", err)
	}
	if len(a.Members) != 1 || a.Members[0].Name != "a.o" || string(a.Members[0].Data) != "xyz" || a.Members[0].Date != "0" {
		t.Errorf("copy holds %+v", a.Members)
	}
	if _, err := EncodeArchive([]*Member{{Name: "a\nb.o", Data: []byte("x")}}); err == nil {
		t.Errorf("a name with a newline was written")
	}
}
