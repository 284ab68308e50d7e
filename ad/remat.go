package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Recomputation: a value the reverse sweep needs is rebuilt there, instead
// of cached per iteration, when that is cheap and valid: address arithmetic
// and integer operations on values the reverse has anyway, induction
// variables (from the iteration counter), and loads of memory that nothing
// in the function overwrites.

const rematDepth = 16

// rematerialize tries to rebuild forward value fv in reverse block blk.
func (r *reverseGen) rematerialize(blk, at *ir.Block, fv value.Value, depth int) (value.Value, bool) {
	if depth > rematDepth {
		return nil, false
	}
	inst, ok := fv.(ir.Instruction)
	if !ok {
		return nil, false
	}
	switch x := inst.(type) {
	case *ir.InstLoad:
		if !r.loadRecomputable(x) {
			// The same value as an earlier load of the same address?
			p, _ := r.primalOf[x].(*ir.InstLoad)
			_, recompute := r.planned(fv)
			if !recompute || p == nil {
				return nil, false
			}
			if r.earlierLoad(p) == nil {
				if f := r.forwardedStore(p); f != nil {
					return r.rebuildForwarded(blk, at, f, depth)
				}
				return nil, false
			}
			e := r.earlierLoad(p)
			return r.lookupAt(blk, at, r.mapValue(e), r.blockOf[e], depth+1), true
		}
	case *ir.InstPhi:
		if v, ok := r.inductionValue(blk, at, x, depth); ok {
			return v, true
		}
		return r.mergeValue(blk, at, x, depth)
	default:
		if _, recompute := r.planned(fv); !addressArith(inst) && (!recompute || !pureOp(inst)) {
			return nil, false
		}
	}
	failed := false
	c, err := irutil.CloneInst(inst, func(op value.Value) value.Value {
		if failed {
			return op
		}
		v, ok := r.operandInReverse(blk, at, op, depth+1)
		if !ok {
			failed = true
			return op
		}
		return v
	})
	if err != nil || failed {
		return nil, false
	}
	if n, ok := c.(interface{ SetName(string) }); ok {
		n.SetName("")
	}
	blk.Insts = append(blk.Insts, c)
	if l, isLoad := c.(*ir.InstLoad); isLoad {
		r.notePrimalReload(l)
	}
	return c.(value.Value), true
}

// operandInReverse makes a forward operand available in the reverse block:
// constants and parameters as they are, other values through lookupAt.
func (r *reverseGen) operandInReverse(blk, at *ir.Block, op value.Value, depth int) (value.Value, bool) {
	def, ok := r.blockOf[op]
	if !ok {
		if _, isInst := op.(ir.Instruction); isInst {
			return nil, false // not a value gozyme knows the origin of
		}
		return op, true
	}
	if l := r.cfg.LoopOf[def]; l != nil && !l.Contains(at) && !r.cfg.Dominates(def, at) {
		// Its last iteration's value, on some paths to at only: an
		// induction's exit value is rebuilt (exitvalue.go), no copy made
		// after the loop would be defined (the caller caches).
		return r.exitInductionValue(blk, at, op, depth)
	}
	return r.lookupAt(blk, at, op, def, depth), true
}

// inductionValue rebuilds an induction variable of a simple loop (see
// cacheplan.AffineHeader) as start + step·k where k is the iteration number: the
// counter minus its value on loop entry.
func (r *reverseGen) inductionValue(blk, at *ir.Block, phi *ir.InstPhi, depth int) (value.Value, bool) {
	def := r.blockOf[phi]
	if def == nil || !r.primal().IsHeader(def) {
		return nil, false
	}
	it, ok := phi.Typ.(*types.IntType)
	if !ok {
		return nil, false
	}
	c0, ok := r.entryCount[def]
	if !ok {
		return nil, false
	}
	outside, _, _ := r.primal().SimpleHeader(def)
	start, step, ok := r.affineOf(phi)
	if !ok {
		return nil, false
	}
	s, ok := r.operandInReverse(blk, at, start, depth+1)
	if !ok {
		return nil, false
	}
	l := r.cfg.LoopOf[def]
	ld := blk.NewLoad(types.I64, r.loops[l].counter)
	cur := value.Value(ld)
	if !l.Contains(at) {
		cur = blk.NewSub(cur, constant.NewInt(types.I64, 1))
	}
	entry := r.lookupAt(blk, at, c0, outside, depth+1)
	if cur == ld {
		r.relativeRead(l, ld, entry)
	}
	k := value.Value(blk.NewSub(cur, entry))
	if it.BitSize < 64 {
		k = blk.NewTrunc(k, it)
	} else if it.BitSize > 64 {
		k = blk.NewZExt(k, it)
	}
	return blk.NewAdd(s, blk.NewMul(k, constant.NewInt(it, step))), true
}

// loadRecomputable reports whether a forward load may be executed again in
// the reverse sweep: the gradient is one function (forward and reverse run
// back to back) and nothing that may run after the load in the forward
// sweep may write the memory loaded from (the reverse sweep writes shadows
// only; frees it defers to its end, see deferredFree).
//
// A split function's reverse runs in another function, after its caller
// (and the caller's callers) went on: it may load again only where nothing
// writes primal memory in between and the memory is still there
// (reloadsAcrossSplit, quiet.go), or only writes TBAA keeps apart from the
// load (typedReload, quiettags.go).
func (r *reverseGen) loadRecomputable(fwdLoad *ir.InstLoad) bool {
	if fwdLoad.Volatile {
		return false
	}
	p, ok := r.primalOf[fwdLoad].(*ir.InstLoad)
	if !ok || (r.split && !r.reloadsAcrossSplit() && !r.typedReload(p)) {
		return false
	}
	return !r.mayBeWritten(p, func(w memWriter) bool { return r.mayRunAfter(w, p) })
}

// mayBeWritten reports whether a primal writer for which consider holds may
// write bytes primal load l reads. Where no writer is considered, nothing
// may, whatever l reads through (a pointer loaded from a std::vector, whose
// objects are unknown).
//
// A pointer read from memory (opaque, see capture.go) may point into any
// object but one the primal creates and never lets its address out of.
//
// Writers whose writes TBAA keeps apart from l's type do not count
// (tbaaalias.go): the question is whether l would read the same value
// again, as LLVM asks when it moves a load past them.
func (r *reverseGen) mayBeWritten(l *ir.InstLoad, consider func(memWriter) bool) bool {
	objs, opaque, known := r.pointerObjects(l.Src)
	return r.objectsMayBeWritten(objs, opaque, known, l, true, consider)
}

// mayBeWrittenAnyType is mayBeWritten counting every writer of l's bytes
// whatever its type: for questions about the shadow bytes a write's
// reverse reads and clears (loopsum.go), not about l's value.
func (r *reverseGen) mayBeWrittenAnyType(l *ir.InstLoad, consider func(memWriter) bool) bool {
	objs, opaque, known := r.pointerObjects(l.Src)
	return r.objectsMayBeWritten(objs, opaque, known, l, false, consider)
}

// objectsMayBeWritten is mayBeWritten for memory in objs (pointerObjects'
// answer for a pointer), read by load l where there is one (nil: a call's
// read of memory through the pointer, of no known extent); typed lets TBAA
// keep writers apart from l.
func (r *reverseGen) objectsMayBeWritten(objs []value.Value, opaque, known bool, l *ir.InstLoad, typed bool, consider func(memWriter) bool) bool {
	var tag *metadata.Tuple
	if l != nil {
		tag = tbaaTagOf(l)
	}
	for _, w := range r.writers() {
		if !consider(w) {
			continue
		}
		if typed && l != nil && w.tags.disjointFrom(tag) {
			continue // TBAA keeps its writes apart from l's (tbaaalias.go)
		}
		if w.all || !known || (w.opaque && opaque) {
			return true
		}
		if w.opaque {
			for _, a := range objs {
				if !r.uncaptured(a) {
					return true
				}
			}
		}
		if opaque {
			for _, b := range w.objs {
				if !r.uncaptured(b) {
					return true
				}
			}
		}
		for _, a := range objs {
			for _, b := range w.objs {
				if mayAlias(a, b) && !(l != nil && naturalLayout(r.m) && disjointAccess(w.inst, l)) {
					return true
				}
			}
		}
	}
	return false
}

// mayRunAfter reports whether writer w may execute after primal load l:
// later in l's block, or in a block reachable from it (l's own included
// when it lies on a cycle).
func (r *reverseGen) mayRunAfter(w memWriter, l value.Value) bool {
	lb := r.blockOf[l]
	if lb == nil {
		return true
	}
	if lb == w.block {
		for _, inst := range lb.Insts {
			switch {
			case interface{}(inst) == interface{}(l):
				return true // w comes later
			case inst == w.inst:
				return r.reachable(lb)[lb]
			}
		}
	}
	return r.reachable(lb)[w.block]
}

// reachable returns (once per block) the primal blocks reachable from b
// along at least one edge.
func (r *reverseGen) reachable(b *ir.Block) map[*ir.Block]bool {
	if r.reach == nil {
		r.reach = map[*ir.Block]map[*ir.Block]bool{}
	}
	if m, ok := r.reach[b]; ok {
		return m
	}
	m := map[*ir.Block]bool{}
	work := irutil.Succs(b)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if !m[x] {
			m[x] = true
			work = append(work, irutil.Succs(x)...)
		}
	}
	r.reach[b] = m
	return m
}

// memWriter is one instruction of the primal that may write memory: into
// the given objects, and through a pointer read from memory (opaque), or
// anywhere (all).
type memWriter struct {
	inst   ir.Instruction
	block  *ir.Block
	objs   []value.Value
	opaque bool
	all    bool
	tags   writeTags // its writes by TBAA tag, where all are tagged (tbaaalias.go)
}

// writers lists (once) what in the primal may write memory.
func (r *reverseGen) writers() []memWriter {
	if r.memWriters != nil {
		return r.memWriters
	}
	ws := []memWriter{}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			add := func(ptr value.Value) {
				objs, opaque, known := r.pointerObjects(ptr)
				w := memWriter{inst: inst, block: b, objs: objs, opaque: opaque, all: !known}
				// Free, lifetime markers and masked stores are untyped:
				// declarations without tags (callTags).
				w.tags = r.d.instWriteTags(inst)
				ws = append(ws, w)
			}
			switch x := inst.(type) {
			case *ir.InstStore:
				add(x.Dst)
			case *ir.InstAtomicRMW:
				add(x.Dst)
			case *ir.InstCmpXchg:
				add(x.Ptr)
			case *ir.InstCall:
				switch {
				case irfacts.IsMemTransfer(x), irfacts.IsMemSet(x), irfacts.IsMaskedStore(x) && len(x.Args) > 1:
					if irfacts.IsMaskedStore(x) {
						add(x.Args[1])
					} else {
						add(x.Args[0])
					}
				case r.dropsLifetime(x):
					// Not emitted: the object lives through the gradient.
				case strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime.") && len(x.Args) > 1:
					add(x.Args[1]) // the object's contents end (or start) here
				case r.deferredFree(x):
				case isFree(x):
					add(x.Args[0]) // freed memory cannot be read again
				case writesNoMemory(x):
				default:
					ws = append(ws, r.callWriter(b, x))
				}
			}
		}
	}
	r.memWriters = ws
	return ws
}

// callWriter is the writer a call is: what its callee's summary says it
// may write (writesum.go), mapped to its arguments, or all memory.
func (r *reverseGen) callWriter(b *ir.Block, c *ir.InstCall) memWriter {
	w := memWriter{inst: c, block: b}
	s := &writeSummary{params: map[int]bool{}}
	r.d.callWrites(c, func(ptr value.Value) {
		objs, opaque, known := r.pointerObjects(ptr)
		w.objs = append(w.objs, objs...)
		w.opaque = w.opaque || opaque
		w.all = w.all || !known
	}, s)
	w.objs = append(w.objs, s.globals...)
	w.opaque = w.opaque || s.opaque
	w.all = w.all || s.all
	w.tags = r.d.callTags(c)
	return w
}

// deferredFree reports whether the primal free c is moved from the forward
// sweep to the end of the gradient (one combined function only): it runs at
// most once per call (outside loops), so the reverse sweep may still read
// the memory, which nothing else can be given meanwhile. Where it runs on
// every path to a return and frees a pointer available there, the exit
// calls it as it is (freeAtExit); elsewhere (a std::vector's destructor
// frees only a non-null buffer) the forward sweep records its arguments
// where it runs, in slots that start null (freeing null is nothing), and the
// exit frees what they hold.
func (r *reverseGen) deferredFree(c *ir.InstCall) bool {
	if r.split || !isFree(c) || len(c.Args) == 0 {
		return false
	}
	b := r.blockOf[c]
	return b != nil && r.cfg.LoopOf[b] == nil
}

// freeAtExit reports whether deferred free c can be called at the exit
// with its own arguments: it runs on every path to a return and they are
// defined there.
func (r *reverseGen) freeAtExit(c *ir.InstCall) bool {
	if !r.postDomRet[r.blockOf[c]] {
		return false
	}
	for _, a := range c.Args {
		if d, ok := r.blockOf[irfacts.Unwrap(a)]; ok && (r.cfg.LoopOf[d] != nil || !r.postDomRet[d]) {
			return false
		}
	}
	return true
}

// writesNoMemory: calls that leave the program's memory alone (math
// functions, which at most set errno; bookkeeping intrinsics; functions
// declared readnone or readonly; allocations, which only create memory).
func writesNoMemory(c *ir.InstCall) bool {
	if irfacts.IsAllocation(c) {
		return true
	}
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return false
	}
	name := f.Name()
	if rule := mathRuleOf(f, c.Typ); rule != nil && !passesPointer(c) {
		return true // frexp writes its exponent through its pointer
	}
	switch name {
	case "lgamma", "lgammaf", "lgammal":
		return true // they also set signgam, which no double is
	}
	switch irutil.BookkeepingIntrinsic(name) {
	case irutil.DebugInfo, irutil.Assumption, irutil.Lifetime:
		return true
	}
	for _, p := range []string{"llvm.vector.reduce.", "llvm.masked.load."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrReadNone, enum.FuncAttrReadOnly) ||
		irutil.HasFuncAttr(c.FuncAttrs, enum.FuncAttrReadNone, enum.FuncAttrReadOnly)
}

// passesPointer reports whether call c is given a pointer (or an aggregate
// holding one).
func passesPointer(c *ir.InstCall) bool {
	for _, a := range c.Args {
		if holdsPointers(irfacts.Unwrap(a).Type()) {
			return true
		}
	}
	return false
}

// underlyingObjects returns the objects a pointer may point into: allocas,
// fresh allocations, parameters, globals. known is false when some path
// leads elsewhere (a pointer loaded from memory, an integer cast, ...).
func underlyingObjects(v value.Value) (objs []value.Value, known bool) {
	objs, _, known = objectsOf(v, false)
	return objs, known
}

// objectsOf walks pointer v back through GEPs, casts, selects and phis to
// the objects it may point into (allocas, fresh allocations, parameters,
// globals). known is false where some path leads elsewhere. With
// throughLoads, a pointer read from memory makes the result opaque (it may
// point into any object but an uncaptured one) instead of unknown, and
// null or undefined pointers point into nothing.
func objectsOf(v value.Value, throughLoads bool) (objs []value.Value, opaque, known bool) {
	return objectsOfIn(v, throughLoads, nil)
}

// objectsOfIn is objectsOf where loadObject, if not nil, may name the
// object a pointer read from memory points into (privcontents.go); where it
// returns nil the pointer is opaque.
func objectsOfIn(v value.Value, throughLoads bool, loadObject func(*ir.InstLoad) value.Value) (objs []value.Value, opaque, known bool) {
	known = true
	seen := map[value.Value]bool{}
	var walk func(v value.Value)
	walk = func(v value.Value) {
		v = irfacts.Unwrap(v)
		if seen[v] || !known {
			return
		}
		seen[v] = true
		switch x := v.(type) {
		case *ir.InstAlloca, *ir.Param, *ir.Global:
			objs = append(objs, v)
		case *ir.InstCall:
			if irfacts.IsAllocation(x) {
				objs = append(objs, v)
			} else {
				known = false
			}
		case *ir.InstLoad:
			if throughLoads && loadObject != nil {
				if o := loadObject(x); o != nil {
					objs = append(objs, o)
					break
				}
			}
			if throughLoads {
				opaque = true
			} else {
				known = false
			}
		case *constant.Null, *constant.Undef, *constant.Poison:
			if !throughLoads {
				known = false
			}
		case *ir.InstGetElementPtr:
			walk(x.Src)
		case *constant.ExprGetElementPtr:
			walk(x.Src)
		case *ir.InstBitCast:
			walk(x.From)
		case *constant.ExprBitCast:
			walk(x.From)
		case *ir.InstAddrSpaceCast:
			walk(x.From)
		case *ir.InstSelect:
			walk(x.ValueTrue)
			walk(x.ValueFalse)
		case *ir.InstPhi:
			for _, in := range x.Incs {
				walk(in.X)
			}
		default:
			known = false
		}
	}
	walk(v)
	return objs, opaque, known
}

// mayAlias reports whether two underlying objects may overlap.
func mayAlias(a, b value.Value) bool {
	if a == b {
		return true
	}
	pa, aIsParam := a.(*ir.Param)
	pb, bIsParam := b.(*ir.Param)
	_, aIsGlobal := a.(*ir.Global)
	_, bIsGlobal := b.(*ir.Global)
	switch {
	case aIsParam && bIsParam:
		return !hasNoAlias(pa) && !hasNoAlias(pb)
	case aIsParam && bIsGlobal:
		return !hasNoAlias(pa)
	case bIsParam && aIsGlobal:
		return !hasNoAlias(pb)
	}
	// Distinct allocas, fresh allocations and globals do not overlap, nor
	// do they overlap a parameter (memory the caller passed in).
	return false
}

func hasNoAlias(p *ir.Param) bool { return hasParamAttr(p.Attrs, enum.ParamAttrNoAlias) }

// memoryState is what the gradient knows of the primal's memory: what may
// write it, frees deferred to the exit, and where addresses escape, which
// decide whether the reverse may reload a value instead of caching it.
type memoryState struct {
	memWriters     []memWriter                       // what in the primal may write memory (remat.go)
	deferredFrees  []*ir.InstCall                    // primal frees moved to the exit (remat.go)
	freeSlots      map[*ir.InstCall][]*ir.InstAlloca // deferred frees not at the exit -> the slots recording their arguments
	reach          map[*ir.Block]map[*ir.Block]bool  // primal block -> blocks reachable from it (remat.go)
	reallocCopied  map[*ir.InstCall]value.Value      // realloc -> forward count of shadow bytes copied (realloc.go)
	contents       map[*ir.Param]*paramContents      // parameters whose call sites prove their contents private (privcontents.go)
	users          map[value.Value][]interface{}     // primal value -> its users (capture.go)
	uncapturedMemo map[value.Value]bool              // primal object -> whether its address stays in it (capture.go)
}
