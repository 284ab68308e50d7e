package ad

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir/types"
)

// TestLayoutMatchesLLVM checks abiLayout's sizes and fieldOffset's offsets
// (the byte ranges hoisting and constant shadows reason with) against
// LLVM 14's own constant folding of getelementptr on the x86-64 data
// layout, for structs where a natural-alignment guess goes wrong: i128 is
// 8-byte aligned there, wider integers round up to 8 bytes.
func TestLayoutMatchesLLVM(t *testing.T) {
	t.Parallel()
	cases := []string{
		"{ i64, i128 }",
		"{ i8, i264 }",
		"{ i1, i96, i8 }",
		"{ i8, x86_fp80, i16 }",
		"{ <3 x float>, i8 }",
		"{ [3 x { i32, i8 }], double }",
		"<{ i8, double, i128 }>",
		"{ i16, { i8, i128 }, float }",
	}
	var ir strings.Builder
	ir.WriteString("target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n")
	var want []int64
	for i, c := range cases {
		st := parseStruct(t, c)
		fmt.Fprintf(&ir, "%%s%d = type %s\n", i, c)
		fmt.Fprintf(&ir, "define i64 @size%d() {\n  ret i64 ptrtoint (%%s%d* getelementptr (%%s%d, %%s%d* null, i64 1) to i64)\n}\n", i, i, i, i)
		size, _, ok := abiLayout(st)
		if !ok {
			t.Fatalf("%s: no layout", c)
		}
		want = append(want, size)
		for k, f := range st.Fields {
			fmt.Fprintf(&ir, "define i64 @off%d_%d() {\n  ret i64 ptrtoint (%s* getelementptr (%%s%d, %%s%d* null, i64 0, i32 %d) to i64)\n}\n", i, k, f.LLString(), i, i, k)
			off, ok := fieldOffset(st, k)
			if !ok {
				t.Fatalf("%s: no offset of field %d", c, k)
			}
			want = append(want, off)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.ll")
	if err := os.WriteFile(src, []byte(ir.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := toolchains.Run(context.Background(), "opt", "-passes=instcombine", "-S", src, "-o", "-")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ret i64 "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("LLVM did not fold %q", line)
			}
			got = append(got, n)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sizes and offsets (size, then each field's offset, per struct of %v):\nLLVM    %v\ngozyme  %v", cases, got, want)
	}
}

// parseStruct parses an IR struct type by defining a global of it.
func parseStruct(t *testing.T, typ string) *types.StructType {
	t.Helper()
	m, err := irutil.ParseText("layout.ll", []byte("@g = global "+typ+" zeroinitializer\n"))
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	st, ok := m.Globals[0].ContentType.(*types.StructType)
	if !ok {
		t.Fatalf("%s is not a struct", typ)
	}
	return st
}
