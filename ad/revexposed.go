package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// Slots the reverse reads from the forward: a plain cache slot (only
// loaded and stored, plainSlots) is a field of a split pair's tape only
// where some load in the reverse may see the value the forward left, that
// is, where a path from the reverse's entry reaches the load with no store
// to the slot before it. A counter the reverse restarts on entry to a
// loop's reverse (exitentry.go) is stored there before any read; the one
// load ahead of the restart is the exit edge's step back (load, add or
// subtract a constant, store back to the slot), whose result the restart
// overwrites. Steps are therefore looked through: they neither read (a
// later load on the same path, with no other store between, still sees a
// value derived from the forward's, and is exposed) nor define the slot.

// exposedInReverse returns the slots of plain with a load in g's reverse
// (the blocks outside fwdSet, entered at the reverse entries) that the
// forward's value may reach.
func (r *reverseGen) exposedInReverse(plain map[*ir.InstAlloca]bool, fwdSet map[*ir.Block]bool) map[*ir.InstAlloca]bool {
	users := instUsers(r.g)
	stepStore := func(ld *ir.InstLoad) *ir.InstStore { return counterStepStore(ld, ld.Src, users) }
	// A step's store writes the slot's value, stepped: it does not
	// define the slot, wherever its load is.
	steps := map[*ir.InstStore]bool{}
	for _, b := range r.g.Blocks {
		for _, inst := range b.Insts {
			if ld, ok := inst.(*ir.InstLoad); ok {
				if st := stepStore(ld); st != nil {
					steps[st] = true
				}
			}
		}
	}
	exposed := map[*ir.InstAlloca]bool{}
	for a := range plain {
		seen := map[*ir.Block]bool{}
		work := append([]*ir.Block{}, r.reverseEntries()...)
		for len(work) > 0 && !exposed[a] {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if seen[b] || fwdSet[b] || b == r.allocas {
				continue
			}
			seen[b] = true
			killed := false
		scan:
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstLoad:
					if x.Src != a {
						continue
					}
					if stepStore(x) != nil {
						continue
					}
					exposed[a] = true
					break scan
				case *ir.InstStore:
					if x.Dst == a && !steps[x] {
						killed = true
						break scan
					}
				}
			}
			if !killed {
				work = append(work, irutil.Succs(b)...)
			}
		}
	}
	return exposed
}
