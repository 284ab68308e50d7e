package ad

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
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
//   - from a, every path reaches a free of a holder before it reaches a
//     again or a return or resume; a block with any other terminator than
//     branches, switches, invokes and unreachable stops the proof. A path
//     ending in unreachable (a noreturn call) never returns to the reverse
//     sweep. The holders are a itself and the phis that on this path took
//     a holder from the edge they were entered by (through bitcasts): each
//     holds the block the last a on the path allocated (a phi entered
//     again by another edge holds what that edge brings);
//   - where a never returns null (C++'s operator new), a branch testing a
//     holder against null follows its non-null edge only: the inlined
//     std::vector destructor's `if (p) operator delete(p)`, p a phi of
//     a's block and the null of the path that allocated nothing.
//
// The free that ends each path frees the block the last a on that path
// allocated, so every block a allocates is freed in the same call.

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

// stripCasts is v without the bitcasts (and call argument wrappers)
// around it.
func stripCasts(v value.Value) value.Value {
	for {
		switch x := v.(type) {
		case *ir.InstBitCast:
			v = x.From
			continue
		case *ir.Arg:
			v = x.Value
			continue
		}
		return v
	}
}

// neverNull reports whether allocation a never returns null (C++'s
// operator new throws instead).
func neverNull(a *ir.InstCall) bool {
	switch irfacts.CalleeName(a) {
	case "_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t":
		return true
	}
	return false
}

// maxFreedPaths bounds the points the proof visits (blocks times the
// holder sets they are entered with).
const maxFreedPaths = 4096

// freedPath is a point of the proof's search: a block entered at index
// from, with the values (a, phis) that hold the block a last allocated.
type freedPath struct {
	b       *ir.Block
	from    int
	holders map[value.Value]bool
}

// key names the point for the search's visited set, by identity (not by
// IR names, which unnumbered values may share).
func (p freedPath) key() string {
	var names []string
	for v := range p.holders {
		names = append(names, fmt.Sprintf("%p", v))
	}
	sort.Strings(names)
	return fmt.Sprintf("%p:%d:", p.b, p.from) + strings.Join(names, ",")
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
	start := -1
	for i, inst := range ab.Insts {
		if inst == ir.Instruction(a) {
			start = i + 1
		}
	}
	if start < 0 {
		return false
	}
	work := []freedPath{{ab, start, map[value.Value]bool{a: true}}}
	seen := map[string]bool{}
	for len(work) > 0 {
		if len(seen) > maxFreedPaths {
			return false // too many holder sets to follow: not proven
		}
		p := work[len(work)-1]
		work = work[:len(work)-1]
		if k := p.key(); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		done, failed := false, false
		for _, inst := range p.b.Insts[p.from:] {
			if inst == ir.Instruction(a) {
				failed = true
				break
			}
			if c, ok := inst.(*ir.InstCall); ok && isFree(c) && len(c.Args) > 0 && p.holders[stripCasts(c.Args[0])] {
				done = true
				break
			}
		}
		if failed {
			return false
		}
		if done {
			continue
		}
		var succs []*ir.Block
		switch t := p.b.Term.(type) {
		case *ir.TermUnreachable:
			continue
		case *ir.TermCondBr:
			succs = irutil.Succs(p.b)
			if neverNull(a) {
				if s := nonNullSuccessor(t, p.holders); s != nil {
					succs = []*ir.Block{s} // the other edge needs a null block
				}
			}
		case *ir.TermBr, *ir.TermSwitch, *ir.TermInvoke:
			succs = irutil.Succs(p.b)
		default:
			return false // a return, resume or unknown edge before the free
		}
		for _, s := range succs {
			work = append(work, freedPath{s, 0, enterHolders(p.b, s, p.holders)})
		}
	}
	return true
}

// enterHolders is the holders on entering block s from pred: those
// holders that are not s's phis, and s's phis whose incoming value from
// pred is a holder.
func enterHolders(pred, s *ir.Block, holders map[value.Value]bool) map[value.Value]bool {
	out := map[value.Value]bool{}
	phis := map[value.Value]bool{}
	for _, inst := range s.Insts {
		phi, ok := inst.(*ir.InstPhi)
		if !ok {
			break
		}
		phis[phi] = true
		for _, inc := range phi.Incs {
			if inc.Pred == value.Value(pred) && holders[stripCasts(inc.X)] {
				out[phi] = true
			}
		}
	}
	for v := range holders {
		if !phis[v] {
			out[v] = true
		}
	}
	return out
}

// nonNullSuccessor is the successor of t taken when its condition tests a
// holder against null (icmp eq or ne with a null constant): the one for a
// non-null pointer. Nil for any other condition.
func nonNullSuccessor(t *ir.TermCondBr, holders map[value.Value]bool) *ir.Block {
	c, ok := t.Cond.(*ir.InstICmp)
	if !ok {
		return nil
	}
	x, y := stripCasts(c.X), stripCasts(c.Y)
	if _, isNull := x.(*constant.Null); isNull {
		x, y = y, x
	}
	if _, isNull := y.(*constant.Null); !isNull || !holders[x] {
		return nil
	}
	tt, tf := t.TargetTrue.(*ir.Block), t.TargetFalse.(*ir.Block)
	switch c.Pred {
	case enum.IPredEQ:
		return tf
	case enum.IPredNE:
		return tt
	}
	return nil
}
