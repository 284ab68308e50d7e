package lto

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveSymbolIndex: the symbols GNU ar's index lists for each member
// (duplicate member names, a long name, weak and common definitions) are
// the ones its symbol table defines; an archive written without an index
// (ar S) has none, and resolution then reads the members and loads the
// same ones.
func TestArchiveSymbolIndex(t *testing.T) {
	t.Parallel()
	dir, lib := makeArchiveDir(t)
	a, err := ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	index := a.indexedSymbols()
	if index == nil {
		t.Fatal("no symbol index read")
	}
	for _, m := range a.Members {
		if got, want := strings.Join(index[m], " "), strings.Join(definedSymbols(m.Data), " "); got != want {
			t.Errorf("%s: index lists %q, symbol table defines %q", a.Origin(m), got, want)
		}
	}

	lazyLib(t, dir)
	run(t, dir, needTool(t, "ar"), "rcS", "libn.a", "h.o", "dup.o", "f.o", "g.o")
	noIndex, err := ReadArchive(filepath.Join(dir, "libn.a"))
	if err != nil {
		t.Fatal(err)
	}
	if noIndex.indexedSymbols() != nil {
		t.Error("an archive written without an index has one")
	}
	indexed := members(resolveClang(t, dir, "main.o", "libl.a", "-o", "app"))
	sameList(t, "members with an index", indexed, []string{"libl.a(f.o)", "libl.a(g.o)"})
	sameList(t, "members without an index", members(resolveClang(t, dir, "main.o", "libn.a", "-o", "app")), []string{"libn.a(f.o)", "libn.a(g.o)"})
}

// TestParseArmapWidths: the 32-bit ("/") and 64-bit ("/SYM64/") layouts;
// a table whose count, offsets or names run past its end is no index.
func TestParseArmapWidths(t *testing.T) {
	t.Parallel()
	encode := func(w int, count uint64, offs []uint64, names string) []byte {
		b := make([]byte, w*(len(offs)+1))
		put := func(i int, v uint64) {
			if w == 8 {
				binary.BigEndian.PutUint64(b[i*w:], v)
			} else {
				binary.BigEndian.PutUint32(b[i*w:], uint32(v))
			}
		}
		put(0, count)
		for i, o := range offs {
			put(i+1, o)
		}
		return append(b, names...)
	}
	for _, w := range []int{4, 8} {
		got := parseArmap(encode(w, 2, []uint64{68, 200}, "f\x00g_long\x00"), w == 8)
		if len(got) != 2 || got[0] != (armapEntry{"f", 68}) || got[1] != (armapEntry{"g_long", 200}) {
			t.Errorf("width %d: %+v", w, got)
		}
		for what, data := range map[string][]byte{
			"count past the end":   encode(w, 9, []uint64{68, 200}, "f\x00g\x00"),
			"names past the end":   encode(w, 2, []uint64{68, 200}, "f\x00g"),
			"shorter than a count": make([]byte, w-1),
		} {
			if got := parseArmap(data, w == 8); got != nil {
				t.Errorf("width %d, %s: %+v", w, what, got)
			}
		}
	}
}
