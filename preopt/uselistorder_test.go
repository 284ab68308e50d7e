package preopt

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

// The light module's text keeps its use-list order for the second opt;
// what llir parses has none of the directives, in functions or at the
// module's end, and nothing else is dropped.
func TestDropUseListOrder(t *testing.T) {
	t.Parallel()
	in := "define i32 @f(i32 %x) {\n  %a = add i32 %x, 1\n  %b = mul i32 %x, %a\n  ret i32 %b\n  uselistorder i32 %x, { 1, 0 }\n}\n" +
		"@.str = constant [13 x i8] c\"uselistorder\\00\"\nuselistorder i32 (i32)* @f, { 1, 0 }\nuselistorder_bb @f, %bb, { 1, 0 }"
	want := "define i32 @f(i32 %x) {\n  %a = add i32 %x, 1\n  %b = mul i32 %x, %a\n  ret i32 %b\n}\n" +
		"@.str = constant [13 x i8] c\"uselistorder\\00\"\n"
	if got := string(dropUseListOrder([]byte(in))); got != want {
		t.Errorf("dropUseListOrder:\n%s\nwant\n%s", got, want)
	}
	if same := "define void @g() {\n  ret void\n}\n"; string(dropUseListOrder([]byte(same))) != same {
		t.Errorf("text without directives changed")
	}
}

// LLVM 14 writes use-list orders of inline asm values that its own parser
// rejects: those directives go, the others stay (Eigen's cpuid, as opt
// printed it, is one).
func TestInlineAsmUseListOrder(t *testing.T) {
	t.Parallel()
	asm := `uselistorder { i32, i32, i32, i32 } (i32, i32)* asm sideeffect "xchg$(q$)\09$(%$)rbx, ${1:q}; cpuid", "={ax},=&r,={cx},={dx},0,2,~{dirflag}", { 3, 4, 0, 1, 2, 5 }` + "\n"
	plain := `uselistorder i32 0, { 1, 0 }` + "\n"
	str := `uselistorder i8* getelementptr ([4 x i8], [4 x i8]* @asm, i64 0, i64 0), { 1, 0 }` + "\n"
	in := "define void @f() {\n  ret void\n}\n" + asm + plain + str
	want := "define void @f() {\n  ret void\n}\n" + plain + str
	if got := string(dropUseListOrderIf([]byte(in), ofInlineAsm)); got != want {
		t.Errorf("dropUseListOrderIf(ofInlineAsm):\n%s\nwant\n%s", got, want)
	}
	for _, d := range []string{
		`uselistorder void ()* asm "nop", "", { 1, 0 }`,
		`uselistorder i32 (i32)* asm sideeffect alignstack inteldialect "mov", "=r,r", { 1, 0 }`,
	} {
		if !ofInlineAsm([]byte(d)) {
			t.Errorf("ofInlineAsm(%q) = false", d)
		}
	}
	for _, d := range []string{plain, str, `uselistorder i8* @x, { 1, 0 }`} {
		if ofInlineAsm([]byte(d)) {
			t.Errorf("ofInlineAsm(%q) = true", d)
		}
	}
}

// A module whose inline asm value's uses are out of textual order (the
// frontend's module optimized once, bitcode keeping the use-list order, as
// a link's input may be) optimizes at every level: opt 14 could not read
// back the use-list order it wrote for the asm value.
func TestOptimizeInlineAsmUses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	pre := filepath.Join(dir, "pre.bc")
	if _, err := toolchains.Run(ctx, "opt", "-passes=default<O2>", frontendBitcode(t, dir, "cpuidasm", "2"), "-o", pre); err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"1", "2", "3"} {
		out := filepath.Join(dir, "opt"+level+".ll")
		if err := Optimize(ctx, pre, out, level, Options{Warn: func(msg string) { t.Errorf("-O%s: %s", level, msg) }}); err != nil {
			t.Errorf("-O%s: %v", level, err)
		}
	}
}
