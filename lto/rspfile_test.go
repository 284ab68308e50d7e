package lto

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSplitResponseFile: GCC's and GNU ld's splitting (libiberty) and
// clang's (LLVM's GNU tokenizer) on the same texts.
func TestSplitResponseFile(t *testing.T) {
	cases := []struct {
		in         string
		gnu, clang []string
	}{
		{"-c  foo.c\n-o\tfoo.o\r\n", []string{"-c", "foo.c", "-o", "foo.o"}, []string{"-c", "foo.c", "-o", "foo.o"}},
		{`-DMSG="hello world" 'a b'c`, []string{"-DMSG=hello world", "a bc"}, []string{"-DMSG=hello world", "a bc"}},
		{`a\ b c\\d "x\"y" 'p\'q'`, []string{"a b", `c\d`, `x"y`, "p'q"}, []string{"a b", `c\d`, `x"y`, "p'q"}},
		// An empty argument: libiberty keeps it, LLVM drops it.
		{`"" '' x`, []string{"", "", "x"}, []string{"x"}},
		// \f and \v separate arguments for libiberty only.
		{"a\fb\vc", []string{"a", "b", "c"}, []string{"a\fb\vc"}},
		{`"unterminated x`, []string{"unterminated x"}, []string{"unterminated x"}},
		{`trailing\`, []string{`trailing\`}, []string{`trailing\`}},
		{"", nil, nil},
		{" \n\t", nil, nil},
	}
	for _, c := range cases {
		if got := SplitResponseFile(c.in, RspGNU); !reflect.DeepEqual(got, c.gnu) {
			t.Errorf("SplitResponseFile(%q, RspGNU) = %q, want %q", c.in, got, c.gnu)
		}
		if got := SplitResponseFile(c.in, RspClang); !reflect.DeepEqual(got, c.clang) {
			t.Errorf("SplitResponseFile(%q, RspClang) = %q, want %q", c.in, got, c.clang)
		}
	}
}

// TestQuoteResponseArg: quoted arguments read back in both syntaxes (an
// empty one in RspGNU only).
func TestQuoteResponseArg(t *testing.T) {
	args := []string{"plain", "with space", `back\slash`, `"dq"`, "'sq'", "tab\there", "nl\nx", "ff\fvt\v", "@at"}
	var b strings.Builder
	for _, a := range args {
		b.WriteString(QuoteResponseArg(a) + "\n")
	}
	for _, syn := range []RspSyntax{RspGNU, RspClang} {
		if got := SplitResponseFile(b.String(), syn); !reflect.DeepEqual(got, args) {
			t.Errorf("syntax %d: round trip %q, want %q", syn, got, args)
		}
	}
	if got := SplitResponseFile(QuoteResponseArg("")+" x", RspGNU); !reflect.DeepEqual(got, []string{"", "x"}) {
		t.Errorf("empty argument read back as %q", got)
	}
}

// TestExpandResponseFilesNesting: nested files (names relative to the
// working directory), a missing file left as it is, the depth limit.
func TestExpandResponseFilesNesting(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll("sub", 0o755)
	os.WriteFile("sub/outer.rsp", []byte("-DX=1 @sub/inner.rsp\n'-o' \"out file\""), 0o644)
	os.WriteFile("sub/inner.rsp", []byte("-c\nm.c @missing.rsp"), 0o644)
	for _, syn := range []RspSyntax{RspGNU, RspClang} {
		got, err := ExpandResponseFilesAs([]string{"-O2", "@sub/outer.rsp", "@", "x@y"}, syn)
		want := []string{"-O2", "-DX=1", "-c", "m.c", "@missing.rsp", "-o", "out file", "@", "x@y"}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("syntax %d: got %q, %v; want %q", syn, got, err, want)
		}
	}

	// A chain MaxRspDepth files long expands; one file more is an error,
	// as is a file that names itself.
	chain := func(n int) string {
		for i := 0; i < n; i++ {
			next := fmt.Sprintf("@f%d.rsp", i+1)
			if i == n-1 {
				next = "end"
			}
			os.WriteFile(fmt.Sprintf("f%d.rsp", i), []byte(next), 0o644)
		}
		return "@f0.rsp"
	}
	if got, err := ExpandResponseFiles([]string{chain(MaxRspDepth)}); err != nil || !reflect.DeepEqual(got, []string{"end"}) {
		t.Errorf("%d nested files: %q, %v", MaxRspDepth, got, err)
	}
	// The last of them may name a file that is not there.
	os.WriteFile(fmt.Sprintf("f%d.rsp", MaxRspDepth-1), []byte("@missing.rsp"), 0o644)
	if got, err := ExpandResponseFiles([]string{"@f0.rsp"}); err != nil || !reflect.DeepEqual(got, []string{"@missing.rsp"}) {
		t.Errorf("%d nested files, the last naming a missing one: %q, %v", MaxRspDepth, got, err)
	}
	if _, err := ExpandResponseFiles([]string{chain(MaxRspDepth + 1)}); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("%d nested files: error %v, want one about nesting", MaxRspDepth+1, err)
	}
	os.WriteFile("self.rsp", []byte("a @self.rsp"), 0o644)
	for _, syn := range []RspSyntax{RspGNU, RspClang} {
		if got, err := ExpandResponseFilesAs([]string{"@self.rsp"}, syn); err == nil {
			t.Errorf("syntax %d: a file naming itself expanded to %d arguments", syn, len(got))
		}
	}
	// A missing file at the top stays as it is.
	if got, err := ExpandResponseFiles([]string{"@" + filepath.Join("no", "such.rsp")}); err != nil || len(got) != 1 || got[0] != "@no/such.rsp" {
		t.Errorf("missing file: %q, %v", got, err)
	}
}
