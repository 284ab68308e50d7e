package ad

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// A primal whose accesses carry clang's TBAA tags, a range, and alias
// scopes as inlining a restrict parameter leaves them.
const taggedAccessIR = `
define double @f(double* %x, i32* %k, double* %y) {
entry:
  %kv = load i32, i32* %k, align 4, !tbaa !6, !range !8, !noundef !9
  %ki = sext i32 %kv to i64
  %p = getelementptr inbounds double, double* %x, i64 %ki
  %v = load double, double* %p, align 8, !tbaa !2, !alias.scope !10
  %sq = fmul double %v, %v
  store double %sq, double* %y, align 8, !tbaa !2, !noalias !10
  %w = load double, double* %x, align 8, !tbaa !2
  %r = fmul double %w, %sq
  ret double %r
}

!2 = !{!3, !3, i64 0}
!3 = !{!"double", !4, i64 0}
!4 = !{!"omnipotent char", !5, i64 0}
!5 = !{!"Simple C/C++ TBAA"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !4, i64 0}
!8 = !{i32 0, i32 4}
!9 = !{}
!10 = !{!11}
!11 = distinct !{!11, !12, !"f: %x"}
!12 = distinct !{!12, !"f"}
`

// TestForwardSweepKeepsAccessMetadata checks that the forward sweep's
// copies of the primal's loads and stores keep their !tbaa, !range and
// !noundef, drop the alias scopes of the primal's inlined calls, and that
// LLVM accepts the gradient.
func TestForwardSweepKeepsAccessMetadata(t *testing.T) {
	t.Parallel()
	m := parseIR(t, taggedAccessIR)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	r, err := newReverseGen(d, f, []activity.Activity{activity.Dup, activity.Const, activity.Dup}, true, false, false, "grad_f")
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.generate()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"kv": {"tbaa", "range", "noundef"}, "v": {"tbaa"}, "w": {"tbaa"}}
	stores := 0
	for _, b := range g.Blocks {
		for _, inst := range b.Insts {
			var md ir.Metadata
			var primal bool
			name := ""
			switch x := inst.(type) {
			case *ir.InstLoad:
				md, name = x.Metadata, x.LocalName
				_, primal = want[name]
			case *ir.InstStore:
				md = x.Metadata
				// The primal's store of sq into y; the gradient's own
				// stores go to shadow memory and stay untagged.
				if l, ok := x.Src.(*ir.InstFMul); ok && l.LocalName == "sq" {
					primal, name = true, "store sq"
					stores++
				}
			}
			kinds := map[string]bool{}
			for _, a := range md {
				kinds[a.Name] = true
			}
			if kinds["alias.scope"] || kinds["noalias"] {
				t.Errorf("%s: the primal's alias scopes were copied into the gradient", inst.LLString())
			}
			if !primal {
				continue
			}
			delete(want, name)
			exp := []string{"tbaa"}
			if name == "kv" {
				exp = []string{"tbaa", "range", "noundef"}
			}
			for _, k := range exp {
				if !kinds[k] {
					t.Errorf("%s: lost !%s", inst.LLString(), k)
				}
			}
		}
	}
	if len(want) > 0 || stores != 1 {
		t.Fatalf("primal loads %v not found in the gradient, %d copies of the primal store", want, stores)
	}
	g.Linkage = enum.LinkageNone
	if _, err := toolchains.Tool("opt"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ll := filepath.Join(dir, "grad.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if out, err := toolchains.Run(context.Background(), "opt", "-S", "-passes=verify", ll, "-o", filepath.Join(dir, "v.ll")); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
