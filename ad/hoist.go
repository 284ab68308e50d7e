package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Loop-invariant caches: a value cached in loop d that is the same in every
// iteration of an enclosing loop x (for the same iteration numbers of the
// loops between) is cached without x's dimension. Every iteration of x
// writes the same slots with the same values, and the reverse of every
// iteration reads them back. A particle system's pairwise loop loads p[j]
// for every (i, j), but p[j] is not written inside the i loop: cached per j,
// not per (i, j).
//
// A value the same in every iteration of its own loop d is cached per
// iteration of the loop around d, in that loop's buffers (or once, outside
// loops). Otherwise, for x around d, the slot of d's k-th iteration (d's
// linear counter) is b + k - a, where b is the group's fill level on entry
// to x and a is d's counter at the start of the current iteration of x (on
// entry to d, when x is d's parent). Both are forward values the reverse
// looks up like any other; the group has its own buffers and capacity,
// grown in d's header.
//
// v is x-invariant when it is computed, with operations that depend on
// their operands only, from values defined outside x and induction
// variables of the loops between d and x; those loops run the same
// iterations in every iteration of x (trip counts from x-invariant values,
// exits tested every iteration, each below the outermost entered in every
// iteration of its parent or skipped by guards on x-invariant conditions:
// a guard that differs between iterations of x would move the slots of the
// iterations after it); and its loads read memory nothing in x may write.

// hoistCache is the cache group of the values of loop inner cached without
// the dimension of loop over, a loop around it. (Values the same in every
// iteration of their own loop are cached per iteration of the loop around,
// in its buffers.)
type hoistCache struct {
	inner, over *irutil.Loop
	lc          *loopCache  // counter: slots filled so far; cap and records as a loop's
	a, b        value.Value // forward: inner's counter at over's iteration start; the fill level at over's entry
	idx         value.Value // forward: this iteration's slot, defined in inner's header
}

// invariance memoizes the analysis for one pair of loops (d, x).
type invariance struct {
	chain bool // the loops from d out to x run the same iterations in every iteration of x
	memo  map[value.Value]bool
}

// hoistLoop returns the outermost loop around primal value v's definition
// in whose iterations v is invariant, or nil.
func (r *reverseGen) hoistLoop(v value.Value) *irutil.Loop {
	if x, ok := r.hoistMemo[v]; ok {
		return x
	}
	if r.hoistMemo == nil {
		r.hoistMemo = map[value.Value]*irutil.Loop{}
		r.invMemo = map[[2]*irutil.Loop]*invariance{}
	}
	var best *irutil.Loop
	if def, ok := r.blockOf[v]; ok {
		d := r.cfg.LoopOf[def]
		for x := d; x != nil; x = x.Parent {
			inv := r.invMemo[[2]*irutil.Loop{d, x}]
			if inv == nil {
				// Values are invariant or not for the pair (d, x): memoize
				// per pair (no cycles: only header phis, which stop).
				inv = &invariance{memo: map[value.Value]bool{}}
				inv.chain = r.chainInvariant(d, x, inv.memo)
				r.invMemo[[2]*irutil.Loop{d, x}] = inv
			}
			if inv.chain && r.invariantIn(v, x, d, inv.memo) {
				best = x
			}
		}
	}
	r.hoistMemo[v] = best
	return best
}

// chainInvariant reports whether the loops from d out to x (exclusive) run
// the same iterations in every iteration of x: x-invariant trip counts,
// and guards skipping a loop of the chain decided the same way in every
// iteration of x (enteredEveryIteration with x-invariant conditions).
func (r *reverseGen) chainInvariant(d, x *irutil.Loop, memo map[value.Value]bool) bool {
	if _, _, ok := r.primal().SimpleHeader(x.Header); !ok {
		return false
	}
	for m := d; m != x; m = m.Parent {
		_, latch, ok := r.primal().SimpleHeader(m.Header)
		if !ok {
			return false
		}
		tc, ok := r.analyzeTripCount(m)
		if !ok || !r.invariantIn(tc.Start, x, d, memo) || !r.invariantIn(tc.Bound, x, d, memo) {
			return false
		}
		for b := range m.Blocks {
			for _, s := range irutil.Succs(b) {
				if !m.Contains(s) && !r.cfg.Dominates(b, latch) {
					return false // an exit not tested every iteration
				}
			}
		}
		if p := m.Parent; p != x {
			// m's preheader may end in a guard that skips m (a rotated
			// loop's, or the program's): it must decide alike in every
			// iteration of x.
			_, pLatch, ok := r.primal().SimpleHeader(p.Header)
			xInvariant := func(v value.Value) bool { return r.invariantIn(v, x, d, memo) }
			if !ok || !r.enteredEveryIteration(m, pLatch, xInvariant) {
				return false // not entered in the same iterations of its parent in every iteration of x
			}
		}
	}
	return true
}

// invariantIn reports whether primal value v, used in loop d, is the same
// in every iteration of loop x for the same iteration numbers of the loops
// between.
func (r *reverseGen) invariantIn(v value.Value, x, d *irutil.Loop, memo map[value.Value]bool) bool {
	v = irfacts.Unwrap(v)
	def, ok := r.blockOf[v]
	if !ok {
		_, isInst := v.(ir.Instruction)
		return !isInst // constants, parameters, globals
	}
	if !x.Contains(def) {
		return true
	}
	if res, ok := memo[v]; ok {
		return res
	}
	memo[v] = false
	res := false
	switch inst := v.(type) {
	case *ir.InstPhi:
		res = r.chainInduction(inst, x, d, memo)
	case *ir.InstLoad:
		res = !inst.Volatile && r.invariantIn(inst.Src, x, d, memo) && !r.writtenIn(x, inst)
	default:
		if i, ok := v.(ir.Instruction); ok && (addressArith(i) || pureOp(i)) {
			res = r.operandsInvariant(i, x, d, memo)
		}
	}
	memo[v] = res
	return res
}

func (r *reverseGen) operandsInvariant(inst ir.Instruction, x, d *irutil.Loop, memo map[value.Value]bool) bool {
	for _, op := range operandsOf(inst) {
		if !r.invariantIn(op, x, d, memo) {
			return false
		}
	}
	return true
}

// chainInduction reports whether p is the induction variable of a loop
// between d and x (x excluded) with a constant step and an x-invariant
// start.
func (r *reverseGen) chainInduction(p *ir.InstPhi, x, d *irutil.Loop, memo map[value.Value]bool) bool {
	hb := r.blockOf[p]
	m := r.cfg.LoopOf[hb]
	if m == nil || m.Header != hb || m == x {
		return false
	}
	inChain := false
	for c := d; c != nil && c != x; c = c.Parent {
		inChain = inChain || c == m
	}
	if !inChain {
		return false
	}
	outside, latch, ok := r.primal().SimpleHeader(hb)
	if !ok {
		return false
	}
	_, start, ok := cacheplan.InductionStep(p, outside, latch)
	return ok && r.invariantIn(start, x, d, memo)
}

// writtenIn reports whether something in loop x may write bytes primal
// load l reads.
func (r *reverseGen) writtenIn(x *irutil.Loop, l *ir.InstLoad) bool {
	return r.mayBeWritten(l, func(w memWriter) bool { return x.Contains(w.block) })
}

// disjointAccess reports whether store w and load l provably touch
// different bytes: both address fields of elements of the same array (a
// getelementptr of one element type off one base, constant field indices)
// at disjoint byte ranges within the element.
func disjointAccess(w ir.Instruction, l *ir.InstLoad) bool {
	st, ok := w.(*ir.InstStore)
	if !ok {
		return false
	}
	b1, t1, lo1, hi1, ok1 := elementRange(st.Dst, st.Src.Type())
	b2, t2, lo2, hi2, ok2 := elementRange(l.Src, l.ElemType)
	return ok1 && ok2 && b1 == b2 && t1.Equal(t2) && (hi1 <= lo2 || hi2 <= lo1)
}

// elementRange describes an access of type t at pointer p = gep T, base,
// i, c1, c2, ... (constants c) as the byte range [lo, hi) it covers within
// element i of type T; ok is false for other pointers or ranges beyond the
// element.
func elementRange(p value.Value, t types.Type) (base value.Value, elem types.Type, lo, hi int64, ok bool) {
	p = irfacts.Unwrap(p)
	for {
		bc, isCast := p.(*ir.InstBitCast)
		if !isCast {
			break
		}
		p = irfacts.Unwrap(bc.From)
	}
	g, isGEP := p.(*ir.InstGetElementPtr)
	if !isGEP || len(g.Indices) == 0 {
		return nil, nil, 0, 0, false
	}
	base = irfacts.Unwrap(g.Src)
	if z, ok := irfacts.Unwrap(g.Indices[0]).(*constant.Int); ok && z.X.Sign() == 0 {
		// gep T, (gep T, base, i), 0, c...: element i of base (as -O0 writes p[i].f).
		if inner, ok := base.(*ir.InstGetElementPtr); ok && len(inner.Indices) == 1 && inner.ElemType.Equal(g.ElemType) {
			base = irfacts.Unwrap(inner.Src)
		}
	}
	size, _, ok := abiLayout(g.ElemType)
	if !ok {
		return nil, nil, 0, 0, false
	}
	cur := g.ElemType
	for _, ix := range g.Indices[1:] {
		c, isConst := irfacts.Unwrap(ix).(*constant.Int)
		if !isConst || !c.X.IsInt64() || c.X.Int64() < 0 {
			return nil, nil, 0, 0, false
		}
		k := c.X.Int64()
		switch ct := cur.(type) {
		case *types.StructType:
			if k >= int64(len(ct.Fields)) {
				return nil, nil, 0, 0, false
			}
			off, ok := fieldOffset(ct, int(k))
			if !ok {
				return nil, nil, 0, 0, false
			}
			lo += off
			cur = ct.Fields[k]
		case *types.ArrayType:
			es, _, ok := abiLayout(ct.ElemType)
			if !ok || uint64(k) >= ct.Len {
				return nil, nil, 0, 0, false
			}
			lo += k * es
			cur = ct.ElemType
		default:
			return nil, nil, 0, 0, false
		}
	}
	n, ok := storeSize(t)
	if !ok || lo+n > size {
		return nil, nil, 0, 0, false
	}
	return base, g.ElemType, lo, lo + n, true
}

// naturalLayout reports whether module m targets x86-64 (or is
// hand-written IR without a target), the layout abiLayout computes.
func naturalLayout(m *ir.Module) bool {
	t := m.TargetTriple
	return t == "" || strings.HasPrefix(t, "x86_64")
}

// abiLayout is the x86-64 allocation size and alignment of t as LLVM 14
// lays it out (irutil's layout: i128 is 8-byte aligned, wider integers
// round up to 8 bytes), ok false for types it does not know.
func abiLayout(t types.Type) (size, align int64, ok bool) {
	if !knownLayout(t) {
		return 0, 0, false
	}
	return irutil.AllocSize(t), irutil.Align(t), true
}

// knownLayout reports a type whose layout irutil knows: integers, the
// x86-64 float kinds, pointers, and vectors, arrays and (non-opaque)
// structs of them.
func knownLayout(t types.Type) bool {
	switch x := t.(type) {
	case *types.IntType, *types.PointerType:
		return true
	case *types.FloatType:
		switch x.Kind {
		case types.FloatKindHalf, types.FloatKindFloat, types.FloatKindDouble, types.FloatKindX86_FP80, types.FloatKindFP128:
			return true
		}
	case *types.VectorType:
		return knownLayout(x.ElemType)
	case *types.ArrayType:
		return knownLayout(x.ElemType)
	case *types.StructType:
		if x.Opaque {
			return false
		}
		for _, f := range x.Fields {
			if !knownLayout(f) {
				return false
			}
		}
		return true
	}
	return false
}

// fieldOffset is the byte offset of field k of struct t.
func fieldOffset(t *types.StructType, k int) (int64, bool) {
	if !knownLayout(t) {
		return 0, false
	}
	return irutil.FieldOffset(t, k), true
}

// storeSize is the number of bytes a load or store of t touches.
func storeSize(t types.Type) (int64, bool) {
	if v, ok := t.(*types.VectorType); ok {
		if it, isInt := v.ElemType.(*types.IntType); isInt && it.BitSize%8 != 0 {
			return 0, false
		}
		es, _, ok := abiLayout(v.ElemType)
		return es * int64(v.Len), ok
	}
	if _, ok := t.(*types.IntType); ok {
		return irutil.StoreSize(t), true
	}
	s, _, ok := abiLayout(t)
	return s, ok
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// hoistGroup returns (creating on first use) the cache group of loop d's
// values cached without the dimension of loop x: its fill counter, the
// forward values a and b, and the slot index in d's header.
func (r *reverseGen) hoistGroup(d, x *irutil.Loop) *hoistCache {
	for _, h := range r.hoists {
		if h.inner == d && h.over == x {
			return h
		}
	}
	h := &hoistCache{inner: d, over: x, lc: &loopCache{loop: d}}
	h.lc.counter = r.newCacheSlot(types.I64, constant.NewInt(types.I64, 0))
	h.lc.cap = r.newCacheSlot(types.I64, constant.NewInt(types.I64, 0))
	outside, _, _ := r.primal().SimpleHeader(x.Header)
	pt := r.fwdTail[outside]
	b := ir.NewLoad(types.I64, h.lc.counter)
	pt.Insts = append(pt.Insts, b)
	r.blockOf[b] = outside
	r.addSnapshot(snapshot{counter: h.lc.counter, at: x, src: d, skip: x}, b)
	h.b = b
	dh := r.fwdHead[d.Header]
	if c0, ok := r.entryCount[d.Header]; ok && d.Parent == x {
		h.a = c0 // d is entered once per iteration of x: its counter on entry
	} else {
		a := ir.NewLoad(types.I64, r.loops[d].counter)
		xh := r.fwdHead[x.Header]
		xh.Insts = append(xh.Insts, a)
		r.blockOf[a] = x.Header
		h.a = a
	}
	h.idx = dh.NewAdd(b, dh.NewSub(r.loops[d].fwdIdx, h.a))
	idx := h.idx
	// The fill level: the largest slot used so far, plus one.
	filled := dh.NewLoad(types.I64, h.lc.counter)
	next := dh.NewAdd(idx, constant.NewInt(types.I64, 1))
	dh.NewStore(dh.NewSelect(dh.NewICmp(enum.IPredUGT, next, filled), next, filled), h.lc.counter)
	r.hoists = append(r.hoists, h)
	return h
}

// hoistedLookup emits, in reverse block blk (the reverse of primal block
// at, inside loop d), the read of forward value fv of loop d from group h,
// creating its buffer and forward store on first use.
func (r *reverseGen) hoistedLookup(blk, at *ir.Block, h *hoistCache, fv value.Value, def *ir.Block) value.Value {
	b := r.recordField(h.lc, fv, def, h.idx)
	k := blk.NewLoad(types.I64, r.loops[h.inner].counter)
	a := r.lookupForward(blk, at, h.a, r.blockOf[h.a])
	idx := blk.NewAdd(r.lookupForward(blk, at, h.b, r.blockOf[h.b]), blk.NewSub(k, a))
	return r.readField(blk, h.lc, b, idx)
}
