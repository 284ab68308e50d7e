package ad

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// TestReverseVersionRun: gradients whose inner reverse loops get a short
// (scalar) and a long (vectorized) version match central differences at
// every level, combined and split, with vectors of 3 (every loop short), 20
// and 40 coordinates, and leak nothing.
func TestReverseVersionRun(t *testing.T) {
	t.Parallel()
	runSizes(t, loopRunPrelude+testdataC(t, "reverse_versions.c"), "DIM", []string{"3", "20", "40"},
		[]string{"ok rk[39]", "ok rk[62]", "ok rk_pair[40]", "ok rk_dot[16]", "ok rk_dot[49]"})
}

// TestReverseVersionIR: in the gradient of rk, the reverses of the inner
// loops over the stage vectors get two versions: the preheader compares the
// counter's slot less its bound, plus one, read there, with 16 and enters
// the vector version (the ID asking for vectorizing) or the scalar one (its
// twin). In rk_dot's, the reverse of the loop adding a * v[j] into s, which
// carries the adjoint of a from one iteration to the next in a slot, keeps
// the scalar twin alone (combined mode; split pairs' versions are run by
// TestReverseVersionRun's rk_pair). The module passes LLVM's verifier.
func TestReverseVersionIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		// Loops as the pipeline leaves them: not vectorized before AD.
		dir := t.TempDir()
		bc := compileBitcode(t, dir, "clang", "prog.c", loopRunPrelude+testdataC(t, "reverse_versions.c"), o, "-fno-vectorize", "-fno-slp-vectorize")
		m := preAD(t, dir, bc, o, "-vectorize-loops=false", "-unroll-runtime=false")
		const split = false
		for _, name := range []string{"rk", "rk_dot"} {
			d, r := reverseOf(t, m, name, split, "rv_"+name)
			vec := map[*metadata.Tuple]bool{}
			for _, id := range r.revLoopIDs {
				if id != nil && d.versionTwins[id] != nil {
					vec[id] = true
				}
			}
			if err := d.versionFunc(r.g); err != nil {
				t.Fatal(err)
			}
			versioned, scalar := countReverseVersions(t, d, r.g, vec)
			switch {
			case name == "rk" && versioned < 4:
				t.Errorf("-O%s %s (split %v): %d reverse loops with two versions, want at least 4", o, name, split, versioned)
			case name == "rk_dot" && scalar == 0:
				t.Errorf("-O%s %s (split %v): every reverse loop versioned, want the sum's scalar", o, name, split)
			}
		}
		ll := filepath.Join(t.TempDir(), "ad.ll")
		if err := irutil.WriteText(m, ll); err != nil {
			t.Fatal(err)
		}
		if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
			t.Fatalf("-O%s: the module with the gradients fails LLVM's verifier: %v\n%s", o, err, out)
		}
	}
}

// countReverseVersions counts f's loops whose latch carries a reverse
// loop ID of vec (versioned: the preheader's test is checked) and the
// reverse IDs of vec none of whose loops kept it (scalar twin alone).
func countReverseVersions(t *testing.T, d *differ, f *ir.Func, vec map[*metadata.Tuple]bool) (versioned, scalar int) {
	t.Helper()
	cfg, err := irutil.NewCFG(f)
	if err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	kept := map[*metadata.Tuple]bool{}
	for _, l := range cfg.Loops {
		id := latchID(l, func(b *ir.Block) ir.Terminator { return b.Term })
		if !vec[id] {
			continue
		}
		kept[id] = true
		versioned++
		var pre *ir.Block
		for _, p := range cfg.Preds[l.Header] {
			if !l.Contains(p) {
				pre = p
			}
		}
		br, ok := pre.Term.(*ir.TermCondBr)
		if !ok {
			t.Errorf("%s: the vector version at %s is entered by %v, want a conditional branch", f.Name(), l.Header.Ident(), pre.Term.LLString())
			continue
		}
		cmp, ok := br.Cond.(*ir.InstICmp)
		if !ok || cmp.Pred != enum.IPredSGE || !isIntConst(cmp.Y, versionMinTrip) || br.TargetTrue != value.Value(l.Header) {
			t.Errorf("%s: the version test before %s is %s, want count >= %d entering it", f.Name(), l.Header.Ident(), br.Cond.Ident(), versionMinTrip)
			continue
		}
		add, ok := cmp.X.(*ir.InstAdd)
		if !ok || !isIntConst(add.Y, 1) {
			t.Errorf("%s: the count before %s is not the counter less its bound plus one", f.Name(), l.Header.Ident())
			continue
		}
		sub, ok := add.X.(*ir.InstSub)
		if !ok {
			t.Errorf("%s: the count before %s is not the counter less its bound plus one", f.Name(), l.Header.Ident())
			continue
		}
		if ld, ok := sub.X.(*ir.InstLoad); !ok || !isAllocaLoad(ld) {
			t.Errorf("%s: the count before %s does not read the counter's slot", f.Name(), l.Header.Ident())
		}
		short := br.TargetFalse.(*ir.Block)
		if sl := cfg.LoopOf[short]; sl == nil || sl.Header != short || latchID(sl, func(b *ir.Block) ir.Terminator { return b.Term }) != d.versionTwins[id] {
			t.Errorf("%s: the short version of %s does not carry the scalar twin", f.Name(), l.Header.Ident())
		}
	}
	for id := range vec {
		if !kept[id] {
			scalar++
		}
	}
	return versioned, scalar
}

// isIntConst reports whether v is the integer constant c.
func isIntConst(v value.Value, c int64) bool {
	k, ok := v.(*constant.Int)
	return ok && k.X.IsInt64() && k.X.Int64() == c
}

// isAllocaLoad reports whether ld loads from an alloca.
func isAllocaLoad(ld *ir.InstLoad) bool {
	_, ok := ld.Src.(*ir.InstAlloca)
	return ok
}
