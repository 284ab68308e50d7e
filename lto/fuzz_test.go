package lto

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are real inputs of a link: a fat object (clang-14's embedded
// bitcode), a plain object, an ar archive holding both, the bare bitcode
// of a -flto object, and damaged copies of each (truncated, a corrupt
// bitcode section, a corrupt member header). Without clang-14 there are
// none and the fuzzer starts from its own inputs.
func fuzzSeeds(f *testing.F) [][]byte {
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		return nil
	}
	dir := f.TempDir()
	src := filepath.Join(dir, "s.c")
	if err := os.WriteFile(src, []byte("double __enzyme_autodiff(void *, ...);\n__attribute__((weak)) double sq(double x) { return x * x; }\ndouble g(double x) { return __enzyme_autodiff((void *)sq, x); }\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	build := func(name string, args ...string) []byte {
		out := filepath.Join(dir, name)
		if msg, err := exec.Command(clang, append(args, "-c", src, "-o", out)...).CombinedOutput(); err != nil {
			f.Fatalf("clang-14 %v: %v\n%s", args, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			f.Fatal(err)
		}
		return data
	}
	fat := build("fat.o", "-O1", "-Xclang", "-fembed-bitcode=all")
	plain := build("plain.o", "-O1")
	lto := build("lto.o", "-O1", "-flto")
	ar, err := EncodeArchive([]*Member{{Name: "fat.o", Data: fat}, {Name: "a-long-member-name.o", Data: plain}})
	if err != nil {
		f.Fatal(err)
	}
	damaged := func(data []byte, at int, with byte) []byte {
		d := append([]byte(nil), data...)
		for i := at; i < at+16 && i < len(d); i++ {
			d[i] = with
		}
		return d
	}
	bc := bytes.Index(fat, []byte("BC\xc0\xde"))
	hdr := bytes.Index(ar, []byte("fat.o/"))
	return [][]byte{fat, plain, lto, ar,
		fat[:len(fat)/2], damaged(fat, bc+40, 0xff), ar[:len(ar)-100],
		damaged(ar, hdr+58, 'X'), lto[:len(lto)/3]}
}

// FuzzObjectReaders: the readers of link inputs (ELF objects and their
// embedded bitcode sections, symbol tables, ar archives and their members,
// bitcode module framing) never panic on any bytes, and every error names
// the input it is about, as a compiler's would.
func FuzzObjectReaders(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("!<thin>\n/               0           0     0     0       4         `\n\x00\x00\x00\x00"))
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		named := func(err error, origin, what string) {
			if err != nil && !strings.Contains(err.Error(), origin) {
				t.Fatalf("%s: error %q does not name %s", what, err, origin)
			}
		}
		readObject := func(data []byte, origin string) {
			emb, err := ReadEmbedded(bytes.NewReader(data), origin)
			named(err, origin, "ReadEmbedded")
			irsymtabLines(emb.Bitcode)
			BitcodeSectionOf(bytes.NewReader(data))
			if !IsBitcode(data) { // bitcode files are read by llvm-nm
				elfSymbols(data)
				definedSymbols(data)
			}
			countModules(data)
			irsymtabLines(data)
		}
		readObject(data, "fuzz.o")
		a, err := ParseArchive(data, "fuzz.a")
		named(err, "fuzz.a", "ParseArchive")
		if err != nil || a.Thin {
			return
		}
		for _, m := range a.Members {
			readObject(m.Data, a.Origin(m))
		}
		// What the link writes back (an archive copy with members
		// replaced) reads back as the same members.
		enc, err := EncodeArchive(a.Members)
		if err != nil {
			return
		}
		b, err := ParseArchive(enc, "copy.a")
		if err != nil {
			t.Fatalf("re-encoded archive does not parse: %v", err)
		}
		if len(b.Members) != len(a.Members) {
			t.Fatalf("re-encoded archive has %d members, want %d", len(b.Members), len(a.Members))
		}
		for i, m := range b.Members {
			if m.Name != a.Members[i].Name || !bytes.Equal(m.Data, a.Members[i].Data) {
				t.Fatalf("member %d re-encoded as %q (%d bytes), want %q (%d bytes)", i, m.Name, len(m.Data), a.Members[i].Name, len(a.Members[i].Data))
			}
		}
	})
}
