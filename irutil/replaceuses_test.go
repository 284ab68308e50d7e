package irutil

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

const replaceIR = `
define double @f(double %a, double %b, double %c) {
entry:
  %x = fadd double %a, %b
  %y = fmul double %x, %c
  call void @llvm.dbg.value(metadata double %a, metadata !1, metadata !DIExpression())
  %z = fsub double %y, %b
  ret double %z
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!1 = !{}
`

// ReplaceAllUsesOf leaves f as ReplaceAllUses one pair after another
// does: replacements without chains in one pass, a chain (a replacement
// that is itself replaced later), a value listed twice, uses wrapped as
// metadata.
func TestReplaceAllUsesOfIsOneAfterAnother(t *testing.T) {
	cases := []func(f *ir.Func) (olds, news []value.Value){
		func(f *ir.Func) ([]value.Value, []value.Value) { // a -> c, b -> a's x
			p := f.Params
			return []value.Value{p[0], p[1]}, []value.Value{p[2], f.Blocks[0].Insts[0].(value.Value)}
		},
		func(f *ir.Func) ([]value.Value, []value.Value) { // a -> b, then b -> c: a chain
			p := f.Params
			return []value.Value{p[0], p[1]}, []value.Value{p[1], p[2]}
		},
		func(f *ir.Func) ([]value.Value, []value.Value) { // b -> c, then b -> a: the first counts
			p := f.Params
			return []value.Value{p[1], p[1]}, []value.Value{p[2], p[0]}
		},
	}
	for i, pairs := range cases {
		one, err := ParseText("one.ll", []byte(replaceIR))
		if err != nil {
			t.Fatal(err)
		}
		seq, err := ParseText("seq.ll", []byte(replaceIR))
		if err != nil {
			t.Fatal(err)
		}
		olds, news := pairs(one.Funcs[0])
		ReplaceAllUsesOf(one.Funcs[0], olds, news)
		olds, news = pairs(seq.Funcs[0])
		for j := range olds {
			ReplaceAllUses(seq.Funcs[0], olds[j], news[j])
		}
		if a, b := one.Funcs[0].LLString(), seq.Funcs[0].LLString(); a != b {
			t.Errorf("case %d: in one pass\n%s\none after another\n%s", i, a, b)
		}
		if a := one.Funcs[0].LLString(); a == seq.Funcs[0].LLString() && a == mustParse(t).Funcs[0].LLString() {
			t.Errorf("case %d: nothing replaced", i)
		}
	}
}

func mustParse(t *testing.T) *ir.Module {
	m, err := ParseText("orig.ll", []byte(replaceIR))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
