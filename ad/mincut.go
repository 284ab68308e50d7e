package ad

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad/cacheplan"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// Choosing what to cache (Enzyme's min-cut caching): a first, dry
// generation of the gradient records which forward values the reverse
// sweep reads. Those values, the values that must be cached if needed (loads
// of memory the function overwrites, calls, phis) and the pure operations
// between them form a graph; a minimum vertex cut weighted by bytes between
// the must-cache values and the needed ones is the cheapest set to cache,
// and every other needed value is recomputed from it in the reverse sweep.
// The real generation then follows that plan.

// cachePlan is the outcome: primal values to cache, and pure values to
// recompute rather than cache.
type cachePlan struct {
	cache, recompute map[value.Value]bool
	exitCache        map[exitUse]bool // loop values cached after their loop
}

// loopWeight scales the bytes of a cache by its loop depth: a value cached
// in a loop is stored once per iteration.
const loopWeight = 8

// generateReverse builds the gradient r makes, planning its caches with a
// dry run first when the function has loops (where caches grow with the
// iteration count).
func (d *differ) generateReverse(build func() (*reverseGen, error)) (*reverseGen, error) {
	dry, err := build()
	if err != nil {
		return nil, err
	}
	if len(dry.cfg.Loops) == 0 {
		return dry, dry.generateOrDrop()
	}
	dry.requested, dry.exitRequested = map[value.Value]bool{}, map[exitUse]bool{}
	_, err = dry.generate()
	d.dropFunc(dry.g)
	if err != nil {
		return nil, err
	}
	r, err := build()
	if err != nil {
		return nil, err
	}
	r.plan = dry.planCaches()
	return r, r.generateOrDrop()
}

// generateOrDrop is generate, removing the half-built function on failure.
func (r *reverseGen) generateOrDrop() error {
	if _, err := r.generate(); err != nil {
		r.d.dropFunc(r.g)
		return err
	}
	return nil
}

// dropFunc removes a function from the module.
func (d *differ) dropFunc(g *ir.Func) {
	for i, f := range d.m.Funcs {
		if f == g {
			d.m.Funcs = append(d.m.Funcs[:i], d.m.Funcs[i+1:]...)
			return
		}
	}
}

// recordRequest notes, in a dry run, that the reverse of primal block at
// reads forward value fv; exit: fv is defined in a loop not containing at.
func (r *reverseGen) recordRequest(fv value.Value, at *ir.Block, exit bool) {
	if r.requested == nil {
		return
	}
	p, ok := r.primalOf[fv]
	switch {
	case !ok:
	case exit:
		r.exitRequested[exitUse{p, at}] = true
	default:
		r.requested[p] = true
	}
}

// planned reports whether the plan says to cache the forward value fv
// (cached) or to recompute it (recompute).
func (r *reverseGen) planned(fv value.Value) (cached, recompute bool) {
	if r.plan == nil {
		return false, false
	}
	p, ok := r.primalOf[fv]
	if !ok {
		return false, false
	}
	return r.plan.cache[p], r.plan.recompute[p]
}

// plannedExit reports whether forward value fv, read in block at after
// its loop, is cached there (the default without a plan) rather than
// recomputed from other values.
func (r *reverseGen) plannedExit(fv value.Value, at *ir.Block) bool {
	if r.plan == nil {
		return false
	}
	p, ok := r.primalOf[fv]
	return ok && r.plan.exitCache[exitUse{p, at}]
}

// pureOp reports whether inst computes its result from its operands alone,
// cheaply: float arithmetic, comparisons, selects, vector element moves,
// conversions, and a few intrinsics that compile to an instruction or two.
// Only such values are recomputed in the reverse sweep.
func pureOp(inst ir.Instruction) bool {
	switch x := inst.(type) {
	case *ir.InstFAdd, *ir.InstFSub, *ir.InstFMul, *ir.InstFDiv, *ir.InstFNeg, *ir.InstFCmp, *ir.InstICmp,
		*ir.InstSelect, *ir.InstExtractElement, *ir.InstInsertElement, *ir.InstShuffleVector,
		*ir.InstFPExt, *ir.InstFPTrunc, *ir.InstSIToFP, *ir.InstUIToFP, *ir.InstExtractValue:
		return true
	case *ir.InstCall:
		f, ok := x.Callee.(*ir.Func)
		if !ok {
			return false
		}
		return hardwareMath(f.Name()) || libmCall(x)
	}
	return false
}

// hardwareMath reports whether name is an intrinsic that compiles to an
// instruction or two (sqrt, fma, fabs, ...), not to a library call.
func hardwareMath(name string) bool {
	for _, p := range []string{"llvm.sqrt.", "llvm.fmuladd.", "llvm.fma.", "llvm.fabs.", "llvm.copysign.", "llvm.minnum.", "llvm.maxnum."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// libmCall reports whether call is a library math function gozyme has a
// rule for (exp, tanh, sin, ...): pure but for errno, and tens of
// instructions, where the pure ops above are one or two.
func libmCall(call *ir.InstCall) bool {
	f, ok := call.Callee.(*ir.Func)
	if !ok {
		return false
	}
	return mathRuleOf(f, call.Typ) != nil
}

// recomputeBytes is what the plan charges, in cache bytes, for calling
// library math function call again in the reverse sweep, per execution.
//
// An intrinsic that is an instruction (sqrt) costs 1: it only breaks ties,
// so where its operands come free (re-loaded, or rebuilt from values cached
// anyway) it is recomputed and the tape stays at the values the function
// overwrites (a particle system's pairwise sqrt would otherwise cache n²
// results where n are overwritten).
//
// A real library call (exp, tanh, log, sin, ...) costs tens of instructions
// each time, where reading a cached result costs a store and a load. Where
// the reverse sweep reads the call's result but none of its operands (exp,
// tanh: their derivatives are functions of the result), recomputing would
// only serve to call it again: it costs what caching its result costs, so
// the result is cached unless recomputing saves caching something else, and
// on a tie (libraryCallInstructions); at 1 byte, an LSTM's sigmoids and
// tanhs, recomputed from free operands, ran twice per cell
// (bench/results/history.md). Where the reverse sweep needs an operand
// anyway (sin's derivative is cos of it),
// caching the result as well would add to the tape what the function
// overwrites: it costs 1 (an in-place sin iteration keeps the x it
// overwrites, not x and sin x).
func (r *reverseGen) recomputeBytes(call *ir.InstCall) int64 {
	if f, ok := call.Callee.(*ir.Func); ok && hardwareMath(f.Name()) {
		return 1
	}
	for _, op := range call.Args {
		if r.requested[irfacts.Unwrap(op)] {
			return 1
		}
	}
	return cacheplan.TypeBytes(call.Typ)
}

// libraryCallInstructions is what recomputing a real library call (exp,
// tanh) weighs among cuts that cache the same bytes (Graph.BreakTies), against
// 1 per arithmetic instruction: caching its result wins the tie (a tanh
// whose argument the reverse sweep can load again, free, is still not
// called twice).
const libraryCallInstructions = 20

// earlierLoad returns a load of the same address earlier in the same primal
// block with nothing in between that may write memory: the same value.
func (r *reverseGen) earlierLoad(l *ir.InstLoad) *ir.InstLoad {
	b := r.blockOf[l]
	if b == nil || l.Volatile {
		return nil
	}
	i := len(b.Insts) - 1
	for i >= 0 && b.Insts[i] != l {
		i--
	}
	for i--; i >= 0; i-- {
		switch x := b.Insts[i].(type) {
		case *ir.InstLoad:
			if sameAddress(x.Src, l.Src, 4) && x.ElemType.Equal(l.ElemType) && !x.Volatile {
				return x
			}
		case *ir.InstStore, *ir.InstAtomicRMW, *ir.InstCmpXchg, *ir.InstFence:
			return nil
		case *ir.InstCall:
			if !writesNoMemory(x) {
				return nil
			}
		}
	}
	return nil
}

// sameAddress reports whether two pointers (or integers) are provably the
// same value: the same instruction, equal constants, or the same
// getelementptr, cast or integer operation of the same values (-O0 computes
// &x[i] anew for every access), looking depth levels deep.
func sameAddress(a, b value.Value, depth int) bool {
	a, b = irfacts.Unwrap(a), irfacts.Unwrap(b)
	if a == b {
		return true
	}
	ca, aConst := a.(*constant.Int)
	cb, bConst := b.(*constant.Int)
	if aConst && bConst {
		return ca.Typ.Equal(cb.Typ) && ca.X.Cmp(cb.X) == 0
	}
	if depth == 0 || !a.Type().Equal(b.Type()) {
		return false
	}
	var ops func(v value.Value) (string, []value.Value)
	ops = func(v value.Value) (string, []value.Value) {
		switch x := v.(type) {
		case *ir.InstGetElementPtr:
			return "gep " + x.ElemType.String(), append([]value.Value{x.Src}, x.Indices...)
		case *ir.InstBitCast, *ir.InstSExt, *ir.InstZExt, *ir.InstTrunc, *ir.InstAdd, *ir.InstMul, *ir.InstShl:
			return fmt.Sprintf("%T", v), operandsOf(v.(ir.Instruction))
		}
		return "", nil
	}
	ka, oa := ops(a)
	kb, ob := ops(b)
	if ka == "" || ka != kb || len(oa) != len(ob) {
		return false
	}
	if ga, ok := a.(*ir.InstGetElementPtr); ok && ga.InBounds != b.(*ir.InstGetElementPtr).InBounds {
		return false
	}
	for i := range oa {
		if !sameAddress(oa[i], ob[i], depth-1) {
			return false
		}
	}
	return true
}

// planCaches computes the plan from a dry run's requests.
func (r *reverseGen) planCaches() *cachePlan {
	type node struct{ in, out int }
	nodes := map[value.Value]node{}
	var order []value.Value
	const source, sink, inf = cacheplan.Source, cacheplan.Sink, cacheplan.Inf
	g := cacheplan.NewGraph()
	edge := g.AddEdge
	recomputable := map[value.Value]bool{}
	recomputeCost := map[int]int64{} // by a pure op's in node: Graph.BreakTies's cost
	var pin func(v value.Value, b *ir.Block)
	var visit func(v value.Value) (node, bool)
	visit = func(v value.Value) (node, bool) {
		v = irfacts.Unwrap(v)
		if nd, ok := nodes[v]; ok {
			return nd, true
		}
		def, ok := r.blockOf[v]
		inst, isInst := v.(ir.Instruction)
		if !ok || !isInst || (r.cfg.LoopOf[def] == nil && r.postDomRet[def] && !r.split) {
			return node{}, false // available without caching
		}
		nd := node{g.NewNode(), g.NewNode()}
		nodes[v] = nd
		order = append(order, v)
		edge(nd.in, nd.out, r.valueCacheWeight(v, def))
		if p, ok := inst.(*ir.InstPhi); ok && r.primal().IsHeader(def) {
			// An induction variable: rebuilt from its start and the
			// iteration counter (inductionValue), where its start is
			// available, so the start belongs to the graph.
			if start, _, ok := r.affineOf(p); ok {
				recomputable[v] = true
				if snd, ok := visit(start); ok {
					edge(snd.out, nd.in, inf)
				}
				return nd, true
			}
		} else if ok {
			if m, ok := r.mergeOperands(p); ok {
				// A merge phi (mergephi.go): a select in the reverse, over
				// its incoming values, by a condition or the recorded
				// predecessor index (a byte per execution).
				recomputable[v] = true
				if m.byIndex {
					edge(source, nd.in, r.loopScaled(1, def))
				}
				for _, op := range m.ops {
					if ond, ok := visit(op); ok {
						edge(ond.out, nd.in, inf)
						pin(op, def)
					}
				}
				return nd, true
			}
		}
		if r.recomputableKind(inst) {
			recomputable[v] = true
			if call, ok := inst.(*ir.InstCall); ok && libmCall(call) {
				// Recomputed (both ends cut off from the source): pay for the call.
				bytes := r.recomputeBytes(call)
				edge(source, nd.in, r.loopScaled(bytes, def))
				if bytes > 1 {
					// Where that ties with caching its result (its operands
					// come free), the call costs more than any instruction.
					recomputeCost[nd.in] = r.loopScaled(libraryCallInstructions, def)
				}
			} else if pureOp(inst) {
				// An instruction more in the reverse sweep (Graph.BreakTies).
				recomputeCost[nd.in] = r.loopScaled(1, def)
			}
			ops := operandsOf(inst)
			if l, ok := inst.(*ir.InstLoad); ok && r.earlierLoad(l) != nil {
				ops = []value.Value{r.earlierLoad(l)}
			} else if ok && !r.loadRecomputable(r.vmap[l].(*ir.InstLoad)) {
				// Rebuilt from what an earlier loop stored (storeforward.go).
				f := r.forwardedStore(l)
				ops = f.leaves
				n := int64(len(f.tree))
				if f.records {
					n = 1 // a record read, and what the plan recomputes in L1 anyway
				}
				cost := r.loopScaled(n, def)
				recomputeCost[nd.in] = cost
				if r.cfg.LoopOf[def] != r.cfg.LoopOf[r.blockOf[f.idx]] {
					// The same value again in every iteration of the loops
					// inside its index's (the triangle's x[i] under j):
					// rebuilt that often, where a cache is read there.
					edge(source, nd.in, cost)
				}
			}
			for _, op := range ops {
				if ond, ok := visit(op); ok {
					edge(ond.out, nd.in, inf)
				}
			}
		} else {
			edge(source, nd.in, inf)
		}
		return nd, true
	}
	// pin makes the edge values under a merge phi of block b (mergephi.go)
	// uncuttable: never cached, they are rebuilt where the phi is.
	pin = func(v value.Value, b *ir.Block) {
		v = irfacts.Unwrap(v)
		nd, ok := nodes[v]
		if !ok || !r.edgeIncoming(v, b) || g.Capacity(nd.in, nd.out) >= inf {
			return
		}
		edge(nd.in, nd.out, inf)
		for _, op := range operandsOf(v.(ir.Instruction)) {
			pin(op, b)
		}
	}
	var reqs []value.Value
	for v := range r.requested {
		reqs = append(reqs, v)
	}
	sort.Slice(reqs, func(i, j int) bool { return r.valueOrder(reqs[i]) < r.valueOrder(reqs[j]) })
	for _, v := range reqs {
		if nd, ok := visit(v); ok {
			edge(nd.out, sink, inf)
		}
	}
	// A value read after its loop: cache a copy there, or recompute it.
	var exits []exitUse
	for e := range r.exitRequested {
		exits = append(exits, e)
	}
	sort.Slice(exits, func(i, j int) bool {
		a, b := exits[i], exits[j]
		if a.v != b.v {
			return r.valueOrder(a.v) < r.valueOrder(b.v)
		}
		return r.cfg.Index[a.at] < r.cfg.Index[b.at]
	})
	exitNodes := map[exitUse]node{}
	for _, e := range exits {
		vn, ok := visit(e.v)
		if !ok {
			continue
		}
		nd := node{g.NewNode(), g.NewNode()}
		exitNodes[e] = nd
		edge(nd.in, nd.out, r.cacheWeight(e.v, e.at))
		edge(vn.out, nd.in, inf)
		edge(nd.out, sink, inf)
	}
	g.BreakTies(recomputeCost)
	// The source side of the minimum cut.
	reach := g.MinCut()
	plan := &cachePlan{cache: map[value.Value]bool{}, recompute: map[value.Value]bool{}, exitCache: map[exitUse]bool{}}
	for e, nd := range exitNodes {
		if reach(nd.in) && !reach(nd.out) {
			plan.exitCache[e] = true
		}
	}
	for _, v := range order {
		nd := nodes[v]
		switch {
		case reach(nd.in) && !reach(nd.out):
			plan.cache[v] = true
		case recomputable[v]:
			plan.recompute[v] = true
		}
	}
	return plan
}

// cacheWeight is the cost of caching primal value v in primal block at.
func (r *reverseGen) cacheWeight(v value.Value, at *ir.Block) int64 {
	return r.loopScaled(cacheplan.TypeBytes(v.Type()), at)
}

// valueCacheWeight is the cost of caching primal value v where it is
// defined, in primal block def: a value invariant in a loop is cached
// without that loop's dimension (hoist.go), so that loop does not count.
func (r *reverseGen) valueCacheWeight(v value.Value, def *ir.Block) int64 {
	return r.loopScaledExcept(cacheplan.TypeBytes(v.Type()), def, r.hoistLoop(v))
}

// loopScaled scales a per-execution cost w of something in primal block at
// by the loops around it.
func (r *reverseGen) loopScaled(w int64, at *ir.Block) int64 {
	return r.loopScaledExcept(w, at, nil)
}

// loopScaledExcept is loopScaled, not counting loop skip.
func (r *reverseGen) loopScaledExcept(w int64, at *ir.Block, skip *irutil.Loop) int64 {
	for l := r.cfg.LoopOf[at]; l != nil; l = l.Parent {
		if l != skip {
			w *= loopWeight
		}
	}
	return w
}

// recomputableKind reports whether the reverse sweep can rebuild primal
// instruction inst from its operands (rematerialize's kinds and pure ops).
func (r *reverseGen) recomputableKind(inst ir.Instruction) bool {
	if addressArith(inst) {
		return true
	}
	switch x := inst.(type) {
	case *ir.InstLoad:
		fl, ok := r.vmap[x].(*ir.InstLoad)
		return ok && (r.loadRecomputable(fl) || r.earlierLoad(x) != nil || r.forwardedStore(x) != nil)
	}
	return pureOp(inst)
}

// addressArith reports integer, address and cast instructions: rebuilt
// from their operands, and never trapping (at worst poison).
func addressArith(inst ir.Instruction) bool {
	switch inst.(type) {
	case *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstSExt, *ir.InstZExt, *ir.InstTrunc,
		*ir.InstAdd, *ir.InstSub, *ir.InstMul, *ir.InstShl, *ir.InstLShr, *ir.InstAShr, *ir.InstAnd, *ir.InstOr, *ir.InstXor:
		return true
	}
	return false
}

// operandsOf lists the value operands of a primal instruction.
func operandsOf(inst ir.Instruction) []value.Value {
	var out []value.Value
	if u, ok := inst.(interface{ Operands() []*value.Value }); ok {
		for _, op := range u.Operands() {
			out = append(out, *op)
		}
	}
	return out
}

// valueOrder numbers primal instructions in block order, for determinism.
func (r *reverseGen) valueOrder(v value.Value) int {
	if r.order == nil {
		r.order = map[value.Value]int{}
		for _, b := range r.f.Blocks {
			for _, inst := range b.Insts {
				if x, ok := inst.(value.Value); ok {
					r.order[x] = len(r.order)
				}
				if c, ok := inst.(*ir.InstCall); ok {
					for _, p := range r.d.picks[c] {
						r.order[p.(value.Value)] = len(r.order)
					}
				}
			}
		}
	}
	return r.order[v]
}

// loopState is the gradient's loop and cache state: per-loop record
// buffers and iteration counters, the cache plan, hoisted caches, counter
// snapshots, loop exits entered from below, trip counts and loop IDs.
type loopState struct {
	loops           map[*irutil.Loop]*loopCache
	entryCount      map[*ir.Block]*ir.InstLoad       // loop header -> iteration counter on entry
	requested       map[value.Value]bool             // dry run: primal values the reverse reads (mincut.go)
	exitRequested   map[exitUse]bool                 // dry run: the same, read after their loop
	fwdStores       map[*ir.InstLoad]*forwardedLoad  // primal load -> the loop store it reads, if proven (storeforward.go)
	freedAlloc      map[*ir.InstCall]bool            // allocation -> whether its function frees every block it allocates (pairedfree.go)
	revOnly         map[*ir.InstCall]bool            // allocation -> whether its shadow exists in the reverse sweep only (reverseonly.go)
	revOnlySlots    map[*ir.InstCall]*ir.InstAlloca  // reverse-only allocation -> the reverse sweep's slot of its shadow
	standIns        map[value.Value]bool             // forward stand-ins of reverse-only shadows
	plan            *cachePlan                       // what to cache and what to recompute (mincut.go)
	exitCopies      map[exitUse]value.Value          // copies of loop values made after the loop
	hoistMemo       map[value.Value]*irutil.Loop     // primal value -> loop it is cached without (hoist.go)
	shadowFreeLoops map[*irutil.Loop]bool            // loop -> whether its forward writes no shadow memory (invariantshadow.go)
	hoists          []*hoistCache                    // cache groups without a loop's dimension (hoist.go)
	invMemo         map[[2]*irutil.Loop]*invariance  // (d, x) -> invariance analysis (hoist.go)
	cacheAccess     map[ir.Instruction]bool          // loads and stores of loop buffer elements (scope.go)
	ownAccess       map[ir.Instruction]bool          // loads and stores through the gradient's own shadows (ownscope.go)
	primalReload    map[*ir.InstLoad]bool            // loads of primal memory emitted in the reverse sweep (ownscope.go)
	snapPlans       map[snapshot]*snapshotPlan       // counter snapshot -> how the reverse recomputes it (counters.go)
	snapOf          map[*ir.InstLoad]snapshot        // forward load -> the counter snapshot it is (counters.go)
	snapLoads       map[snapshot]*ir.InstLoad        // counter snapshot -> its forward load (counters.go)
	entryEdge       map[*irutil.Loop]*ir.Block       // loop -> forward block entering its header, after growth checks (entrygrow.go)
	exitSlots       map[*irutil.Loop]*ir.InstAlloca  // loop -> reverse slot of its entry counter (exitentry.go)
	exitEdges       []exitEdge                       // reverse edges entering loops from below (exitentry.go)
	revLoopIDs      map[*irutil.Loop]*metadata.Tuple // loop -> the loop ID of its reverse (loophints.go)
	tripCounts      map[*irutil.Loop]tripResult      // loop -> its trip count, once blockOf has the primal (tripcount.go)
	fwdLoopIDs      map[*irutil.Loop]*metadata.Tuple // loop -> the loop ID of its forward copy (loophints.go)
	exitPres        map[*irutil.Loop][]exitPre       // loop -> the blocks storing its entry counter on entering its reverse (exitentry.go)
	relReads        map[*ir.InstLoad]bool            // reverse loads of a counter read against the loop's entry counter from its exit (exitentry.go)
}
