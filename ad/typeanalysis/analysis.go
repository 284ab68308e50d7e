package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Analysis is the fixed point over the functions reached from the roots:
// a Tree for every value of theirs (and the globals they use), one per
// function for its return value.
type Analysis struct {
	body  func(*ir.Func) *ir.Func
	funcs []*ir.Func
	seen  map[*ir.Func]bool

	trees  map[value.Value]*Tree
	pinned map[value.Value]map[key]bool // value-level facts the IR type makes certain
	rets   map[*ir.Func]*Tree

	users    map[value.Value][]node     // the nodes reading a value
	calls    map[*ir.Func][]node        // the call sites of an analyzed body
	rets0    map[*ir.Func][]*ir.TermRet // the returns of an analyzed body
	retOwner map[*ir.TermRet]*ir.Func
	owner    map[*ir.Param]*ir.Func       // the body a parameter belongs to
	retArgs  map[*ir.Func][]retDerivation // what returned pointers derive from (retargs.go)
	retLoads map[*ir.Func]loadDerivation  // where getters read their results (retargs.go)
	queued   map[node]bool
	work     []node
	// context: calls pass their callers' facts down (second phase); the
	// facts callees pass up are their summaries, frozen at the end of the
	// first phase.
	context  bool
	paramSum map[*ir.Param]*Tree
	retSum   map[*ir.Func]*Tree
	// budget bounds the rule visits (visitsPerNode per instruction);
	// exhausted, the analysis stops, incomplete.
	visits, budget int
	exhausted      bool
	// up and down are the rules' scratch lists of facts (see fact).
	up, down []fact
	// flows records the version of its source's tree each flow last read
	// (see stale).
	flows       map[flow]uint64
	runAllFlows bool
	// spreadInts: the last phase, in which integers at variable indices
	// spread to every element (intfields.go); spread records where.
	spreadInts bool
	spread     map[spreadMark]bool
	// toSpread lists, in the order first met, the getelementptrs whose
	// integers waited for the last phase (none: no last phase).
	toSpread  []*ir.InstGetElementPtr
	toSpread1 map[*ir.InstGetElementPtr]bool
}

// flow is one way a rule derives facts from one tracked value's tree and
// joins them into another value's: what it derives depends on the
// source's tree alone (op names the derivation, n its parameter).
type flow struct {
	src, dst value.Value
	op       flowOp
	n        int64
}

type flowOp uint8

const (
	flowSame     flowOp = iota // the tree itself
	flowOwn                    // its value-level facts (own)
	flowDefinite               // without conflicts (definiteTree)
	flowWindow                 // pointeeWindow(n)
	flowPlaced                 // placedUnder(n)
	flowShift                  // shiftedPointee(n)
)

// stale reports whether flow f may add anything to its destination: not
// when its source's tree has not changed since f last ran, for then it
// derives the facts it joined then, which the destination still holds
// (trees only grow). It records the version read now; the caller then
// runs the flow. A source that is not a tracked value (a constant's tree,
// computed afresh) is always stale.
func (a *Analysis) stale(f flow) bool {
	t, ok := a.trees[f.src]
	if !ok || a.runAllFlows {
		return true
	}
	if v, ran := a.flows[f]; ran && v == t.ver {
		return false
	}
	a.flows[f] = t.ver
	return true
}

// flowTree joins the tree of src into dst (add), or its part op selects,
// unless the flow is not stale.
func (a *Analysis) flowTree(dst, src value.Value, op flowOp) {
	dst, src = unwrap(dst), unwrap(src)
	if !a.stale(flow{src, dst, op, 0}) {
		return
	}
	switch op {
	case flowOwn:
		a.add(dst, a.get(src).own())
	case flowDefinite:
		a.addTree(dst, a.get(src), true)
	default:
		a.add(dst, a.get(src))
	}
}

// visitsPerNode is the work budget per instruction: fixed points in
// practice take a few visits per instruction; bounded trees guarantee
// termination, not speed.
const visitsPerNode = 200

// node is an instruction or terminator whose rule the fixed point runs.
type node interface{}

// Analyze runs the analysis over the functions reached from roots. body
// maps a callee to the function to analyze for it (the copy the AD engine
// differentiates, or the callee itself), or nil for a callee to treat as
// external; roots are passed through body too.
//
// It runs in two phases (see freezeSummaries). First each function is
// typed by its own body and its callees' summaries: calls pass what a
// callee's parameters and return hold up into the arguments and result.
// Then callers' facts go down: a parameter holds what every call passes it
// (context-insensitive: a helper called with double* at one site and int*
// at another sees Anything), the return what every caller makes of the
// result; these facts spread through the callee's body but go back up only
// as the frozen summary. Hints come last, where facts are still unknown.
func Analyze(roots []*ir.Func, body func(*ir.Func) *ir.Func) *Analysis {
	return analyzeFlows(roots, body, true)
}

// analyzeFlows is Analyze, skipping the flows that are not stale or (for
// tests comparing the two) running every one.
func analyzeFlows(roots []*ir.Func, body func(*ir.Func) *ir.Func, skipFlows bool) *Analysis {
	a := analyzeSpread(roots, body, skipFlows, true)
	if a.spreadConflicts() {
		// A float came where an integer spread: without the spread, the
		// float keeps its size.
		a = analyzeSpread(roots, body, skipFlows, false)
	}
	return a
}

// analyzeSpread is analyzeFlows, with or without its last phase, which
// spreads integers at variable indices (intfields.go).
func analyzeSpread(roots []*ir.Func, body func(*ir.Func) *ir.Func, skipFlows, spread bool) *Analysis {
	if body == nil {
		body = func(f *ir.Func) *ir.Func {
			if len(f.Blocks) == 0 {
				return nil
			}
			return f
		}
	}
	a := &Analysis{body: body, seen: map[*ir.Func]bool{}, trees: map[value.Value]*Tree{},
		pinned: map[value.Value]map[key]bool{}, rets: map[*ir.Func]*Tree{}, users: map[value.Value][]node{},
		calls: map[*ir.Func][]node{}, rets0: map[*ir.Func][]*ir.TermRet{}, retOwner: map[*ir.TermRet]*ir.Func{}, owner: map[*ir.Param]*ir.Func{},
		retArgs: map[*ir.Func][]retDerivation{}, retLoads: map[*ir.Func]loadDerivation{},
		queued: map[node]bool{}, flows: map[flow]uint64{}, runAllFlows: !skipFlows,
		toSpread1: map[*ir.InstGetElementPtr]bool{}}
	for _, r := range roots {
		if b := body(r); b != nil {
			a.discover(b)
		}
	}
	for _, f := range a.funcs {
		a.index(f)
		for _, b := range f.Blocks {
			a.budget += visitsPerNode * (len(b.Insts) + 1)
		}
	}
	// Summaries: each function with what its own body says, callers
	// learning from their callees but not the other way.
	for _, f := range a.funcs {
		a.enqueueFunc(f)
	}
	a.solve()
	a.freezeSummaries()
	// Contexts: callers' facts go down into their callees.
	a.context = true
	for _, f := range a.funcs {
		a.enqueueFunc(f)
	}
	a.solve()
	// Hints fill in what the certain facts left unknown, then the facts
	// they imply are propagated in turn.
	for _, f := range a.funcs {
		a.applyHints(f)
	}
	for _, f := range a.funcs {
		a.enqueueFunc(f)
	}
	a.solve()
	if spread && !a.exhausted && len(a.toSpread) > 0 {
		a.spreadInts, a.spread = true, map[spreadMark]bool{}
		// Every rule again: not all the rules reading what a spread
		// changes are its tree's users.
		for _, f := range a.funcs {
			a.enqueueFunc(f)
		}
		a.solve()
	}
	return a
}

// freezeSummaries records what each analyzed function's parameters and
// return hold by its own body (and its callees'): what calls learn from
// it. Facts that came down from one caller never go back up to another:
// a helper called with pointers into different fields of one object would
// otherwise equate the fields, at every distance between them.
func (a *Analysis) freezeSummaries() {
	a.paramSum = map[*ir.Param]*Tree{}
	a.retSum = map[*ir.Func]*Tree{}
	for _, f := range a.funcs {
		for _, p := range f.Params {
			a.paramSum[p] = a.trees[p].Clone()
		}
		a.retSum[f] = a.rets[f].Clone()
	}
}

// Funcs lists the analyzed bodies, roots first, then in the order calls
// reached them.
func (a *Analysis) Funcs() []*ir.Func { return a.funcs }

// discover adds f and, through direct calls, the bodies it reaches.
func (a *Analysis) discover(f *ir.Func) {
	if a.seen[f] {
		return
	}
	a.seen[f] = true
	a.funcs = append(a.funcs, f)
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				if g := a.callee(c.Callee); g != nil {
					a.discover(g)
				}
			}
		}
		if inv, ok := b.Term.(*ir.TermInvoke); ok {
			if g := a.callee(inv.Invokee); g != nil {
				a.discover(g)
			}
		}
	}
}

// callee is the analyzed body a call runs, nil when indirect or external.
func (a *Analysis) callee(v value.Value) *ir.Func {
	f, ok := irutil.StripCasts(v).(*ir.Func)
	if !ok || len(f.Blocks) == 0 {
		return nil
	}
	return a.body(f)
}

// index records the users of every value of f, its call sites and
// returns, and the facts its values' IR types make certain.
func (a *Analysis) index(f *ir.Func) {
	for _, p := range f.Params {
		a.owner[p] = f
		a.track(p)
	}
	a.rets[f] = certain(f.Sig.RetType)
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok {
				a.track(v)
			}
			a.indexOperands(inst)
			if c, ok := inst.(*ir.InstCall); ok {
				if g := a.callee(c.Callee); g != nil {
					a.calls[g] = append(a.calls[g], c)
				}
			}
		}
		a.indexOperands(b.Term)
		switch t := b.Term.(type) {
		case *ir.TermInvoke:
			a.track(t)
			if g := a.callee(t.Invokee); g != nil {
				a.calls[g] = append(a.calls[g], t)
			}
		case *ir.TermRet:
			a.rets0[f] = append(a.rets0[f], t)
			a.retOwner[t] = f
		}
	}
	a.dropUnreadLanes(f) // deadlanes.go
}

func (a *Analysis) indexOperands(n node) {
	u, ok := n.(interface{ Operands() []*value.Value })
	if !ok {
		return
	}
	for _, op := range u.Operands() {
		v := unwrap(*op)
		if base, _, ok := globalBase(v); ok {
			v = base
			a.track(base)
		}
		if !a.tracked(v) {
			continue
		}
		if us := a.users[v]; len(us) == 0 || us[len(us)-1] != n {
			a.users[v] = append(a.users[v], n)
		}
	}
}

// track gives v its certain facts, once.
func (a *Analysis) track(v value.Value) {
	if _, ok := a.trees[v]; ok {
		return
	}
	t := certain(v.Type())
	pins := map[key]bool{}
	for k := range t.m {
		pins[k] = true
	}
	a.trees[v] = t
	a.pinned[v] = pins
	if g, ok := v.(*ir.Global); ok && g.Init != nil {
		a.trees[v].Join(initializerFacts(g.Init).Under(0))
	}
}

func (a *Analysis) tracked(v value.Value) bool {
	_, ok := a.trees[v]
	return ok
}

func (a *Analysis) enqueueFunc(f *ir.Func) {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			a.enqueue(inst)
		}
		a.enqueue(b.Term)
	}
}

func (a *Analysis) enqueue(n node) {
	if a.queued[n] {
		return
	}
	a.queued[n] = true
	a.work = append(a.work, n)
}

func (a *Analysis) solve() {
	for len(a.work) > 0 && !a.exhausted {
		n := a.work[0]
		a.work = a.work[1:]
		delete(a.queued, n)
		a.visit(n)
		if a.visits++; a.visits > a.budget {
			a.exhausted = true
		}
	}
}

// Complete reports whether the analysis reached its fixed point within its
// budget of work (visits per instruction); an incomplete one may lack
// conflicts the fixed point has, and clients must not rely on it.
func (a *Analysis) Complete() bool { return !a.exhausted }

// get is the tree of an operand: tracked values' own, constants' computed
// (a copy is not made: callers must not modify it).
func (a *Analysis) get(v value.Value) *Tree {
	v = unwrap(v)
	if t, ok := a.trees[v]; ok {
		return t
	}
	if c, ok := v.(constant.Constant); ok {
		return a.constTree(c)
	}
	return NewTree()
}

// add joins t into the tree of v, except at the value-level offsets v's
// IR type makes certain; on a change, the nodes that read v, v's
// definition, and for parameters and results the call sites, run again.
// A constant expression on a global passes its memory facts to the global.
func (a *Analysis) add(v value.Value, t *Tree) { a.addTree(v, t, false) }

// addTree is add, leaving out t's conflicts (Anything) with definite.
func (a *Analysis) addTree(v value.Value, t *Tree, definite bool) {
	v = unwrap(v)
	if t == nil || t.Len() == 0 {
		return
	}
	cur, ok := a.trees[v]
	if !ok {
		if base, off, ok := globalBase(v); ok {
			if definite {
				t = definiteTree(t)
			}
			a.add(base, t.shiftedPointee(off))
		}
		return
	}
	pins := a.pinned[v]
	changed := false
	for k, c := range t.m {
		if definite && c == Anything {
			continue
		}
		if joinFact(cur, pins, k, c) {
			changed = true
		}
	}
	if changed {
		a.changed(v)
	}
}

// addFacts is add for a list of facts (see fact).
func (a *Analysis) addFacts(v value.Value, fs []fact) {
	v = unwrap(v)
	if len(fs) == 0 {
		return
	}
	cur, ok := a.trees[v]
	if !ok {
		if base, off, ok := globalBase(v); ok {
			a.add(base, treeOf(fs).shiftedPointee(off))
		}
		return
	}
	pins := a.pinned[v]
	changed := false
	for _, f := range fs {
		if joinFact(cur, pins, f.k, f.c) {
			changed = true
		}
	}
	if changed {
		a.changed(v)
	}
}

// joinFact joins c into cur at k unless pins holds k (pins hold value-level
// paths only, those of one offset), reporting whether cur changed.
func joinFact(cur *Tree, pins map[key]bool, k key, c Concrete) bool {
	if k.len() == 1 && pins[k] {
		return false
	}
	if k.len() > 2 {
		if cur.shallow {
			return false
		}
		if _, known := cur.m[k]; !known && len(cur.m) >= MaxFacts {
			// Dropped whole, whatever order the facts came in: the same
			// tree on every run.
			for d := range cur.m {
				if d.len() > 2 {
					delete(cur.m, d)
				}
			}
			cur.shallow = true
			cur.ver++
			return true
		}
	}
	old := cur.m[k]
	if n := old.Join(c); n != old {
		cur.m[k] = n
		cur.ver++
		return true
	}
	return false
}

// changed runs again what depends on v's tree, which changed.
func (a *Analysis) changed(v value.Value) {
	for _, u := range a.users[v] {
		a.enqueue(u)
	}
	switch x := v.(type) {
	case *ir.Param:
		for _, c := range a.calls[a.owner[x]] {
			a.enqueue(c)
		}
	case ir.Instruction:
		a.enqueue(x)
	case *ir.TermInvoke:
		a.enqueue(x)
	}
}

// addRet joins t into f's return tree.
func (a *Analysis) addRet(f *ir.Func, t *Tree) {
	cur := a.rets[f]
	pins := certain(f.Sig.RetType)
	changed := false
	for k, c := range t.m {
		if _, pinned := pins.m[k]; pinned {
			continue
		}
		old := cur.m[k]
		if n := old.Join(c); n != old {
			cur.m[k] = n
			changed = true
		}
	}
	if !changed {
		return
	}
	cur.ver++
	for _, c := range a.calls[f] {
		a.enqueue(c)
	}
	for _, r := range a.rets0[f] {
		a.enqueue(r)
	}
}

func unwrap(v value.Value) value.Value {
	for {
		x, ok := v.(*ir.Arg)
		if !ok {
			return v
		}
		v = x.Value
	}
}

// certain is what a value of IR type t certainly holds at the value level:
// floats and pointers where the type has them (vector lanes and aggregate
// fields at their offsets). Integer types say nothing: clang moves floats
// and pointers as integers.
func certain(t types.Type) *Tree {
	out := NewTree()
	var walk func(t types.Type, off int64)
	walk = func(t types.Type, off int64) {
		if off > MaxOffset {
			return
		}
		switch t := t.(type) {
		case *types.FloatType:
			out.Insert(FromFloat(t), off)
		case *types.PointerType:
			out.Insert(Pointer, off)
		case *types.VectorType:
			if _, ok := t.ElemType.(*types.IntType); ok {
				return
			}
			for i := int64(0); i < int64(t.Len); i++ {
				walk(t.ElemType, off+i*irutil.StoreSize(t.ElemType))
			}
		case *types.ArrayType:
			for i := int64(0); i < int64(t.Len) && off+i*irutil.AllocSize(t.ElemType) <= MaxOffset; i++ {
				walk(t.ElemType, off+i*irutil.AllocSize(t.ElemType))
			}
		case *types.StructType:
			for i, f := range t.Fields {
				walk(f, off+irutil.FieldOffset(t, i))
			}
		}
	}
	walk(t, 0)
	return out
}

// integers is the tree of a value of type t all of whose bytes are
// integers.
func integers(t types.Type) *Tree {
	out := NewTree()
	n := irutil.StoreSize(t)
	for b := int64(0); b < n && b <= MaxOffset; b++ {
		out.Insert(Integer, b)
	}
	return out
}
