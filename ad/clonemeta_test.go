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
	"github.com/llir/llvm/ir/value"
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

// TestTangentAccessesCarryPrimalTags: forward mode gives the tangent's
// load and store of shadow memory the primal access's !tbaa (a shadow has
// its primal's layout), so that the optimizer can tell them from accesses
// of other types (a vector's data pointer read in the same loop); the
// tangent of the int load has none (integers have no tangent).
func TestTangentAccessesCarryPrimalTags(t *testing.T) {
	t.Parallel()
	m := parseIR(t, taggedAccessIR)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	fg, err := d.forward(f, []activity.Activity{activity.Dup, activity.Const, activity.Dup}, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	// (x, dx, k, y, dy): the shadows follow their Dup parameters.
	shadows := map[value.Value]bool{fg.g.Params[1]: true, fg.g.Params[4]: true}
	loads, stores := 0, 0
	for _, b := range fg.g.Blocks {
		for _, inst := range b.Insts {
			var addr value.Value
			var md ir.Metadata
			switch x := inst.(type) {
			case *ir.InstGetElementPtr:
				if shadows[x.Src] {
					shadows[x] = true
				}
				continue
			case *ir.InstLoad:
				addr, md = x.Src, x.Metadata
			case *ir.InstStore:
				addr, md = x.Dst, x.Metadata
			default:
				continue
			}
			if !shadows[addr] {
				continue
			}
			if _, isLoad := inst.(*ir.InstLoad); isLoad {
				loads++
			} else {
				stores++
			}
			tagged := false
			for _, a := range md {
				tagged = tagged || a.Name == "tbaa"
			}
			if !tagged {
				t.Errorf("%s: a tangent access without the primal's !tbaa", inst.LLString())
			}
		}
	}
	if loads != 2 || stores != 1 {
		t.Errorf("%d tangent loads and %d stores of shadow memory, want 2 and 1:\n%s", loads, stores, fg.g.LLString())
	}
}
