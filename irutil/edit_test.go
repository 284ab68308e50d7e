package irutil

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

const taggedLoadIR = `
define i32 @f(i32* %p) !dbg !10 {
  %v = load i32, i32* %p, align 4, !tbaa !1, !range !4, !dbg !12, !alias.scope !5, !invariant.load !8
  ret i32 %v
}

!llvm.module.flags = !{!13}
!llvm.dbg.cu = !{!14}
!1 = !{!2, !2, i64 0}
!2 = !{!"int", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
!4 = !{i32 0, i32 10}
!5 = !{!6}
!6 = distinct !{!6, !7}
!7 = distinct !{!7}
!8 = !{}
!9 = !DIFile(filename: "f.c", directory: "/")
!10 = distinct !DISubprogram(name: "f", scope: !9, file: !9, line: 1, unit: !14, spFlags: DISPFlagDefinition)
!12 = !DILocation(line: 2, column: 3, scope: !10)
!13 = !{i32 2, !"Debug Info Version", i32 3}
!14 = distinct !DICompileUnit(language: DW_LANG_C99, file: !9, emissionKind: FullDebug)
`

// TestCloneInstMetadata checks that a clone keeps the attachments true of
// any copy of the access and drops the debug location, the alias scopes
// and !invariant.load, leaving the original's untouched.
func TestCloneInstMetadata(t *testing.T) {
	m, err := ParseText("t.ll", []byte(taggedLoadIR))
	if err != nil {
		t.Fatal(err)
	}
	orig := m.Funcs[0].Blocks[0].Insts[0].(*ir.InstLoad)
	c, err := CloneInst(orig, func(v value.Value) value.Value { return v })
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(md ir.Metadata) map[string]bool {
		out := map[string]bool{}
		for _, a := range md {
			out[a.Name] = true
		}
		return out
	}
	got := kinds(c.(*ir.InstLoad).Metadata)
	if !got["tbaa"] || !got["range"] || got["dbg"] || got["alias.scope"] || got["invariant.load"] || len(got) != 2 {
		t.Errorf("clone's metadata %v, want tbaa and range", got)
	}
	if n := len(orig.Metadata); n != 5 {
		t.Errorf("the original has %d attachments left, want 5", n)
	}
}
