package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// TestSlotOverReload: the gradients of testdata/slot_over_reload.c against
// central differences at every level; leak-checked.
func TestSlotOverReload(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "slot_over_reload.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
		t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestSlotOverReloadPlanned: at -O2, tri's gradient keeps the data pointer
// it loads outside its loops in a slot for the reverse of the loop nest
// (combined); its pair (split) does not.
func TestSlotOverReloadPlanned(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "slot_over_reload.c")
	dir := t.TempDir()
	m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, "2", "-Xclang", "-disable-llvm-passes"), "2", linkedLoops...)
	for _, split := range []bool{false, true} {
		d, r := reverseOf(t, m, "tri", split, "slot_tri")
		slotted := 0
		for fv := range r.slots {
			if p, ok := r.primalOf[fv].(*ir.InstLoad); ok && r.cfg.LoopOf[r.blockOf[p]] == nil {
				if _, isPtr := p.ElemType.(*types.PointerType); isPtr {
					slotted++
				}
			}
		}
		if got := slotted > 0; got == split {
			t.Errorf("tri (split %v): %d pointer loads kept in slots, want slots %v", split, slotted, !split)
		}
		d.dropFunc(r.g)
	}
}
