package irutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inlineScopes is a function whose accesses carry alias scopes written
// inline, as AD attaches them: the same list on several accesses, one
// list extending another, next to a numbered TBAA tag and a distinct loop
// ID.
const inlineScopes = `source_filename = "s.c"

define void @f(double* %p, double* %q, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %a = getelementptr double, double* %p, i64 %i
  %b = getelementptr double, double* %q, i64 %i
  %x = load double, double* %a, align 8, !tbaa !0, !noalias !{!{!"cache f", !{!"cache domain f"}}}
  %y = load double, double* %b, align 8, !alias.scope !{!{!"cache f", !{!"cache domain f"}}}
  %s = fadd double %x, %y
  store double %s, double* %a, align 8, !noalias !{!{!"cache f", !{!"cache domain f"}}, !{!"own f", !{!"own domain f"}}}
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit, !llvm.loop !4

exit:
  ret void
}

!0 = !{!1, !1, i64 0}
!1 = !{!"double", !2, i64 0}
!2 = !{!"omnipotent char", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
!4 = distinct !{!4, !5}
!5 = !{!"llvm.loop.mustprogress"}
`

// Numbered, each scope and list is written once, and LLVM reads the same
// module as from the inline text.
func TestNumberInlineMetadataKeepsTheModule(t *testing.T) {
	m, err := ParseText("s.ll", []byte(inlineScopes))
	if err != nil {
		t.Fatal(err)
	}
	NumberInlineMetadata(m)
	dir := t.TempDir()
	numbered := filepath.Join(dir, "numbered.ll")
	if err := writeText(m, numbered, ""); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(numbered)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Contains(text, "!{!{") || strings.Count(text, `!"cache f"`) != 1 || strings.Count(text, `!"own f"`) != 1 {
		t.Fatalf("scopes not written once each:\n%s", text)
	}
	opt, err := exec.LookPath("opt-14")
	if err != nil {
		t.Skip("opt-14 not installed")
	}
	inline := filepath.Join(dir, "inline.ll")
	if err := os.WriteFile(inline, []byte(inlineScopes), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		out, err := exec.Command(opt, "-S", p, "-o", "-").Output()
		if err != nil {
			t.Fatalf("opt %s: %v", p, err)
		}
		_, rest, _ := strings.Cut(string(out), "\n") // the ModuleID line
		return rest
	}
	if a, b := read(inline), read(numbered); a != b {
		t.Errorf("LLVM reads the inline module as\n%s\nand the numbered one as\n%s", a, b)
	}
}
