package irutil

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVectorGEPUndefIndex: a vector getelementptr whose index vector has
// poison or undef lanes (the vectorizer's, for lanes nobody reads) parses,
// those lanes read as 0 and nothing else on other lines changes.
func TestVectorGEPUndefIndex(t *testing.T) {
	t.Parallel()
	src := `define <2 x double*> @f(<2 x double*> %v, i64 %k) {
  %g = getelementptr double, <2 x double*> %v, <2 x i64> <i64 4, i64 poison>
  %h = getelementptr inbounds double, <2 x double*> %g, <2 x i64> <i64 undef, i64 1>
  %s = select i1 true, i64 poison, i64 %k
  ret <2 x double*> %h
}
`
	m, err := ParseText("vgep.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := m.String()
	for _, want := range []string{"<2 x i64> <i64 4, i64 0>", "<2 x i64> <i64 0, i64 1>", "i64 poison, i64 %k"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// A getelementptr instruction indexed by a constant expression other than
// ptrtoint (Lua's string cache) parses: the index is computed by an
// instruction before it, and the module opt verifies is the same address.
func TestParseConstExprGEPIndex(t *testing.T) {
	t.Parallel()
	text := `@.str = private constant [2 x i8] c"a\00"
@cache = global [53 x [2 x i8*]] zeroinitializer

define i8** @slot(i64 %k) {
  %p = getelementptr inbounds [53 x [2 x i8*]], [53 x [2 x i8*]]* @cache, i64 0, i64 zext (i32 urem (i32 ptrtoint ([2 x i8]* @.str to i32), i32 53) to i64), i64 %k, !dbg !0
  ret i8** %p
}
!0 = !{}
`
	m, err := ParseText("gep.ll", []byte(strings.Replace(text, ", !dbg !0", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Funcs[0].Blocks[0].Insts
	if len(got) != 2 || !strings.Contains(got[0].LLString(), "add i64 zext (i32 urem") || !strings.Contains(got[1].LLString(), "i64 %gozyme.gepidx.") {
		t.Fatalf("got %v", got)
	}
	if opt, err := exec.LookPath("opt-14"); err == nil {
		out := filepath.Join(t.TempDir(), "gep.ll")
		if err := WriteText(m, out); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(opt, "-verify", "-disable-output", out).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, msg)
		}
	}
	if h := hoistConstIndices("  %q = getelementptr inbounds i8, i8* %p, i64 ptrtoint (i8* @x to i64)", 3); len(h) != 1 {
		t.Errorf("a ptrtoint index, which llir reads, was hoisted: %v", h)
	}
	if h := hoistConstIndices(strings.Split(text, "\n")[4], 4); len(h) != 2 || !strings.HasSuffix(h[1], ", !dbg !0") {
		t.Errorf("the line with metadata: %q", h)
	}
}
