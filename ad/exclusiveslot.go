package ad

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// Exclusive slots: in a split pair, values cached outside loops become
// fields of the tape. Two values defined in blocks of which neither reaches
// the other (the leaf and the loop of a recursion: a's shadow data pointer
// read on each path) are never both written in one call: whichever block
// runs writes its value, and the reverse reads a value only where its
// block ran (the reverse of a block reads values of blocks dominating it,
// on the path the forward took). They share one field of the same type.

// exclusiveSlot returns an existing cache slot of type t all of whose
// values are defined in primal blocks that neither reach nor are reached
// from def, or nil (and always nil outside split pairs, where slots are
// registers).
func (r *reverseGen) exclusiveSlot(t types.Type, def *ir.Block) *ir.InstAlloca {
	if !r.split || r.parallel || r.d.gpu {
		return nil
	}
	for _, s := range r.slotOrder {
		if !s.ElemType.Equal(t) {
			continue
		}
		ok := true
		for _, d := range r.slotDefs[s] {
			if d == def || r.reachable(d)[def] || r.reachable(def)[d] {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	return nil
}
