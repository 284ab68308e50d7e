package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// Path decisions: the join after a vectorized loop and its scalar
// remainder, and joins like it, whose sides overlap at their dominator
// (the remainder runs both when the vector loop is skipped and when it
// stops short). decisionTree splits predecessors by the branches that
// dominate them and cannot tell these apart; pathDecision instead follows
// the forward path from b's immediate dominator d under each value of the
// branch conditions it meets, as long as every such condition is the same
// throughout b's loop (defined outside it, or a few pure operations of
// values defined outside it, rebuilt in the reverse: the vectorizer's
// min.iters.check and cmp.n are functions of the trip count). Given those
// values, the path from d to b is determined: inner loops (the vector
// body, the remainder) are passed as a whole when they leave through one
// edge. The reverse evaluates a condition only where the forward path
// passed its branch, so it reads no value the forward sweep did not
// compute.

// maxPathSteps bounds the blocks one path decision follows.
const maxPathSteps = 64

// pathWalk is the state of one pathDecision.
type pathWalk struct {
	r     *reverseGen
	b, d  *ir.Block
	l     *irutil.Loop
	steps int
}

// pathOutcome tells what a walk found: a tree, no way to b (the forward
// sweep cannot have taken it, given b was reached), or no decision.
type pathOutcome int

const (
	pathTree pathOutcome = iota
	pathNever
	pathUndecided
)

// pathDecision returns a tree telling b's predecessors apart from
// conditions invariant in b's loop, following the paths from b's
// immediate dominator.
func (r *reverseGen) pathDecision(b *ir.Block) (*decision, bool) {
	d := r.cfg.IDom[b]
	if d == nil || len(r.cfg.Preds[b]) < 2 || r.cfg.LoopOf[d] != r.cfg.LoopOf[b] || r.isHeader(b) {
		return nil, false
	}
	w := &pathWalk{r: r, b: b, d: d, l: r.cfg.LoopOf[b]}
	t, out := w.from(d, map[value.Value]bool{}, 0)
	return t, out == pathTree
}

// from decides the paths leaving block x, given the conditions already
// assumed on the way from d.
func (w *pathWalk) from(x *ir.Block, assumed map[value.Value]bool, depth int) (*decision, pathOutcome) {
	if w.steps++; w.steps > maxPathSteps {
		return nil, pathUndecided
	}
	switch t := x.Term.(type) {
	case *ir.TermBr:
		return w.edge(x, t.Target.(*ir.Block), assumed, depth)
	case *ir.TermCondBr:
		c := unwrapArg(t.Cond)
		if k, ok := c.(*constant.Int); ok {
			return w.takeSide(x, t, k.X.Sign() != 0, assumed, depth)
		}
		if v, ok := assumed[c]; ok {
			return w.takeSide(x, t, v, assumed, depth)
		}
		if depth >= maxDecisionDepth || !w.r.invariantCond(w.l, c, rematDepth) {
			return nil, pathUndecided
		}
		sides := [2]*decision{}
		outs := [2]pathOutcome{}
		for i, v := range []bool{true, false} {
			next := make(map[value.Value]bool, len(assumed)+1)
			for k, a := range assumed {
				next[k] = a
			}
			next[c] = v
			sides[i], outs[i] = w.takeSide(x, t, v, next, depth+1)
			if outs[i] == pathUndecided {
				return nil, pathUndecided
			}
		}
		switch {
		case outs[0] == pathNever:
			return sides[1], outs[1]
		case outs[1] == pathNever:
			return sides[0], outs[0]
		case sides[0].pred != nil && sides[0].pred == sides[1].pred:
			return sides[0], pathTree
		}
		return &decision{cond: c, onTrue: sides[0], onFalse: sides[1], path: true}, pathTree
	case *ir.TermRet, *ir.TermUnreachable:
		return nil, pathNever
	}
	return nil, pathUndecided
}

// takeSide follows x's conditional branch t the way v says.
func (w *pathWalk) takeSide(x *ir.Block, t *ir.TermCondBr, v bool, assumed map[value.Value]bool, depth int) (*decision, pathOutcome) {
	if v {
		return w.edge(x, t.TargetTrue.(*ir.Block), assumed, depth)
	}
	return w.edge(x, t.TargetFalse.(*ir.Block), assumed, depth)
}

// edge follows the edge from x to y: a leaf where y is b; no way to b
// where it leaves b's loop iteration or comes back to d; an inner loop
// passed whole to the one block it leaves to.
func (w *pathWalk) edge(x, y *ir.Block, assumed map[value.Value]bool, depth int) (*decision, pathOutcome) {
	for {
		switch {
		case y == w.b:
			return &decision{pred: x}, pathTree
		case y == w.d || (w.l != nil && (!w.l.Contains(y) || y == w.l.Header)):
			return nil, pathNever
		}
		m := w.r.cfg.LoopOf[y]
		if m == w.l {
			return w.from(y, assumed, depth)
		}
		for m.Parent != w.l {
			m = m.Parent
		}
		if y != m.Header {
			return nil, pathUndecided
		}
		exiting, target := w.r.loneExit(m)
		if target == nil || (target == w.b && exiting == nil) {
			return nil, pathUndecided
		}
		if w.steps++; w.steps > maxPathSteps {
			return nil, pathUndecided
		}
		x, y = exiting, target
	}
}

// loneExit returns the one edge leaving loop m, or, where several blocks
// leave it to the same block, that block (exiting is nil then); no target
// where edges leave it to different blocks.
func (r *reverseGen) loneExit(m *irutil.Loop) (exiting, target *ir.Block) {
	n := 0
	for _, x := range r.cfg.Func.Blocks {
		if !m.Contains(x) {
			continue
		}
		for _, s := range irutil.Succs(x) {
			switch {
			case m.Contains(s):
			case target == nil:
				exiting, target, n = x, s, 1
			case target != s:
				return nil, nil
			case exiting != x:
				n++
			}
		}
	}
	if n > 1 {
		exiting = nil
	}
	return exiting, target
}

// invariantCond reports whether primal value v is the same throughout an
// iteration of loop l (all of a run where l is nil) and readable in the
// reverse at no cost per iteration: a constant or parameter, a value
// defined outside l in a loop around it, or a pure operation of such
// values.
func (r *reverseGen) invariantCond(l *irutil.Loop, v value.Value, depth int) bool {
	v = unwrapArg(v)
	def, isInst := r.blockOf[v]
	if !isInst {
		_, unknown := v.(ir.Instruction)
		return !unknown
	}
	if m := r.cfg.LoopOf[def]; (l == nil || !l.Contains(def)) && (m == nil || (l != nil && m.Contains(l.Header))) {
		return true
	}
	inst, _ := v.(ir.Instruction)
	if depth == 0 || !cannotTrap(inst) {
		return false
	}
	if _, isPhi := inst.(*ir.InstPhi); isPhi {
		return false
	}
	for _, op := range operandsOf(inst) {
		if !r.invariantCond(l, op, depth-1) {
			return false
		}
	}
	return true
}

// decisionCond returns, in reverse block blk (the reverse of primal block
// b), the forward value of a decision's condition v: read back where it is
// defined outside b's loop, else rebuilt from such values.
func (r *reverseGen) decisionCond(blk, b *ir.Block, v value.Value) value.Value {
	v = unwrapArg(v)
	def, isInst := r.blockOf[v]
	l := r.cfg.LoopOf[b]
	if !isInst || l == nil || !l.Contains(def) {
		return r.lookup(blk, b, v)
	}
	c, err := irutil.CloneInst(v.(ir.Instruction), func(op value.Value) value.Value {
		return r.decisionCond(blk, b, op)
	})
	if err != nil {
		panic(err) // invariantCond admitted only instructions CloneInst copies
	}
	if n, ok := c.(interface{ SetName(string) }); ok {
		n.SetName("")
	}
	blk.Insts = append(blk.Insts, c)
	return c.(value.Value)
}

// pathCond returns, in reverse block blk (the reverse of primal block b),
// the forward value of a path decision's condition v. A condition defined
// outside every loop is stored once by the forward sweep and read back by
// a volatile load: read as an SSA value, the optimizer after AD propagates
// what each branch on it implies (n.vec = trip count where cmp.n holds)
// into the reverse loop's paths and merges the results in phis that are no
// longer invariant, which measured costlier than the records removed.
// Other conditions are read as decisionCond reads them.
func (r *reverseGen) pathCond(blk, b *ir.Block, v value.Value) value.Value {
	v = unwrapArg(v)
	def, isInst := r.blockOf[v]
	if !isInst || r.cfg.LoopOf[def] != nil {
		return r.decisionCond(blk, b, v)
	}
	s, ok := r.condSlots[v]
	if !ok {
		s = r.newCacheSlot(v.Type(), nil)
		r.storeInForward(def, r.mapValue(v), s)
		r.condSlots[v] = s
	}
	ld := blk.NewLoad(v.Type(), s)
	ld.Volatile = true
	return ld
}
