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

// Store forwarding through a loop-filled array: a primal load of a[j]
// that provably reads what an earlier loop stored at a[i] for i = j, where
// the stored value is a pure function of the loop's index and of memory
// nothing overwrites, is rebuilt in the reverse sweep by evaluating that
// function at j, instead of being recorded per execution. GMM's
// xcentered[i] = x[i] - mean[i], read back by the triangle product, is the
// shape: the array itself is overwritten for the next component, its
// inputs never.
//
// The proof (forwardedStore):
//   - the store is `store V, gep inbounds T, P, i` in loop L1 whose header
//     phi i runs 0, 1, ... and whose only exit is its latch testing
//     i+1 == N, and the store's block dominates that latch: every time L1
//     is left, a[0..N-1] were all written by it, a[i] in iteration i;
//   - the load is `load T, gep inbounds T, P, j` (P the same value), j a
//     header phi 0, 1, ... of a loop L2 around the load whose latch
//     continues while j+1 != N, the same N: j < N;
//   - or both addresses are P plus an offset outside every loop plus i
//     (j), through inbounds getelementptrs of T and adds without wrap
//     (elementTerms), the two offsets the same value or the same multiple
//     of N (a buffer of gates, one of N each: apartinloop.go);
//   - within an iteration of the loop around L1 (the function when none),
//     every path to the load passes L1's header and its exit (another loop
//     may exit into the same block), and no instruction on a path
//     from that exit to the load, nor any in L1 but the store, may write
//     the load's bytes;
//   - V is computed in L1 from i, from values defined outside every loop
//     that does not hold both the store and the load (the same in that
//     iteration), by pure operations and loads of memory nothing writes
//     after them (loadRecomputable, without per-element disjointness: the
//     index changes).
//
// Only in gradients that run forward and reverse in one function.
//
// Where V is no such function (it reads memory written later, as an LSTM
// cell's gates read the hidden state the cell overwrites), or in a split
// pair (augmented forward and reverse, where the caller may write memory
// between them), the load is rebuilt from L1's records instead (issue
// 22): V at L1's iteration j, evaluated in the reverse sweep as L1's own
// reverse would evaluate it in iteration j, but reading L1's record j
// (rebuildFromRecords). Each node of V's tree in L1 is read from record
// j where the plan caches it (or where it cannot be evaluated again: a
// phi, a call, a load of memory written later; recorded for this), and
// evaluated again from its operands otherwise; L1's index is j, values
// from outside L1 are looked up as they are. Outside every loop, L1's
// header is entered at most once per call, its counter 0 on entry
// (exitentry.go's countsFromZero), so iteration i's record is record i.
// Inside a loop C, L1's records of C's current iteration start at its
// counter's value on entry (entryCount, looked up like any forward value
// of C's iteration): iteration i's record is that plus i, as L1's header
// advances the counter once per iteration from iv = 0. Every value of V's
// tree in L1 must be L1's own (no loop inside L1), and those from outside
// it the same throughout C's iteration (outside every loop where there is
// no C). The load then costs no record of L2's: an LSTM cell's gates,
// stored by one loop and read by the next two, are recorded once, in a
// layer loop inside a time loop too.

// forwardedLoad is a load proven to read a value a loop stored.
type forwardedLoad struct {
	store  *ir.InstStore
	iv     *ir.InstPhi      // the storing loop's index
	idx    value.Value      // the load's index: iv's value to evaluate at
	tree   []ir.Instruction // the stored value's instructions in L1, operands first
	leaves []value.Value    // values from outside L1 the tree reads (records: the stored value and idx)
	// records: rebuilt from L1's records (rebuildFromRecords), not from
	// the tree.
	records bool
	loop    *irutil.Loop // L1, for records
}

// forwardedStore returns the proof that primal load l reads a value
// rebuilt from its index, or nil.
func (r *reverseGen) forwardedStore(l *ir.InstLoad) *forwardedLoad {
	if r.fwdStores == nil {
		r.fwdStores = map[*ir.InstLoad]*forwardedLoad{}
	}
	if f, ok := r.fwdStores[l]; ok {
		return f
	}
	f := r.findForwardedStore(l)
	r.fwdStores[l] = f
	return f
}

func (r *reverseGen) findForwardedStore(l *ir.InstLoad) *forwardedLoad {
	lb := r.blockOf[l]
	if lb == nil || l.Volatile || r.vmap[l] == nil {
		return nil
	}
	base, terms, ok := elementTerms(l.Src, l.ElemType)
	if !ok {
		return nil
	}
	// The index: the one term that is the header phi of a loop around l.
	var jp *ir.InstPhi
	var offsets []value.Value
	for _, t := range terms {
		if p, ok := t.(*ir.InstPhi); ok && jp == nil {
			if h := r.blockOf[p]; h != nil && r.cfg.LoopOf[h] != nil && r.cfg.LoopOf[h].Header == h && r.cfg.LoopOf[h].Contains(lb) {
				jp = p
				continue
			}
		}
		offsets = append(offsets, t)
	}
	if jp == nil || len(offsets) > 1 {
		return nil
	}
	l2 := r.cfg.LoopOf[r.blockOf[jp]]
	n2, ok := r.countedLoop(l2, jp, false)
	if !ok {
		return nil
	}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			st, ok := inst.(*ir.InstStore)
			if !ok || st.Volatile || !st.Src.Type().Equal(l.ElemType) {
				continue
			}
			if f := r.forwardFrom(st, b, l, lb, base, offsets, jp, n2); f != nil {
				return f
			}
		}
	}
	return nil
}

// forwardFrom checks store st in block sb as the source of load l (see
// forwardedStore).
func (r *reverseGen) forwardFrom(st *ir.InstStore, sb *ir.Block, l *ir.InstLoad, lb *ir.Block, base value.Value, offsets []value.Value, j *ir.InstPhi, n value.Value) *forwardedLoad {
	sbase, terms, ok := elementTerms(st.Dst, l.ElemType)
	l1 := r.cfg.LoopOf[sb]
	if !ok || l1 == nil || !sameAddress(sbase, base, 4) {
		return nil
	}
	var iv *ir.InstPhi
	var soffsets []value.Value
	for _, t := range terms {
		if p, ok := t.(*ir.InstPhi); ok && iv == nil && r.blockOf[p] == l1.Header {
			iv = p
			continue
		}
		soffsets = append(soffsets, t)
	}
	if iv == nil || l1.Contains(lb) || !iv.Typ.Equal(j.Typ) || len(soffsets) != len(offsets) {
		return nil
	}
	n1, ok := r.countedLoop(l1, iv, true)
	if !ok || !sameAddress(n1, n, 2) || !r.cfg.Dominates(sb, l1.Latches[0]) {
		return nil
	}
	if len(offsets) == 1 && !r.sameOffset(soffsets[0], offsets[0], n1, l1) {
		return nil // the store's element i is not the load's element j = i
	}
	c := l1.Parent
	if c != nil && !c.Contains(lb) {
		return nil
	}
	if !r.sameIteration(n, c) || !r.sameIteration(base, c) {
		return nil
	}
	exit := exitOf(l1)
	if exit == nil {
		return nil
	}
	start := r.f.Blocks[0]
	if c != nil {
		start = c.Header
	}
	// Every path from the iteration's start to the load passes L1's
	// header and its exit: the exit alone proves nothing where another
	// loop exits into the same block (two loops on the arms of an if,
	// merged at one exit by the optimizer), which may have run instead.
	if lb == start || pathAvoiding(start, lb, map[*ir.Block]bool{start: true, exit: true}) ||
		pathAvoiding(start, lb, map[*ir.Block]bool{start: true, l1.Header: true}) {
		return nil
	}
	// Nothing between the exit and the load may write what the load reads.
	stop := map[*ir.Block]bool{start: true, l1.Header: true}
	between := map[*ir.Block]bool{}
	for _, b := range r.f.Blocks {
		if (b == exit || pathAvoiding(exit, b, stop)) && (b == lb || pathAvoiding(b, lb, stop)) {
			between[b] = true
		}
	}
	objs, opaque, known := r.pointerObjects(l.Src)
	// Nor may anything in L1 but the store itself: a later iteration could
	// overwrite an element an earlier one stored; stores provably into
	// other elements excepted (apartinloop.go).
	if r.objectsMayBeWritten(objs, opaque, known, l, true, func(w memWriter) bool {
		return between[w.block] || (l1.Contains(w.block) && w.inst != ir.Instruction(st) && !r.apartInLoop(w.inst, l, j, iv, n1, l1))
	}) {
		return nil
	}
	// Evaluated again from its tree where every node may be (treeInst),
	// combined only.
	if !r.split {
		tree, leaves, ok := r.iterationTree(st.Src, l1, iv, c, func(inst ir.Instruction) (bool, bool) { return r.treeInst(inst), true })
		if ok && len(tree) > 0 {
			return &forwardedLoad{store: st, iv: iv, idx: j, tree: tree, leaves: append(leaves, j)}
		}
	}
	if r.d.gpu || r.parallel || !r.ownIterationTree(st.Src, l1, iv, c) {
		return nil
	}
	if _, counted := r.entryCount[l1.Header]; c != nil && !counted {
		return nil // no entry counter to find this execution's records by
	}
	return &forwardedLoad{store: st, iv: iv, idx: j, leaves: []value.Value{st.Src, j}, records: true, loop: l1}
}

// ownIterationTree reports whether the values stored value v is computed
// from are, in loop l1 (index iv), l1's own (in no loop inside it), down
// to its phis (read from records), and outside it, the same throughout an
// iteration of c, the loop around l1 (nil: outside every loop).
func (r *reverseGen) ownIterationTree(v value.Value, l1 *irutil.Loop, iv *ir.InstPhi, c *irutil.Loop) bool {
	_, _, ok := r.iterationTree(v, l1, iv, c, func(inst ir.Instruction) (bool, bool) {
		_, isPhi := inst.(*ir.InstPhi)
		return true, !isPhi
	})
	return ok
}

// iterationTree walks what value v, stored in loop l1 (index iv), is
// computed from in an iteration of l1: its instructions in l1, operands
// first, which must be l1's own (in no loop inside it) and which take
// admits (ok), its operands walked where take says so (descend); and its
// leaves, values from outside l1 (blocks excepted), which must be the same
// throughout an iteration of c, the loop around l1 (nil: outside every
// loop).
func (r *reverseGen) iterationTree(v value.Value, l1 *irutil.Loop, iv *ir.InstPhi, c *irutil.Loop, take func(ir.Instruction) (ok, descend bool)) (tree []ir.Instruction, leaves []value.Value, ok bool) {
	seen := map[value.Value]bool{}
	var walk func(v value.Value) bool
	walk = func(v value.Value) bool {
		v = irfacts.Unwrap(v)
		if v == value.Value(iv) || seen[v] {
			return true
		}
		seen[v] = true
		def, isInst := r.blockOf[v]
		inst, _ := v.(ir.Instruction)
		if !isInst || inst == nil || !l1.Contains(def) {
			if isInst && !r.sameIteration(v, c) {
				return false
			}
			if _, isBlock := v.(*ir.Block); !isBlock {
				leaves = append(leaves, v)
			}
			return true
		}
		if r.cfg.LoopOf[def] != l1 {
			return false
		}
		admit, descend := take(inst)
		if !admit {
			return false
		}
		if descend {
			for _, op := range operandsOf(inst) {
				if !walk(op) {
					return false
				}
			}
		}
		tree = append(tree, inst)
		return true
	}
	ok = walk(v)
	return tree, leaves, ok
}

// treeInst reports whether a stored value's instruction may be evaluated
// again at another index: pure, or a load of memory nothing writes after it.
func (r *reverseGen) treeInst(inst ir.Instruction) bool {
	if _, isPhi := inst.(*ir.InstPhi); isPhi {
		return false
	}
	if addressArith(inst) || pureOp(inst) {
		return true
	}
	p, ok := inst.(*ir.InstLoad)
	if !ok {
		return false
	}
	fl, ok := r.vmap[p].(*ir.InstLoad)
	if !ok || !r.loadRecomputable(fl) {
		return false
	}
	// loadRecomputable may rely on element disjointness at p's own index.
	for _, w := range r.writers() {
		if r.mayRunAfter(w, p) && disjointAccess(w.inst, p) {
			return false
		}
	}
	return true
}

// sameIteration reports whether value v, read where loop c (nil: the
// function) runs, has one value throughout an iteration of c: a constant,
// argument or global, or defined outside every loop or in c or a loop
// around c.
func (r *reverseGen) sameIteration(v value.Value, c *irutil.Loop) bool {
	def, ok := r.blockOf[irfacts.Unwrap(v)]
	if !ok {
		_, isInst := v.(ir.Instruction)
		return !isInst
	}
	l := r.cfg.LoopOf[def]
	if l == nil {
		return true
	}
	for ; c != nil; c = c.Parent {
		if c == l {
			return true
		}
	}
	return false
}

// countedLoop recognises loop l whose only back edge comes from a latch
// testing iv+1 against n, iv a header phi starting at 0 and stepping by 1:
// returns n. single: the latch must also be l's only exit.
func (r *reverseGen) countedLoop(l *irutil.Loop, iv *ir.InstPhi, single bool) (value.Value, bool) {
	if len(l.Latches) != 1 {
		return nil, false
	}
	start, step, ok := r.affineOf(iv)
	if !ok || step != 1 {
		return nil, false
	}
	if c, ok := start.(*constant.Int); !ok || c.X.Sign() != 0 {
		return nil, false
	}
	latch := l.Latches[0]
	br, ok := latch.Term.(*ir.TermCondBr)
	if !ok {
		return nil, false
	}
	cmp, ok := irfacts.Unwrap(br.Cond).(*ir.InstICmp)
	if !ok {
		return nil, false
	}
	var n value.Value
	switch {
	case plusOne(cmp.X, iv):
		n = cmp.Y
	case plusOne(cmp.Y, iv):
		n = cmp.X
	default:
		return nil, false
	}
	var out *ir.Block
	switch cmp.Pred {
	case enum.IPredEQ:
		out = br.TargetTrue.(*ir.Block)
		if br.TargetFalse != value.Value(l.Header) {
			return nil, false
		}
	case enum.IPredNE:
		out = br.TargetFalse.(*ir.Block)
		if br.TargetTrue != value.Value(l.Header) {
			return nil, false
		}
	default:
		return nil, false
	}
	if l.Contains(out) {
		return nil, false
	}
	if single && exitOf(l) != out {
		return nil, false
	}
	return n, true
}

// plusOne reports whether v is iv + 1.
func plusOne(v value.Value, iv *ir.InstPhi) bool {
	add, ok := irfacts.Unwrap(v).(*ir.InstAdd)
	if !ok {
		return false
	}
	one := func(x value.Value) bool {
		c, ok := x.(*constant.Int)
		return ok && c.X.IsInt64() && c.X.Int64() == 1
	}
	return (irfacts.Unwrap(add.X) == value.Value(iv) && one(add.Y)) || (irfacts.Unwrap(add.Y) == value.Value(iv) && one(add.X))
}

// exitOf returns the one block outside loop l that l branches to, where
// exactly one block of l leaves it, by one edge; else nil.
func exitOf(l *irutil.Loop) *ir.Block {
	var out *ir.Block
	n := 0
	for b := range l.Blocks {
		for _, s := range irutil.Succs(b) {
			if !l.Contains(s) {
				out = s
				n++
			}
		}
	}
	if n != 1 {
		return nil
	}
	return out
}

// pathAvoiding reports whether block to is reachable from block from along
// at least one edge without entering a block in stop (to itself may be
// in stop only where it is not).
func pathAvoiding(from, to *ir.Block, stop map[*ir.Block]bool) bool {
	seen := map[*ir.Block]bool{}
	work := irutil.Succs(from)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == to && !stop[b] {
			return true
		}
		if seen[b] || stop[b] {
			continue
		}
		seen[b] = true
		work = append(work, irutil.Succs(b)...)
	}
	return false
}

// elementTerms decomposes p into base plus the sum of terms, in elements
// of type t: inbounds getelementptrs of t with one index each, an index
// add with no wrap split into its operands (indexTerms).
func elementTerms(p value.Value, t types.Type) (value.Value, []value.Value, bool) {
	var terms []value.Value
	p = irfacts.Unwrap(p)
	for {
		g, ok := p.(*ir.InstGetElementPtr)
		if !ok || !g.InBounds || len(g.Indices) != 1 || !g.ElemType.Equal(t) {
			break
		}
		terms = append(terms, indexTerms(g.Indices[0])...)
		p = irfacts.Unwrap(g.Src)
	}
	return p, terms, len(terms) > 0
}

// sameOffset reports whether offsets a (the store's) and b (the load's),
// both outside every loop, are provably equal: the same value, or the same
// multiple of the trip count n of loop l1 (apartinloop.go).
func (r *reverseGen) sameOffset(a, b, n value.Value, l1 *irutil.Loop) bool {
	if !r.sameIteration(a, nil) || !r.sameIteration(b, nil) {
		return false
	}
	if sameAddress(a, b, 4) {
		return true
	}
	ka, ok1 := r.tripMultiple(a, n, l1)
	kb, ok2 := r.tripMultiple(b, n, l1)
	return ok1 && ok2 && ka == kb
}

// rebuildForwarded evaluates a forwarded load's stored value at its index
// in reverse block blk.
func (r *reverseGen) rebuildForwarded(blk, at *ir.Block, f *forwardedLoad, depth int) (value.Value, bool) {
	if f.records {
		return r.rebuildFromRecords(blk, at, f, depth)
	}
	out := map[value.Value]value.Value{}
	for _, leaf := range f.leaves {
		v, ok := r.operandInReverse(blk, at, r.mapValue(leaf), depth+1)
		if !ok {
			return nil, false
		}
		out[leaf] = v
	}
	out[f.iv] = out[f.idx]
	for _, inst := range f.tree {
		c, err := irutil.CloneInst(inst, func(op value.Value) value.Value {
			if v, ok := out[irfacts.Unwrap(op)]; ok {
				return v
			}
			return op
		})
		if err != nil {
			return nil, false
		}
		r.appendClone(blk, c)
		out[inst.(value.Value)] = c.(value.Value)
	}
	return out[irfacts.Unwrap(f.store.Src)], true
}

// rebuildFromRecords evaluates a forwarded load's stored value in reverse
// block blk as it was in the storing loop's iteration idx, from that
// iteration's record (see forwardedStore).
func (r *reverseGen) rebuildFromRecords(blk, at *ir.Block, f *forwardedLoad, depth int) (value.Value, bool) {
	l1 := f.loop
	lc := r.loops[l1]
	j, ok := r.operandInReverse(blk, at, r.mapValue(f.idx), depth+1)
	if !ok {
		return nil, false
	}
	rec := j
	if !rec.Type().Equal(types.I64) {
		// 0 <= idx < N: the iteration's number.
		rec = blk.NewZExt(j, types.I64)
	}
	if l1.Parent != nil {
		// L1 runs once per iteration of the loop around: its records of
		// this execution start at its counter's value on entry, which
		// the forward header advanced once per iteration since (j = 0,
		// 1, ...).
		c0 := r.entryCount[l1.Header]
		rec = blk.NewAdd(r.lookupAt(blk, at, c0, r.blockOf[c0], depth+1), rec)
	}
	out := map[value.Value]value.Value{}
	var eval func(v value.Value) (value.Value, bool)
	eval = func(v value.Value) (value.Value, bool) {
		v = irfacts.Unwrap(v)
		if v == value.Value(f.iv) {
			return j, true
		}
		if x, ok := out[v]; ok {
			return x, true
		}
		def, isInst := r.blockOf[v]
		if !isInst || !l1.Contains(def) {
			return r.operandInReverse(blk, at, r.mapValue(v), depth+1)
		}
		inst := v.(ir.Instruction)
		fv := r.mapValue(v)
		var x value.Value
		if cached, _ := r.planned(fv); !cached && r.treeInst(inst) {
			failed := false
			c, err := irutil.CloneInst(inst, func(op value.Value) value.Value {
				if failed {
					return op
				}
				if _, isBlock := op.(*ir.Block); isBlock {
					return op
				}
				y, ok := eval(op)
				if !ok {
					failed = true
					return op
				}
				return y
			})
			if err != nil || failed {
				return nil, false
			}
			r.appendClone(blk, c)
			x = c.(value.Value)
		} else {
			x = r.readField(blk, lc, r.recordField(lc, fv, def, lc.fwdIdx), rec)
		}
		out[v] = x
		return x, true
	}
	return eval(f.store.Src)
}

// appendClone appends c, a clone of a primal instruction, to blk: without
// the parsed name or ID it kept, and noted as a reload where it loads.
func (r *reverseGen) appendClone(blk *ir.Block, c ir.Instruction) {
	if n, ok := c.(interface{ SetName(string) }); ok {
		n.SetName("")
	}
	if n, ok := c.(interface{ SetID(int64) }); ok {
		n.SetID(0)
	}
	blk.Insts = append(blk.Insts, c)
	if l, isLoad := c.(*ir.InstLoad); isLoad {
		r.notePrimalReload(l)
	}
}
