package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Growth on entry to the nest: when loop l and the loops around it out to
// some loop top have exact header counts (tripcount.go, exact in the sense
// of cacheplan.ExactCount, which the recomputed entry counters rely on
// already) computable on entry to top, the records l writes during one
// execution of top number at most the product of those counts. The buffer
// then grows, once, on the forward edge into top's header, instead of
// testing its capacity in every iteration of l: the loop's forward body
// has no call left, so the optimizer after AD can vectorize and unroll it
// like the primal's, and a short inner loop pays no check at all.
//
// It assumes the counts exact: a count too small would overflow the
// buffer. cacheplan.ExactCount proves that from the IR (exit tests in every
// iteration, no wrap past the bound), entryGuards that a loop is counted
// only where it is entered, and nestChain that every count is computed
// from values defined outside top. A loop without that proof keeps the
// check in its header (finishLoops), where a wrong reservation costs time
// or memory, never results.

// entryGrowth returns the loop on whose entry l's buffer grows and the
// trip counts whose product bounds l's records per entry of it; ok is
// false where l's buffer keeps the check in its header.
func (r *reverseGen) entryGrowth(l *irutil.Loop) (top *irutil.Loop, chain []countFactor, ok bool) {
	top, chain = r.nestChain(l, nil, true)
	if len(chain) == 0 || chain[0].tc.Phi == nil || r.cfg.LoopOf[r.blockOf[chain[0].tc.Phi]] != l {
		return nil, nil, false
	}
	// One edge into top's header, which growOnEntry reroutes through the
	// growth check (irutil.Succs would count a two-edge branch once).
	outside, _, _ := r.primal().SimpleHeader(top.Header)
	return top, chain, edgeCount(outside, top.Header) == 1
}

// growOnEntry emits, on the forward edge into loop top's header, the
// growth check of lc's buffer for the records of one execution of top:
// the buffer's counter plus the product of the factors of chain. It
// grows to need as well, when not nil (the reservation for a larger nest).
func (r *reverseGen) growOnEntry(top *irutil.Loop, chain []countFactor, lc *loopCache, need value.Value) {
	header := r.fwdHead[top.Header]
	pre, ok := r.entryEdge[top]
	if !ok {
		outside, _, _ := r.primal().SimpleHeader(top.Header)
		pre = r.fwdTail[outside]
	}
	check, join := r.g.NewBlock(""), r.g.NewBlock("")
	retarget(pre.Term, header, check)
	irutil.RenameIncoming(header, pre, join)
	if r.entryEdge == nil {
		r.entryEdge = map[*irutil.Loop]*ir.Block{}
	}
	r.entryEdge[top] = join
	// The product saturates at 2^62 (growRecords asks for more than
	// memory holds beyond 2^48 records).
	limit := constant.NewInt(types.I64, 1<<31)
	// Outermost level first (see entered).
	var guards []entryGuard
	for i := len(chain) - 1; i >= 0; i-- {
		guards = append(guards, chain[i].guards...)
	}
	if len(guards) > 0 {
		// Where a guard skips a loop of the chain, its count may be
		// anything (a vector loop's, where the vector loop is skipped):
		// the nest then writes no records, and the counts are not
		// computed.
		counts := r.g.NewBlock("")
		check.NewCondBr(r.entered(check, guards), counts, join)
		check = counts
	}
	val := r.entryValue(check, top)
	// The counts clamp a negative distance, exact != ones too (unlike
	// cacheplan.ExitCount's): they are computed on entry to top, also for a loop
	// never reached because an outer loop leaves from its header at once
	// (the outer loop's factor is then 0), and a negative count would
	// saturate the product.
	n := emitFactor(check, chain[0], val, false)
	for _, f := range chain[1:] {
		c := emitFactor(check, f, val, false)
		over := check.NewOr(check.NewICmp(enum.IPredUGT, n, limit), check.NewICmp(enum.IPredUGT, c, limit))
		n = check.NewSelect(over, constant.NewInt(types.I64, 1<<62), check.NewMul(n, c))
	}
	end := check.NewAdd(check.NewLoad(types.I64, lc.counter), n) // one past the last record of this execution
	want := value.Value(end)
	if need != nil {
		// What the trip counts say the loop nest needs, where they reach
		// further out than the exact ones (tripcount.go).
		want = check.NewSelect(check.NewICmp(enum.IPredUGT, need, end), need, end)
	}
	if need == nil && r.freshOnEntry(top, lc) {
		r.allocExact(check, lc, end, join)
	} else {
		r.growRecords(check, lc, func(b *ir.Block, capv value.Value) value.Value { return b.NewICmp(enum.IPredUGT, end, capv) }, want, join)
	}
	join.NewBr(header)
}

// mergeDepth bounds the merge phis entryInvariant looks through.
const mergeDepth = 4

// entryInvariant reports whether primal value v takes, wherever loop l
// reads it, one value computable on entry to l: it is defined outside l,
// or it is a merge phi in l (a block with two predecessors that is not a
// loop header: the start of a vectorized loop's scalar remainder, 0 or
// where the vector loop stopped) whose predecessor is told by a branch
// condition defined outside l (mergeDecision: a vectorizer's guards) and
// whose incoming values are such values, depth merges deep. Every time
// the forward sweep passes the phi it then holds the select of its
// incoming values by that condition, which entryValue computes on entry.
func (r *reverseGen) entryInvariant(l *irutil.Loop, v value.Value, depth int) bool {
	v = irfacts.Unwrap(v)
	if !r.primal().DefinedIn(l, v) {
		return true
	}
	p, ok := v.(*ir.InstPhi)
	if !ok || depth == 0 {
		return false
	}
	cond, onTrue, onFalse, byIndex, ok := r.mergeDecision(r.blockOf[p])
	if !ok || byIndex || r.primal().DefinedIn(l, irfacts.Unwrap(cond)) || !r.distinctIncoming(p, r.blockOf[p]) {
		return false
	}
	for _, pred := range []*ir.Block{onTrue, onFalse} {
		x, ok := irfacts.IncomingFrom(p, pred)
		if !ok || !r.entryInvariant(l, x, depth-1) {
			return false
		}
	}
	return true
}

// entryValue returns the map of primal values to their forward values in
// blk, on the edge into loop top: entryInvariant merge phis of top are
// emitted there as selects.
func (r *reverseGen) entryValue(blk *ir.Block, top *irutil.Loop) func(value.Value) value.Value {
	var val func(value.Value) value.Value
	val = func(v value.Value) value.Value {
		p, ok := irfacts.Unwrap(v).(*ir.InstPhi)
		if !ok || !r.primal().DefinedIn(top, p) {
			return r.mapValue(v)
		}
		cond, onTrue, onFalse, _, _ := r.mergeDecision(r.blockOf[p])
		t, _ := irfacts.IncomingFrom(p, onTrue)
		f, _ := irfacts.IncomingFrom(p, onFalse)
		return blk.NewSelect(val(cond), val(t), val(f))
	}
	return val
}

// entered emits into blk the conjunction of guards (nil where there are
// none): whether they all lead into their loops. Each guard is read only
// where those before it hold (a select, not an and): an inner loop's
// condition may be poison where an outer guard skips the loop around it
// (a flagged operation that overflows only there), and the forward sweep
// never branched on it then.
func (r *reverseGen) entered(blk *ir.Block, guards []entryGuard) value.Value {
	var enters value.Value
	for _, g := range guards {
		var ok value.Value
		switch {
		case g.paths != nil:
			ok = r.pathsEnter(blk, g.paths)
		case g.want:
			ok = r.mapValue(g.cond)
		default:
			ok = blk.NewXor(r.mapValue(g.cond), constant.True)
		}
		if enters == nil {
			enters = ok
		} else {
			enters = blk.NewSelect(enters, ok, constant.False)
		}
	}
	return enters
}

// entryGuard is a conditional branch on the way to a loop's header: the
// loop is entered only where cond is want; or, where paths is set, the
// branches of an iteration of the loop's parent, the loop entered where
// they lead to it (entryPaths).
type entryGuard struct {
	cond  value.Value // primal
	want  bool
	paths *enterNode
}

// conds lists the primal conditions g tests.
func (g entryGuard) conds() []value.Value {
	if g.paths == nil {
		return []value.Value{g.cond}
	}
	var out []value.Value
	seen := map[*enterNode]bool{}
	var walk func(n *enterNode)
	walk = func(n *enterNode) {
		if n.cond == nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n.cond)
		walk(n.onTrue)
		walk(n.onFalse)
	}
	walk(g.paths)
	return out
}

// entryGuards returns the branches that decide whether an iteration of
// l's parent p enters l: each block of p's body that can reach l's header
// within the iteration but has a successor that cannot. Where each is a
// two-way branch dominating l's header, they are the guards, one per
// branch: l is entered exactly where all of them lead towards it.
// Otherwise the guard is entryPaths' decision over the paths of one
// iteration of p (no guard where every path enters l); ok is false where
// that walk does not decide it either, or no path enters l.
func (r *reverseGen) entryGuards(l *irutil.Loop) (guards []entryGuard, ok bool) {
	p := l.Parent
	// toward: the blocks of p outside l from which a path within one
	// iteration of p (not through p's header again) reaches l's header.
	toward := map[*ir.Block]bool{}
	stack := []*ir.Block{l.Header}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b == p.Header {
			continue
		}
		for _, q := range r.cfg.Preds[b] {
			if p.Contains(q) && !l.Contains(q) && !toward[q] {
				toward[q] = true
				stack = append(stack, q)
			}
		}
	}
	leads := func(s *ir.Block) bool { return s == l.Header || (toward[s] && s != p.Header) }
	for _, b := range r.f.Blocks {
		if !toward[b] {
			continue
		}
		succs := irutil.Succs(b)
		n := 0
		for _, s := range succs {
			if leads(s) {
				n++
			}
		}
		if n == len(succs) {
			continue
		}
		br, isBr := b.Term.(*ir.TermCondBr)
		if !isBr || n != 1 || !r.cfg.Dominates(b, l.Header) {
			return r.entryPaths(l, toward)
		}
		guards = append(guards, entryGuard{cond: br.Cond, want: leads(br.TargetTrue.(*ir.Block))})
	}
	return guards, true
}

// Entry paths: where branches that do not dominate a loop decide whether
// it runs (a vectorized loop's scalar remainder, entered where
// min.iters.check skips the vector loop or where cmp.n finds it stopped
// short), entryPaths follows the paths of one iteration of the loop's
// parent p from p's header under each value of the branch conditions it
// meets, passing inner loops whole (through the one block they leave
// to): the loop is entered exactly where the conditions lead the path to
// its header. The conditions, once nestChain finds them defined outside
// the nest, decide every iteration alike.

// enterNode is a node of that decision: a condition and the nodes for its
// two values, or a leaf (enterYes, enterNo).
type enterNode struct {
	cond            value.Value // primal; nil in a leaf
	onTrue, onFalse *enterNode
}

var enterYes, enterNo = &enterNode{}, &enterNode{}

// maxEnterBlocks bounds the blocks entryPaths follows.
const maxEnterBlocks = 64

// entryPaths returns, as one guard, the decision whether an iteration of
// l's parent enters l; toward holds the blocks of the parent outside l
// from which l's header is reachable within the iteration.
func (r *reverseGen) entryPaths(l *irutil.Loop, toward map[*ir.Block]bool) ([]entryGuard, bool) {
	p := l.Parent
	memo := map[*ir.Block]*enterNode{}
	steps := 0 // p's header is the first
	var from func(b *ir.Block) (*enterNode, bool)
	from = func(b *ir.Block) (*enterNode, bool) {
		if n, ok := memo[b]; ok {
			return n, true
		}
		if steps++; steps > maxEnterBlocks {
			return nil, false
		}
		n, ok := enterNo, true
		switch m := r.cfg.LoopOf[b]; {
		case b == l.Header:
			n = enterYes
		case !toward[b] || (b == p.Header && steps > 1):
			// Where l is no more reachable, or the next iteration.
		case m != p:
			// An inner loop, passed whole to the block it leaves to.
			for m.Parent != p {
				m = m.Parent
			}
			_, target := cacheplan.LoneExit(m)
			if b != m.Header || target == nil {
				return nil, false
			}
			n, ok = from(target)
		default:
			switch t := b.Term.(type) {
			case *ir.TermBr:
				n, ok = from(t.Target.(*ir.Block))
			case *ir.TermCondBr:
				yes, ok1 := from(t.TargetTrue.(*ir.Block))
				no, ok2 := from(t.TargetFalse.(*ir.Block))
				n, ok = yes, ok1 && ok2
				if yes != no {
					n = &enterNode{cond: irfacts.Unwrap(t.Cond), onTrue: yes, onFalse: no}
				}
			default:
				return nil, false
			}
		}
		if ok {
			memo[b] = n
		}
		return n, ok
	}
	n, ok := from(p.Header)
	if !ok || n == enterNo {
		return nil, false
	}
	if n == enterYes {
		return nil, true
	}
	return []entryGuard{{paths: n}}, true
}

// pathsEnter emits into blk whether the decision n leads into its loop,
// from the forward values of its conditions (one select per node).
func (r *reverseGen) pathsEnter(blk *ir.Block, n *enterNode) value.Value {
	done := map[*enterNode]value.Value{enterYes: constant.True, enterNo: constant.False}
	var emit func(n *enterNode) value.Value
	emit = func(n *enterNode) value.Value {
		if v, ok := done[n]; ok {
			return v
		}
		v := blk.NewSelect(r.mapValue(n.cond), emit(n.onTrue), emit(n.onFalse))
		done[n] = v
		return v
	}
	return emit(n)
}

// retarget makes terminator term branch to to wherever it branched to from.
func retarget(term ir.Terminator, from, to *ir.Block) {
	switch t := term.(type) {
	case *ir.TermBr:
		if t.Target == from {
			t.Target = to
		}
	case *ir.TermCondBr:
		if t.TargetTrue == from {
			t.TargetTrue = to
		}
		if t.TargetFalse == from {
			t.TargetFalse = to
		}
	case *ir.TermSwitch:
		if t.TargetDefault == from {
			t.TargetDefault = to
		}
		for _, c := range t.Cases {
			if c.Target == from {
				c.Target = to
			}
		}
	}
}
