package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// TestQuietSplitReloads: a called function's reverse loads primal memory
// again instead of taping it where nothing writes that memory between its
// augmented forward and its reverse (quiet.go), and tapes it where the
// caller writes after the call, on a later trip of a loop, through a split
// caller that writes after its own call, where the memory is a split
// caller's local (its frame gone by the reverse, clobbered by another call
// in between), or where the callee itself overwrites or frees what it
// read; gradients against central differences at every level, leak- and
// memory-checked at -O2.
func TestQuietSplitReloads(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "quiet_split_reloads.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "0 failures") {
				t.Fatal(out)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestQuietSplitChoice checks which augmented forwards are the quiet
// versions (their reverse may reload) at -O2, and that the quiet reader's
// tape holds no per-iteration cache (its loads are not taped: only the
// iteration counters are).
func TestQuietSplitChoice(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "quiet_split_reloads.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	augs := map[string]*ir.Func{}
	for _, f := range m.Funcs {
		if strings.HasPrefix(f.Name(), "__gozyme_aug_") {
			// Framed or not (frametape.go), the pair is quiet or not alike.
			augs[strings.TrimSuffix(strings.TrimPrefix(f.Name(), "__gozyme_aug_"), "_f")] = f
		}
	}
	has := func(prefix string, quiet bool) *ir.Func {
		for name, f := range augs {
			if strings.HasPrefix(name, prefix+"_") && strings.HasSuffix(name, "_q") == quiet {
				return f
			}
		}
		return nil
	}
	for _, c := range []struct {
		callee string
		quiet  bool
	}{
		{"wsum", true},               // quiet_last
		{"wsum", false},              // write_after
		{"cubes", true},              // root_local
		{"cubes", false},             // loop_write_before, writes_after_inner, local_of_split
		{"writes_after_inner", true}, // chain
		{"local_of_split", true},     // dead_frame
		{"rec", true},                // recursion, and itself
		{"in_place", true},           // callee_writes
		{"view_sum", true},           // through_view
	} {
		if has(c.callee, c.quiet) == nil {
			t.Errorf("no augmented forward of %s with quiet %v; have %v", c.callee, c.quiet, keys(augs))
		}
	}
	// rec calls itself only quietly; local_of_split (an alloca) never
	// passes quiet on.
	if has("rec", false) != nil {
		t.Errorf("rec has a version that is not quiet")
	}
	if f := has("wsum", true); f != nil {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && irfacts.CalleeName(c) == "realloc" {
					t.Errorf("%s allocates a cache: %s", f.Name(), c.LLString())
				}
			}
		}
	}
}

func keys(m map[string]*ir.Func) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
