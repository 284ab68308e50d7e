package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// TestTypedReloads runs testdata/typed_reloads.c at every level, and with
// -fno-strict-aliasing (no TBAA tags), against central differences: the
// determinant by minors whose recursive calls' reverses read the matrix
// again past index stores, and a callee whose read the caller overwrites
// through a union member (char-tagged: cached).
func TestTypedReloads(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "typed_reloads.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("O2-no-strict-aliasing", func(t *testing.T) { run(t, buildC(t, src, "2", "-fno-strict-aliasing")) })
}

// TestTypedReloadsFact checks that the recursive calls of det_of_minor get
// the pair named for the tags written between its halves (_qt) where clang
// emitted TBAA, and not without it.
func TestTypedReloadsFact(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "typed_reloads.c")
	for _, c := range []struct {
		flags []string
		typed bool
	}{{nil, true}, {[]string{"-fno-strict-aliasing"}, false}} {
		dir := t.TempDir()
		m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, "2", c.flags...), "2")
		var root *ir.Func
		for _, f := range m.Funcs {
			if f.Name() == "det" {
				root = f
			}
		}
		if root == nil {
			t.Fatal("no function det")
		}
		d := newDiffer(m, Options{})
		pf, err := d.prepared(root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.generateReverse(func() (*reverseGen, error) {
			return newReverseGen(d, pf, []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_det")
		}); err != nil {
			t.Fatal(err)
		}
		typed := false
		for name := range d.splits {
			typed = typed || (strings.Contains(name, "det_of_minor") && strings.Contains(name, "_qt"))
		}
		if typed != c.typed {
			t.Errorf("flags %v: a det_of_minor pair named for written tags: %v, want %v", c.flags, typed, c.typed)
		}
	}
}

// tbaaTagsIR holds accesses with clang-14's struct-path tags: a double, a
// long, a pointer field of a struct, two long fields of one struct, and a
// char (a union member).
const tbaaTagsIR = `
define void @f(double* %d, i64* %l, i8** %p, i64* %f0, i64* %f8, i8* %c) {
  %1 = load double, double* %d, align 8, !tbaa !1
  store i64 0, i64* %l, align 8, !tbaa !3
  %2 = load i8*, i8** %p, align 8, !tbaa !5
  store i64 1, i64* %f0, align 8, !tbaa !8
  store i64 2, i64* %f8, align 8, !tbaa !9
  store i8 0, i8* %c, align 1, !tbaa !10
  ret void
}
!0 = !{!"Simple C/C++ TBAA"}
!11 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"double", !11, i64 0}
!1 = !{!2, !2, i64 0}
!4 = !{!"long", !11, i64 0}
!3 = !{!4, !4, i64 0}
!6 = !{!"any pointer", !11, i64 0}
!7 = !{!"S", !6, i64 0, !4, i64 8}
!5 = !{!7, !6, i64 0}
!8 = !{!12, !4, i64 0}
!9 = !{!12, !4, i64 8}
!12 = !{!"T", !4, i64 0, !4, i64 8}
!10 = !{!11, !11, i64 0}
`

// TestTBAAMayAlias checks the port of LLVM's matchAccessTags on those tags.
func TestTBAAMayAlias(t *testing.T) {
	t.Parallel()
	m := parseIR(t, tbaaTagsIR)
	insts := m.Funcs[0].Blocks[0].Insts
	tag := func(i int) string { return insts[i].(interface{ LLString() string }).LLString() }
	for _, c := range []struct {
		a, b  int
		alias bool
	}{
		{0, 1, false}, // double, long
		{0, 2, false}, // double, a pointer field
		{1, 2, false}, // long, a pointer field
		{3, 4, false}, // T's long at 0, T's long at 8
		{1, 3, true},  // a long, T's long at 0
		{0, 5, true},  // double, char
		{5, 2, true},  // char, a pointer field
		{0, 0, true},
	} {
		a, b := tbaaTagOf(insts[c.a]), tbaaTagOf(insts[c.b])
		if a == nil || b == nil {
			t.Fatalf("no tag on %s or %s", tag(c.a), tag(c.b))
		}
		if got := tbaaMayAlias(a, b); got != c.alias {
			t.Errorf("%s / %s: may alias %v, want %v", tag(c.a), tag(c.b), got, c.alias)
		}
		if got := tbaaMayAlias(b, a); got != c.alias {
			t.Errorf("%s / %s: may alias %v, want %v", tag(c.b), tag(c.a), got, c.alias)
		}
	}
}
