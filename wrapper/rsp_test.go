package wrapper

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestTokenizeGNU(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"-c  foo.c\n-o\tfoo.o\r\n", []string{"-c", "foo.c", "-o", "foo.o"}},
		{`-DMSG="hello world" 'a b'c`, []string{"-DMSG=hello world", "a bc"}},
		{`a\ b c\\d "x\"y" 'p\'q'`, []string{"a b", `c\d`, `x"y`, "p'q"}},
		{`"" '' x`, []string{"x"}}, // LLVM drops empty tokens
		{`"unterminated x`, []string{"unterminated x"}},
		{`trailing\`, []string{`trailing\`}},
		{"", nil},
	}
	for _, c := range cases {
		if got := TokenizeGNU(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("TokenizeGNU(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQuoteGNURoundTrip(t *testing.T) {
	args := []string{"plain", "with space", `back\slash`, `"dq"`, "'sq'", "tab\there", "nl\nx", "@at"}
	var text string
	for _, a := range args {
		text += QuoteGNU(a) + "\n"
	}
	if got := TokenizeGNU(text); !reflect.DeepEqual(got, args) {
		t.Errorf("round trip %q, want %q", got, args)
	}
}

func TestExpandResponseFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("sub", 0o755)
	// Nested names are relative to the working directory, as in clang 14.
	os.WriteFile("sub/outer.params", []byte("-DX=1 @sub/inner.params\n'-o' \"out file\""), 0o644)
	os.WriteFile("sub/inner.params", []byte("-c\nm.c"), 0o644)
	os.WriteFile("self.params", []byte("@self.params"), 0o644)
	got, err := ExpandResponseFiles([]string{"-O2", "@sub/outer.params", "@missing.params", "@", "x@y"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-O2", "-DX=1", "-c", "m.c", "-o", "out file", "@missing.params", "@", "x@y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A cycle is an error rather than a loop forever.
	if got, err := ExpandResponseFiles([]string{"@self.params"}); err == nil {
		t.Errorf("cycle expanded to %q", got)
	}
}

func TestArgsFile(t *testing.T) {
	tmp := &tempDir{}
	defer tmp.remove()
	short := []string{"-c", "x.c"}
	if got, err := argsFile(short, tmp); err != nil || !reflect.DeepEqual(got, short) {
		t.Fatalf("short line became %q, %v", got, err)
	}
	long := []string{"-c"}
	for i := 0; i < 20000; i++ {
		long = append(long, filepath.Join("some dir", "-Dmacro_"+string(rune('a'+i%26))))
	}
	got, err := argsFile(long, tmp)
	if err != nil || len(got) != 1 || got[0][0] != '@' {
		t.Fatalf("long line became %d args, %v", len(got), err)
	}
	if back, err := ExpandResponseFiles(got); err != nil || !reflect.DeepEqual(back, long) {
		t.Errorf("response file does not read back as the arguments")
	}
}
