package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Allocations their own function always frees (shadowlife.go): a C++
// temporary (a std::vector local to a helper: allocated at the top, freed
// by its inlined destructor blocks later, after the loops that fill and
// read it) is freed before the function returns, every time. The reverse
// of such an allocation frees its shadow without asking the shadow set,
// and the frees do not note it there: in a split helper called in a loop,
// every call's note would otherwise stay in the set (a hash table growing
// with the calls) from the forward sweep until the reverse takes it out.
//
// The proof (alwaysFreed), for allocation call a:
//   - no realloc of the function may be given a pointer into a's block
//     (the block would move and its free be another's);
//   - from a, every path reaches a free whose pointer is a itself (its
//     value, through bitcasts only: never a phi, which could carry an
//     older block) before it reaches a again or a return or resume, and a
//     block with any other terminator than branches, switches, invokes and
//     unreachable stops the proof. A path ending in unreachable (a noreturn
//     call) never returns to the reverse sweep.
//
// The free that ends each path frees the block the last a on that path
// allocated, since its pointer is that a's value, so every block a
// allocates is freed in the same call.

// alwaysFreed reports whether every block allocation a allocates is freed
// before its function returns (see above), memoized per allocation.
func (r *reverseGen) alwaysFreed(a *ir.InstCall) bool {
	if v, ok := r.freedAlloc[a]; ok {
		return v
	}
	if r.freedAlloc == nil {
		r.freedAlloc = map[*ir.InstCall]bool{}
	}
	v := r.provesFreed(a)
	r.freedAlloc[a] = v
	return v
}

// freesOwnValue reports whether call c frees exactly the value of a.
func freesOwnValue(c *ir.InstCall, a *ir.InstCall) bool {
	if !isFree(c) || len(c.Args) == 0 {
		return false
	}
	p := c.Args[0]
	for {
		switch x := p.(type) {
		case *ir.InstBitCast:
			p = x.From
			continue
		case *ir.Arg:
			p = x.Value
			continue
		}
		return p == value.Value(a)
	}
}

func (r *reverseGen) provesFreed(a *ir.InstCall) bool {
	ab := r.blockOf[a]
	if ab == nil || !irfacts.IsAllocation(a) || irfacts.IsRealloc(a) {
		return false
	}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok || !irfacts.IsRealloc(c) || len(c.Args) == 0 {
				continue
			}
			objs, known := underlyingObjects(c.Args[0])
			if !known {
				return false
			}
			for _, o := range objs {
				if o == value.Value(a) {
					return false
				}
			}
		}
	}
	// scan reports whether the instructions of b from index i on free a
	// (done: this path is proven) or run a again (failed).
	scan := func(b *ir.Block, i int) (done, failed bool) {
		for _, inst := range b.Insts[i:] {
			if inst == ir.Instruction(a) {
				return false, true
			}
			if c, ok := inst.(*ir.InstCall); ok && freesOwnValue(c, a) {
				return true, false
			}
		}
		return false, false
	}
	start := -1
	for i, inst := range ab.Insts {
		if inst == ir.Instruction(a) {
			start = i + 1
		}
	}
	if start < 0 {
		return false
	}
	work := []*ir.Block{ab}
	seen := map[*ir.Block]bool{}
	first := true
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		from := 0
		if first {
			from, first = start, false
		} else if seen[b] {
			continue
		} else {
			seen[b] = true
		}
		done, failed := scan(b, from)
		if failed {
			return false
		}
		if done {
			continue
		}
		switch b.Term.(type) {
		case *ir.TermUnreachable:
			continue
		case *ir.TermBr, *ir.TermCondBr, *ir.TermSwitch, *ir.TermInvoke:
			work = append(work, irutil.Succs(b)...)
		default:
			return false // a return, resume or unknown edge before the free
		}
	}
	return true
}
