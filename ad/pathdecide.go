package ad

import (
	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
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
// branch conditions it meets, as long as the reverse of an iteration of
// b's loop can rebuild every such condition: one the same throughout b's
// loop (invariantCond: defined outside it, or a few pure operations of
// values defined outside it; the vectorizer's min.iters.check and cmp.n
// are functions of the trip count), or one computed in each iteration of
// b's loop from its affine induction variables (iterationCond: the same
// checks where the inner trip count depends on the outer index, as in a
// triangular nest). Given those values, the path from d to b is
// determined: inner loops (the vector body, the remainder) are passed as
// a whole when they leave to one block. The reverse evaluates a condition
// only where the forward path passed its branch, so it reads no value the
// forward sweep did not compute.
//
// What it assumes: a condition is rebuilt in the reverse from the values
// it was computed from in the forward sweep, with the same result. SSA
// values do not change, so a value defined outside b's loop is the one of
// the current entry (looked up, or read back from the slot decisionCond
// stores), and a pure operation (pureOf: no loads, nothing that traps) of
// such values or of the loop's affine induction variables (rebuilt from
// its counter and entry counter, remat.go) gives the same result. A
// condition of anything else (a load in the loop, a call, a phi the path
// did not fix) leaves the join undecided here: the forward sweep records
// the predecessor it came from (predIdx).

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

// pathDecision returns a tree telling b's predecessors apart by the
// conditions met on the paths from b's immediate dominator, each invariant
// in b's loop or computed per iteration of it (invariantCond,
// iterationCond); ok is false where the paths do not decide it: one meets
// another condition or an inner loop it cannot pass whole, or the walk
// grows too long (maxPathSteps, maxDecisionDepth).
func (r *reverseGen) pathDecision(b *ir.Block) (*decision, bool) {
	d := r.cfg.IDom[b]
	if d == nil || len(r.cfg.Preds[b]) < 2 || r.cfg.LoopOf[d] != r.cfg.LoopOf[b] || r.primal().IsHeader(b) {
		return nil, false
	}
	w := &pathWalk{r: r, b: b, d: d, l: r.cfg.LoopOf[b]}
	t, out := w.from(d, pathState{assumed: map[value.Value]bool{}, phis: map[*ir.InstPhi]value.Value{}}, 0)
	return t, out == pathTree
}

// pathState is what a path from d has fixed: the conditions assumed, and
// the values the phis of the blocks it entered took on the edges it came
// in by (the start of a remainder loop: 0 past the skip edge, n.vec from
// middle.block).
type pathState struct {
	assumed map[value.Value]bool
	phis    map[*ir.InstPhi]value.Value
}

// with returns a copy of st assuming c is v.
func (st pathState) with(c value.Value, v bool) pathState {
	next := pathState{assumed: make(map[value.Value]bool, len(st.assumed)+1), phis: st.phis}
	for k, a := range st.assumed {
		next.assumed[k] = a
	}
	next.assumed[c] = v
	return next
}

// entering returns st with the phis of y resolved for the edge from x
// (those whose value comes from x: none where x is nil).
func (st pathState) entering(x, y *ir.Block) pathState {
	next := pathState{assumed: st.assumed, phis: make(map[*ir.InstPhi]value.Value, len(st.phis)+2)}
	for k, v := range st.phis {
		next.phis[k] = v
	}
	for _, inst := range y.Insts {
		p, ok := inst.(*ir.InstPhi)
		if !ok {
			break
		}
		delete(next.phis, p)
		if v, ok := irfacts.IncomingFrom(p, x); ok {
			next.phis[p] = v
		}
	}
	return next
}

// leaving returns st without the phis of loop m's blocks: entering m's
// header fixed them to their values in its first iteration, which those
// after a later iteration (its exit values) are not.
func (st pathState) leaving(blockOf map[value.Value]*ir.Block, m *irutil.Loop) pathState {
	next := pathState{assumed: st.assumed, phis: make(map[*ir.InstPhi]value.Value, len(st.phis))}
	for k, v := range st.phis {
		if b, ok := blockOf[k]; !ok || !m.Contains(b) {
			next.phis[k] = v
		}
	}
	return next
}

// from decides the paths leaving block x, given what the way from d has
// fixed.
func (w *pathWalk) from(x *ir.Block, st pathState, depth int) (*decision, pathOutcome) {
	if w.steps++; w.steps > maxPathSteps {
		return nil, pathUndecided
	}
	switch t := x.Term.(type) {
	case *ir.TermBr:
		return w.edge(x, t.Target.(*ir.Block), st, depth)
	case *ir.TermCondBr:
		c := irfacts.Unwrap(t.Cond)
		if k, ok := c.(*constant.Int); ok {
			return w.takeSide(x, t, k.X.Sign() != 0, st, depth)
		}
		if v, ok := st.assumed[c]; ok {
			return w.takeSide(x, t, v, st, depth)
		}
		if depth >= maxDecisionDepth || !(w.r.invariantCond(w.l, c, st.phis, rematDepth) || w.r.iterationCond(w.l, c, st.phis, rematDepth)) {
			return nil, pathUndecided
		}
		sides := [2]*decision{}
		outs := [2]pathOutcome{}
		for i, v := range []bool{true, false} {
			sides[i], outs[i] = w.takeSide(x, t, v, st.with(c, v), depth+1)
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
		return &decision{cond: c, onTrue: sides[0], onFalse: sides[1], path: true, phis: st.phis}, pathTree
	case *ir.TermRet, *ir.TermUnreachable:
		return nil, pathNever
	}
	return nil, pathUndecided
}

// takeSide follows x's conditional branch t the way v says.
func (w *pathWalk) takeSide(x *ir.Block, t *ir.TermCondBr, v bool, st pathState, depth int) (*decision, pathOutcome) {
	if v {
		return w.edge(x, t.TargetTrue.(*ir.Block), st, depth)
	}
	return w.edge(x, t.TargetFalse.(*ir.Block), st, depth)
}

// edge follows the edge from x to y: a leaf where y is b; no way to b
// where it leaves b's loop iteration or comes back to d; an inner loop
// passed whole to the one block it leaves to.
func (w *pathWalk) edge(x, y *ir.Block, st pathState, depth int) (*decision, pathOutcome) {
	for {
		switch {
		case y == w.b:
			return &decision{pred: x}, pathTree
		case y == w.d || (w.l != nil && (!w.l.Contains(y) || y == w.l.Header)):
			return nil, pathNever
		}
		st = st.entering(x, y)
		m := w.r.cfg.LoopOf[y]
		if m == w.l {
			return w.from(y, st, depth)
		}
		for m.Parent != w.l {
			m = m.Parent
		}
		if y != m.Header {
			return nil, pathUndecided
		}
		exiting, target := cacheplan.LoneExit(m)
		if target == nil || (target == w.b && exiting == nil) {
			return nil, pathUndecided
		}
		if w.steps++; w.steps > maxPathSteps {
			return nil, pathUndecided
		}
		st = st.leaving(w.r.blockOf, m)
		x, y = exiting, target
	}
}

// invariantCond reports whether primal value v is, on a path that fixed
// phis, the same throughout an iteration of loop l (all of a run where l
// is nil) and readable in the reverse at no cost per iteration: a
// constant or parameter, a value defined outside l in a loop around it, a
// phi the path fixed to such a value, or a pure operation of such values.
func (r *reverseGen) invariantCond(l *irutil.Loop, v value.Value, phis map[*ir.InstPhi]value.Value, depth int) bool {
	v = irfacts.Unwrap(v)
	if depth < 0 {
		return false
	}
	if p, ok := v.(*ir.InstPhi); ok && phis[p] != nil {
		return r.invariantCond(l, phis[p], phis, depth-1)
	}
	def, isInst := r.blockOf[v]
	if !isInst {
		_, unknown := v.(ir.Instruction)
		return !unknown
	}
	if m := r.cfg.LoopOf[def]; (l == nil || !l.Contains(def)) && (m == nil || (l != nil && m.Contains(l.Header))) {
		return true
	}
	return depth > 0 && pureOf(v.(ir.Instruction), func(op value.Value) bool {
		return r.invariantCond(l, op, phis, depth-1)
	})
}

// pureOf reports whether inst cannot trap and its operands all satisfy ok.
func pureOf(inst ir.Instruction, ok func(value.Value) bool) bool {
	if !cannotTrap(inst) {
		return false
	}
	for _, op := range operandsOf(inst) {
		if !ok(op) {
			return false
		}
	}
	return true
}

// iterationCond reports whether primal value v, on a path that fixed
// phis, is computed in every iteration of loop l from l's affine induction
// variables and values invariantCond admits, by pure operations defined in
// l itself (in none of its inner loops): a vectorized inner loop's
// min.iters.check and cmp.n where its trip count depends on l's
// induction variable (the triangular j = i+1 .. d). Such a value is the
// same throughout one iteration of l, and the reverse of that iteration
// rebuilds it from l's counter (lookup: induction variables, remat.go),
// where the path reaching its branch computed it.
func (r *reverseGen) iterationCond(l *irutil.Loop, v value.Value, phis map[*ir.InstPhi]value.Value, depth int) bool {
	v = irfacts.Unwrap(v)
	if l == nil || depth < 0 {
		return false
	}
	if p, ok := v.(*ir.InstPhi); ok && phis[p] != nil {
		return r.iterationCond(l, phis[p], phis, depth-1)
	}
	if r.invariantCond(l, v, phis, depth) {
		return true
	}
	def, ok := r.blockOf[v]
	if !ok || r.cfg.LoopOf[def] != l {
		return false
	}
	if p, ok := v.(*ir.InstPhi); ok {
		if def != l.Header {
			return false
		}
		_, _, affine := r.affineOf(p)
		return affine
	}
	return depth > 0 && pureOf(v.(ir.Instruction), func(op value.Value) bool {
		return r.iterationCond(l, op, phis, depth-1)
	})
}

// decisionCond returns, in reverse block blk (the reverse of primal block
// b), the forward value of a path decision's condition v, on the path that
// fixed phis (such a phi stands for the value it was fixed to):
//   - a value defined outside every loop is stored once by the forward
//     sweep and read back by a volatile load. Read as an SSA value, the
//     optimizer after AD propagates what each branch on it implies (n.vec
//     = trip count where cmp.n holds) into the reverse loop's paths and
//     merges the results in phis that are no longer invariant, which
//     measured costlier than the records removed;
//   - a constant, a parameter, a value of a loop around b's, and an
//     induction variable of b's loop are read by lookup, which rebuilds
//     the last from the loop's counter (remat.go);
//   - a pure operation defined in b's loop (invariantCond, iterationCond)
//     is rebuilt here from its operands' decisionCond.
func (r *reverseGen) decisionCond(blk, b *ir.Block, v value.Value, phis map[*ir.InstPhi]value.Value) value.Value {
	v = irfacts.Unwrap(v)
	if p, ok := v.(*ir.InstPhi); ok && phis[p] != nil {
		return r.decisionCond(blk, b, phis[p], phis)
	}
	def, isInst := r.blockOf[v]
	l := r.cfg.LoopOf[b]
	switch {
	case !isInst:
		return r.lookup(blk, b, v)
	case r.cfg.LoopOf[def] == nil:
		ld := blk.NewLoad(v.Type(), r.valueSlot(r.mapValue(v), def))
		ld.Volatile = true
		return ld
	case l == nil || !l.Contains(def):
		return r.lookup(blk, b, v)
	case r.cfg.LoopOf[def] == l && !r.invariantCond(l, v, phis, rematDepth):
		// Computed in each iteration of b's loop (iterationCond): an
		// induction variable is looked up, a pure operation rebuilt
		// below. A phi the path fixed among its operands then stands for
		// its value; a lookup would rebuild it from the way the forward
		// sweep took (a select on that way's record).
		if _, isPhi := v.(*ir.InstPhi); isPhi {
			return r.lookup(blk, b, v)
		}
	}
	c, err := irutil.CloneInst(v.(ir.Instruction), func(op value.Value) value.Value {
		return r.decisionCond(blk, b, op, phis)
	})
	if err != nil {
		panic(err) // invariantCond and iterationCond admit only pure instructions, which CloneInst copies
	}
	if n, ok := c.(interface{ SetName(string) }); ok {
		n.SetName("")
	}
	blk.Insts = append(blk.Insts, c)
	return c.(value.Value)
}
