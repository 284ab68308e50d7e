package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Trip counts: a loop whose exit compares an induction variable with a
// loop-invariant bound has a header count computable on loop entry. The
// forward sweep uses it (as Enzyme uses SCEV) to size the loop's cache
// buffers once, for the whole loop nest where the inner counts are
// invariant in the outer loops, instead of growing them iteration by
// iteration. The count is only a reservation: the growth check in the
// header stays, so a wrong estimate costs memory or time, never results.

// tripCount describes the number of header executions of one loop entry:
// x_k = start + offset + k·step is compared with bound at the exit, the
// loop continuing while x_k pred bound.
type tripCount struct {
	phi    *ir.InstPhi // the induction variable
	start  value.Value // its value on entry (primal)
	bound  value.Value // loop-invariant (primal)
	step   int64
	offset int64
	pred   enum.IPred // continue predicate, IV on the left
	// every: each block leaving the loop dominates its latch, so every
	// iteration that goes on has passed every exit test (a test on the
	// way to the latch under a condition of the data may be skipped,
	// and the loop run past its bound).
	every bool
	// nsw: the adds computing x_k (the step, the offset) carry nsw, so
	// that x_k does not wrap where the loop continues (a wrapped value is
	// poison there, and a branch on it undefined).
	nsw bool
}

// reserveLimit is the largest reservation, in elements, made from a trip
// count; beyond it the buffers grow as the loop runs.
const reserveLimit = 1 << 28

// tripResult is analyzeTripCount's answer for one loop.
type tripResult struct {
	tc *tripCount
	ok bool
}

// analyzeTripCount finds the trip count of loop l, if every exit of l tests
// the same induction variable against the same invariant bound. It reads
// only the primal, which generating leaves alone, so the answer is kept per
// loop once generate has placed the primal's values in their blocks.
func (r *reverseGen) analyzeTripCount(l *irutil.Loop) (*tripCount, bool) {
	if res, ok := r.tripCounts[l]; ok {
		return res.tc, res.ok
	}
	tc, ok := r.findTripCount(l)
	if r.tripCounts != nil {
		r.tripCounts[l] = tripResult{tc, ok}
	}
	return tc, ok
}

// findTripCount is analyzeTripCount without the memo.
func (r *reverseGen) findTripCount(l *irutil.Loop) (*tripCount, bool) {
	outside, latch, ok := r.simpleHeader(l.Header)
	if !ok {
		return nil, false
	}
	var tc *tripCount
	for _, b := range r.f.Blocks {
		if !l.Contains(b) {
			continue
		}
		exits := false
		for _, s := range irutil.Succs(b) {
			if !l.Contains(s) {
				exits = true
			}
		}
		if !exits {
			continue
		}
		br, ok := b.Term.(*ir.TermCondBr)
		if !ok {
			return nil, false
		}
		cmp, ok := br.Cond.(*ir.InstICmp)
		if !ok {
			return nil, false
		}
		pred := cmp.Pred
		if !l.Contains(br.TargetTrue.(*ir.Block)) {
			pred = inversePred(pred)
		}
		if l.Contains(br.TargetTrue.(*ir.Block)) == l.Contains(br.TargetFalse.(*ir.Block)) {
			return nil, false
		}
		x, bound := cmp.X, cmp.Y
		if r.definedIn(l, x) {
			if r.definedIn(l, bound) {
				return nil, false
			}
		} else {
			x, bound = bound, x
			pred = swapPred(pred)
			if r.definedIn(l, bound) {
				return nil, false
			}
		}
		phi, offset, ok := r.inductionOf(l, x)
		if !ok {
			return nil, false
		}
		step, start, ok := inductionStep(phi, outside, latch)
		if !ok {
			return nil, false
		}
		nsw := stepNoWrap(phi, latch)
		if add, isAdd := x.(*ir.InstAdd); isAdd {
			nsw = nsw && hasNSW(add)
		}
		cur := &tripCount{phi: phi, start: start, bound: bound, step: step, offset: offset, pred: pred,
			every: r.cfg.Dominates(b, latch), nsw: nsw}
		if tc != nil {
			if !tc.same(cur) {
				return nil, false
			}
			cur.every = cur.every && tc.every
			cur.nsw = cur.nsw && tc.nsw
		}
		tc = cur
	}
	if tc == nil {
		return nil, false
	}
	if it, ok := tc.phi.Typ.(*types.IntType); ok && tc.pred == enum.IPredEQ && (tc.offset == 0 || it.BitSize == 64) {
		// Continuing while x_k == bound: once at most, as x_1 = x_0 + step
		// differs from x_0 (as -O1 writes a loop of two iterations).
		return tc, true
	}
	switch {
	case tc.step > 0:
		switch tc.pred {
		case enum.IPredSLT, enum.IPredULT, enum.IPredSLE, enum.IPredULE, enum.IPredNE:
			return tc, true
		}
	case tc.step < 0:
		switch tc.pred {
		case enum.IPredSGT, enum.IPredUGT, enum.IPredSGE, enum.IPredUGE, enum.IPredNE:
			return tc, true
		}
	}
	return nil, false
}

// same reports whether two exits test the same condition.
func (tc *tripCount) same(o *tripCount) bool {
	return tc.phi == o.phi && sameCount(tc, o)
}

// definedIn reports whether primal value v is an instruction of loop l.
func (r *reverseGen) definedIn(l *irutil.Loop, v value.Value) bool {
	b, ok := r.blockOf[v]
	return ok && l.Contains(b)
}

// inductionOf recognizes x as a header phi of l, or such a phi plus a
// constant.
func (r *reverseGen) inductionOf(l *irutil.Loop, x value.Value) (*ir.InstPhi, int64, bool) {
	isHeaderPhi := func(v value.Value) (*ir.InstPhi, bool) {
		p, ok := v.(*ir.InstPhi)
		return p, ok && r.blockOf[p] == l.Header
	}
	if p, ok := isHeaderPhi(x); ok {
		return p, 0, true
	}
	if add, ok := x.(*ir.InstAdd); ok {
		if p, c, ok := phiPlusConst(add); ok {
			if hp, ok := isHeaderPhi(p); ok {
				return hp, c, true
			}
		}
	}
	return nil, 0, false
}

// inductionStep returns the constant step and the start value of header phi
// p: its latch value is p + step, directly or through a phi of such sums.
func inductionStep(p *ir.InstPhi, outside, latch *ir.Block) (int64, value.Value, bool) {
	var start, next value.Value
	for _, in := range p.Incs {
		switch in.Pred {
		case outside:
			start = in.X
		case latch:
			next = in.X
		}
	}
	if start == nil || next == nil {
		return 0, nil, false
	}
	sums := []value.Value{next}
	if q, ok := next.(*ir.InstPhi); ok {
		sums = sums[:0]
		for _, in := range q.Incs {
			sums = append(sums, in.X)
		}
	}
	var step int64
	for i, s := range sums {
		add, ok := s.(*ir.InstAdd)
		if !ok {
			return 0, nil, false
		}
		base, c, ok := phiPlusConst(add)
		if !ok || base != p || (i > 0 && c != step) {
			return 0, nil, false
		}
		step = c
	}
	return step, start, step != 0
}

// stepNoWrap reports whether the latch value of induction variable p (p +
// step, or a phi of such sums) is computed by adds that carry nsw.
func stepNoWrap(p *ir.InstPhi, latch *ir.Block) bool {
	next, ok := irfacts.IncomingFrom(p, latch)
	if !ok {
		return false
	}
	sums := []value.Value{next}
	if q, ok := next.(*ir.InstPhi); ok {
		sums = sums[:0]
		for _, in := range q.Incs {
			sums = append(sums, in.X)
		}
	}
	for _, s := range sums {
		add, ok := s.(*ir.InstAdd)
		if !ok || !hasNSW(add) {
			return false
		}
	}
	return true
}

// hasNSW reports whether add carries the nsw flag.
func hasNSW(add *ir.InstAdd) bool {
	for _, f := range add.OverflowFlags {
		if f == enum.OverflowFlagNSW {
			return true
		}
	}
	return false
}

// phiPlusConst splits add into a non-constant operand and a constant.
func phiPlusConst(add *ir.InstAdd) (value.Value, int64, bool) {
	if c, ok := add.Y.(*constant.Int); ok && c.X.IsInt64() {
		return add.X, c.X.Int64(), true
	}
	if c, ok := add.X.(*constant.Int); ok && c.X.IsInt64() {
		return add.Y, c.X.Int64(), true
	}
	return nil, 0, false
}

func inversePred(p enum.IPred) enum.IPred {
	return map[enum.IPred]enum.IPred{
		enum.IPredEQ: enum.IPredNE, enum.IPredNE: enum.IPredEQ,
		enum.IPredSLT: enum.IPredSGE, enum.IPredSGE: enum.IPredSLT, enum.IPredSGT: enum.IPredSLE, enum.IPredSLE: enum.IPredSGT,
		enum.IPredULT: enum.IPredUGE, enum.IPredUGE: enum.IPredULT, enum.IPredUGT: enum.IPredULE, enum.IPredULE: enum.IPredUGT,
	}[p]
}

func swapPred(p enum.IPred) enum.IPred {
	return map[enum.IPred]enum.IPred{
		enum.IPredEQ: enum.IPredEQ, enum.IPredNE: enum.IPredNE,
		enum.IPredSLT: enum.IPredSGT, enum.IPredSGT: enum.IPredSLT, enum.IPredSLE: enum.IPredSGE, enum.IPredSGE: enum.IPredSLE,
		enum.IPredULT: enum.IPredUGT, enum.IPredUGT: enum.IPredULT, enum.IPredULE: enum.IPredUGE, enum.IPredUGE: enum.IPredULE,
	}[p]
}

// headerCount emits into blk the number of header executions of one
// entry of the loop: 1 + the number of k for which x_k pred bound holds,
// with the primal start and bound mapped by val, clamped to
// [1, reserveLimit+1] when clamp is set.
func headerCount(blk *ir.Block, tc *tripCount, val func(value.Value) value.Value, clamp bool) value.Value {
	return countHeader(blk, tc, val, clamp, false)
}

// countHeader is headerCount; met says the induction variable is known to
// have reached the bound (exitCount), so a negative distance is not
// clamped.
func countHeader(blk *ir.Block, tc *tripCount, val func(value.Value) value.Value, clamp, met bool) value.Value {
	signed := tc.pred != enum.IPredULT && tc.pred != enum.IPredULE && tc.pred != enum.IPredUGT && tc.pred != enum.IPredUGE
	ext := func(v value.Value) value.Value {
		v = val(v)
		it, ok := v.Type().(*types.IntType)
		switch {
		case !ok || it.BitSize == 64:
			return v
		case it.BitSize > 64:
			return blk.NewTrunc(v, types.I64)
		case signed && it.BitSize > 1:
			return blk.NewSExt(v, types.I64)
		}
		return blk.NewZExt(v, types.I64)
	}
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	first := blk.NewAdd(ext(tc.start), i64(tc.offset)) // x_0
	bound := ext(tc.bound)
	if tc.pred == enum.IPredEQ {
		return blk.NewAdd(blk.NewZExt(blk.NewICmp(enum.IPredEQ, first, bound), types.I64), i64(1))
	}
	// dist: how far x_0 is from the bound, in the direction of the step.
	var dist value.Value
	step := tc.step
	if step > 0 {
		dist = blk.NewSub(bound, first)
	} else {
		dist = blk.NewSub(first, bound)
		step = -step
	}
	var k value.Value
	switch tc.pred {
	case enum.IPredSLE, enum.IPredULE, enum.IPredSGE, enum.IPredUGE: // floor(dist/step) + 1
		k = blk.NewAdd(blk.NewSDiv(dist, i64(step)), i64(1))
	case enum.IPredNE:
		k = dist
		if step != 1 {
			k = blk.NewSDiv(dist, i64(step))
		}
		if met {
			return blk.NewAdd(k, i64(1))
		}
	default: // ceil(dist/step)
		k = blk.NewSDiv(blk.NewAdd(dist, i64(step-1)), i64(step))
	}
	neg := blk.NewICmp(enum.IPredSLT, dist, i64(0))
	k = blk.NewSelect(neg, i64(0), k)
	if clamp {
		big := blk.NewICmp(enum.IPredSGT, k, i64(reserveLimit))
		k = blk.NewSelect(big, i64(reserveLimit), k)
	}
	return blk.NewAdd(k, i64(1))
}

// reservation emits, on entry to the outermost loop around l whose nest
// has trip counts known there, the capacity l's buffers need for that whole
// execution: the current counter plus the product of the header counts
// (an outer loop's less one where it exits from its header only: its last
// header execution enters nothing).
// It returns nil when l's own trip count is unknown.
func (r *reverseGen) reservation(l *irutil.Loop) value.Value {
	return r.reserve(l, nil, r.loops[l].counter)
}

// reserve is reservation for buffers filled up to counter, whose slots
// do not count the iterations of loop skip (hoist.go): skip's trip count
// is left out of the product.
func (r *reverseGen) reserve(l, skip *irutil.Loop, counter *ir.InstAlloca) value.Value {
	top, chain := r.nestChain(l, skip, false)
	if len(chain) == 0 && top != skip {
		return nil
	}
	outside, _, _ := r.simpleHeader(top.Header)
	blk := r.fwdTail[outside]
	limit := constant.NewInt(types.I64, reserveLimit)
	var n value.Value = constant.NewInt(types.I64, 1)
	val := r.entryValue(blk, top)
	for _, f := range chain {
		n = blk.NewMul(n, emitFactor(blk, f, val, true))
		big := blk.NewICmp(enum.IPredUGT, n, limit)
		n = blk.NewSelect(big, constant.NewInt(types.I64, reserveLimit+1), n)
	}
	c := blk.NewLoad(types.I64, counter)
	need := blk.NewAdd(c, n)
	tooBig := blk.NewICmp(enum.IPredUGT, n, limit)
	return blk.NewSelect(tooBig, constant.NewInt(types.I64, 0), need)
}

// emitFactor emits into blk the header count of f's loop, less one where
// f says so, with primal start and bound mapped by val, clamped as
// headerCount's clamp says.
func emitFactor(blk *ir.Block, f countFactor, val func(value.Value) value.Value, clamp bool) value.Value {
	c := headerCount(blk, f.tc, val, clamp)
	if f.minus1 {
		c = blk.NewSub(c, constant.NewInt(types.I64, 1))
	}
	return c
}

// nestChain returns the trip counts of l and of the loops around it, out
// to the outermost loop top whose entry knows them all: each is known
// (skip's is left out) and computed from values defined outside top (or,
// for a start, from merge phis of them: entryInvariant). An
// outer loop's factor is one less where it exits from its header only (its
// last header execution enters nothing). With exact set, only exact counts
// (exactCount) extend the chain, and a loop's parent joins it only where
// the branches deciding whether an iteration of the parent enters the
// loop are known on entry to top (entryGuards): the loop's factor keeps
// them, as its count is meaningful only where it is entered.
func (r *reverseGen) nestChain(l, skip *irutil.Loop, exact bool) (top *irutil.Loop, chain []countFactor) {
	top = l
	for cur, child := l, (*irutil.Loop)(nil); cur != nil; child, cur = cur, cur.Parent {
		tc, ok := r.analyzeTripCount(cur)
		if cur == skip {
			tc, ok = nil, true
		}
		if !ok || (exact && tc != nil && !exactCount(tc)) {
			break
		}
		var guards []entryGuard
		if exact && cur != l {
			// The child's count is meaningful only where it is entered
			// (a vector loop's count, where its guards skip it, is not).
			if guards, ok = r.entryGuards(child); !ok {
				break
			}
		}
		invariant := true
		for _, f := range chain {
			if !r.entryInvariant(cur, f.tc.start, mergeDepth) || r.definedIn(cur, f.tc.bound) {
				invariant = false
			}
			for _, g := range f.guards {
				for _, c := range g.conds() {
					invariant = invariant && !r.definedIn(cur, c)
				}
			}
		}
		for _, g := range guards {
			for _, c := range g.conds() {
				invariant = invariant && !r.definedIn(cur, c)
			}
		}
		if tc != nil && (!r.entryInvariant(cur, tc.start, mergeDepth) || r.definedIn(cur, tc.bound)) {
			invariant = false
		}
		if !invariant {
			break
		}
		if len(guards) > 0 {
			chain[len(chain)-1].guards = guards
		}
		if tc != nil {
			f := countFactor{tc: tc}
			if cur != l {
				// An outer loop exiting from its header enters the loop
				// inside it one time less than it runs its header.
				minus1, ok := r.childEntries(cur)
				f.minus1 = ok && minus1
			}
			chain = append(chain, f)
		}
		top = cur
	}
	return top, chain
}
