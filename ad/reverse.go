package ad

import (
	"fmt"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// reverseGen synthesizes the combined reverse-mode gradient of one function:
// a forward sweep (the primal, cloned, recording what the reverse needs),
// then the reverse sweep over the reversed control flow.
//
// Layout of the generated function g:
//
//	alloca block: adjoint slots and caches, zero-initialized
//	fwdHead(B), fwdTail(B) for every primal block B (equal except for loop
//	    headers, whose head holds the phis and the iteration counter)
//	rev(B) for every primal block B, with edge blocks toward its predecessors
//	exit: collects the parameter adjoints, frees caches, returns
type reverseGen struct {
	d        *differ
	split    bool // build an augmented forward and a reverse function
	parallel bool // run by the threads of a parallel region (atomics.go)
	// quiet (split mode): nothing writes primal memory between the
	// augmented forward's return and the reverse's start (quiet.go).
	quiet bool
	// quietTyped (split mode): what writes primal memory between the
	// halves writes only memory tagged quietTags (quiettags.go).
	quietTyped bool
	quietTags  []*metadata.Tuple
	pair       *splitGrad     // split mode: the pair generated (tapestack.go)
	tapeMem    []*ir.InstCall // the calls allocating, growing and freeing caches
	m          *ir.Module
	f          *ir.Func // the primal
	cfg        *irutil.CFG
	act        *activity.Info
	acts       []activity.Activity // per primal parameter
	passes     func(*ir.InstCall) bool
	g          *ir.Func
	allocas    *ir.Block
	exit       *ir.Block
	dret       value.Value                    // seed of the return adjoint, nil if the return is inactive
	outTypes   []types.Type                   // types of the Out adjoints returned
	retIdx     *ir.InstAlloca                 // split mode: which return the forward took
	rets       []*ir.Block                    // primal blocks that return
	retShadow  bool                           // split mode: the forward also returns the shadow of its result
	callBlock  map[*ir.InstCall]*ir.Block     // primal call -> its block, built on first use (frametape.go)
	loopFrames map[*ir.InstCall]loopFrame     // calls whose callee's tape is a field of their loop's record (frametape.go)
	mathCalls  map[*ir.Block]blockMathCalls   // primal block -> its calls of math functions, indexed on first use (mathsibling.go)
	zeroSkips  []*zeroSkip                    // loops whose reverse is skipped where their adjoints are zero (zeroskip.go)
	skipAt     map[*ir.Block]*zeroSkip        // the skips by the primal block each loop exits into
	chainSel   map[*ir.InstPhi]*ir.InstSelect // running-minimum chains by their phi, nil where none (minchain.go)
	chainLive  map[*ir.InstPhi]*ir.InstAlloca // their flags in the reverse; nil once the header's reverse is emitted without one

	// Its state by concern.
	sweepState    // primal blocks and values in the gradient (reverse.go)
	adjointState  // adjoints, shadows, the tape (reverse.go)
	memoryState   // what the primal writes and frees (remat.go)
	loopState     // loops, caches and the cache plan (mincut.go)
	parallelState // OpenMP and GPU (atomics.go)
}

// sweepState maps the primal onto the gradient: the forward and reverse
// blocks of every primal block, forward values and their primal values,
// and what the reverse sweep's control flow reads back.
type sweepState struct {
	fwdHead, fwdTail, rev map[*ir.Block]*ir.Block
	blockOf               map[value.Value]*ir.Block // primal instruction -> primal block
	vmap                  map[value.Value]value.Value
	primalOf              map[value.Value]value.Value // forward clone -> primal value
	order                 map[value.Value]int         // primal instructions in block order
	predIdx               map[*ir.Block]*ir.InstPhi   // forward phi recording the predecessor taken
	postDomRet            map[*ir.Block]bool          // blocks dominating every return
}

// adjointState is the per-function derivative state of a gradient: adjoint
// slots, shadows of pointers, and the slots the forward sweep records for
// the reverse (the tape).
type adjointState struct {
	adj    map[value.Value]*ir.InstAlloca
	shadow map[value.Value]value.Value    // primal pointer -> forward shadow
	sinks  map[*ir.Global]*ir.InstAlloca  // shadows of inactive globals (inactiveSink)
	slots  map[value.Value]*ir.InstAlloca // non-loop caches, by forward value
	// slotOrder and slotDefs: the non-loop cache slots in creation order,
	// and the primal blocks whose values each holds (exclusiveslot.go).
	slotOrder []*ir.InstAlloca
	slotDefs  map[*ir.InstAlloca][]*ir.Block
	isCache   map[*ir.InstAlloca]bool     // slots the reverse reads from the forward (the tape)
	tapes     map[value.Value]value.Value // primal call -> forward tape of its callee
	frees     []*ir.InstAlloca            // buffer slots to free on exit
	// BLAS calls (blasad.go): copies of their inputs, by argument; the
	// Fortran ABI's scalars as read in the forward sweep.
	blasCaches, blasScalars map[*ir.InstCall]blasValues
}

// loopCache is the per-loop state of the forward sweep: an iteration counter
// that runs across all executions of the loop (so nested loops with varying
// trip counts linearize), a capacity, and one growable buffer of iteration
// records, a field per cached value (record.go).
type loopCache struct {
	loop    *irutil.Loop
	counter *ir.InstAlloca // i64: iterations executed so far (forward), remaining (reverse)
	cap     *ir.InstAlloca // i64: capacity of the buffer, in records
	fwdIdx  value.Value    // this iteration's index, defined in fwdHead(header)
	rec     *types.StructType
	slot    *ir.InstAlloca // rec*: the buffer, created with the first field
	fields  map[value.Value]*loopBuf
	geps    []*ir.InstGetElementPtr // field addresses, renumbered by recordLayout
	owner   *loopCache              // the sibling whose buffer holds these records too (sharedrec.go), or nil
	sharers []*loopCache            // the loops whose owner this is, their fields renumbered with its own
}

// newReverseGen prepares the gradient of f for the given parameter
// activities. In split mode the result is later cut into an augmented
// forward function and a reverse function that share a tape (see split.go);
// otherwise it is one combined function named name, added to the module.
func newReverseGen(d *differ, f *ir.Func, acts []activity.Activity, retActive, retShadow, split bool, name string) (*reverseGen, error) {
	cfg, err := irutil.NewCFG(f)
	if err != nil {
		return nil, errorAt(f, nil, "%v", err)
	}
	r := &reverseGen{d: d, m: d.m, f: f, cfg: cfg, acts: acts, passes: d.passes, split: split,
		sweepState: sweepState{fwdHead: map[*ir.Block]*ir.Block{}, fwdTail: map[*ir.Block]*ir.Block{}, rev: map[*ir.Block]*ir.Block{},
			blockOf: map[value.Value]*ir.Block{}, vmap: map[value.Value]value.Value{}, primalOf: map[value.Value]value.Value{},
			predIdx: map[*ir.Block]*ir.InstPhi{}, postDomRet: map[*ir.Block]bool{}},
		adjointState: adjointState{adj: map[value.Value]*ir.InstAlloca{}, slots: map[value.Value]*ir.InstAlloca{}, slotDefs: map[*ir.InstAlloca][]*ir.Block{},
			shadow: map[value.Value]value.Value{}, tapes: map[value.Value]value.Value{}, isCache: map[*ir.InstAlloca]bool{}},
		loopState: loopState{loops: map[*irutil.Loop]*loopCache{}, entryCount: map[*ir.Block]*ir.InstLoad{},
			fwdLoopIDs: map[*irutil.Loop]*metadata.Tuple{}, revLoopIDs: map[*irutil.Loop]*metadata.Tuple{}}}
	if err := d.omp.bad[f]; err != nil {
		return nil, err
	}
	r.act = d.analyzeActivity(f, acts, retActive, retShadow)
	if err := d.unmetError(f, r.act, false); err != nil {
		return nil, err
	}
	d.noteAnalysis(f, r.act)
	if err := checkCmpXchg(f, r.act); err != nil {
		return nil, err
	}
	if err := d.checkFloatPuns(f, r.act); err != nil {
		return nil, err
	}
	if err := d.checkOpaqueBits(f, r.act, true); err != nil {
		return nil, err
	}
	if err := d.checkPointerBitsLost(f, r.act); err != nil {
		return nil, err
	}
	r.retShadow = retShadow
	for i, p := range f.Params {
		if acts[i] != activity.Dup && acts[i] != activity.DupNoNeed && irfacts.HasPointerField(p.Typ) && r.act.HasShadow(p) {
			return nil, errorAt(f, nil, "parameter %d, a struct passed by value, holds pointers to memory that carries derivatives but has no shadow (pass the struct by pointer)", paramIndex(f, p))
		}
	}

	// The generated signature: primal parameters (shadows after Dup ones),
	// then the return seed; returns the adjoints of the Out parameters.
	var params []*ir.Param
	for i, p := range f.Params {
		name := p.Name()
		if p.IsUnnamed() {
			name = ""
		}
		np := ir.NewParam(name, p.Typ)
		params = append(params, np)
		r.vmap[p] = np
		switch acts[i] {
		case activity.Out:
			r.outTypes = append(r.outTypes, p.Typ)
		case activity.Dup, activity.DupNoNeed:
			if !holdsPointers(p.Typ) {
				return nil, errorAt(f, nil, "parameter %d is duplicated (enzyme_dup) but is not a pointer", paramIndex(f, p))
			}
			shadowName := ""
			if name != "" {
				shadowName = name + ".shadow"
			}
			sp := ir.NewParam(shadowName, p.Typ)
			params = append(params, sp)
			r.shadow[p] = sp
		}
	}
	if retActive {
		dr := ir.NewParam("dret", f.Sig.RetType)
		params = append(params, dr)
		r.dret = dr
	}
	if split {
		r.g = ir.NewFunc(name, outsType(r.outTypes), params...)
	} else {
		r.g = d.m.NewFunc(name, outsType(r.outTypes), params...)
		r.g.Linkage = enum.LinkageInternal
		inheritTarget(r.g, f)
	}
	return r, nil
}

// outsType is the type a gradient returns for its Out adjoints.
func outsType(outs []types.Type) types.Type {
	switch len(outs) {
	case 0:
		return types.Void
	case 1:
		return outs[0]
	}
	return types.NewStruct(outs...)
}

// generate builds the whole gradient function.
func (r *reverseGen) generate() (*ir.Func, error) {
	f, g := r.f, r.g
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok {
				r.blockOf[v] = b
			}
		}
	}
	r.tripCounts = map[*irutil.Loop]tripResult{}
	for _, b := range f.Blocks {
		dominatesAll := true
		for _, x := range f.Blocks {
			if _, ok := x.Term.(*ir.TermRet); ok && r.cfg.Index[x] >= 0 && !r.cfg.Dominates(b, x) {
				dominatesAll = false
			}
		}
		r.postDomRet[b] = dominatesAll
	}
	r.allocas = g.NewBlock("entry")
	// Blocks in primal order: forward sweep, then reverse sweep, then exit.
	for _, b := range r.cfg.RPO {
		head := g.NewBlock("")
		r.fwdHead[b], r.fwdTail[b] = head, head
		if r.primal().IsHeader(b) {
			r.fwdTail[b] = g.NewBlock("")
		}
	}
	for i := len(r.cfg.RPO) - 1; i >= 0; i-- {
		r.rev[r.cfg.RPO[i]] = g.NewBlock("")
	}
	r.exit = g.NewBlock("exit")
	for _, l := range r.cfg.Loops {
		lc := &loopCache{loop: l}
		lc.counter = r.newCacheSlot(types.I64, constant.NewInt(types.I64, 0))
		lc.cap = r.newCacheSlot(types.I64, constant.NewInt(types.I64, 0))
		r.loops[l] = lc
	}
	if err := r.forward(); err != nil {
		return nil, err
	}
	r.preparePartials()
	for i := len(r.cfg.RPO) - 1; i >= 0; i-- {
		if err := r.reverseBlock(r.cfg.RPO[i]); err != nil {
			return nil, err
		}
	}
	if err := r.finishExitEntries(); err != nil {
		return nil, err
	}
	r.finishZeroSkips()
	r.finishExit()
	if r.d.gpu {
		if err := r.finishLoopsGPU(); err != nil { // gpucache.go
			return nil, err
		}
	} else {
		r.finishLoops()
	}
	r.restartCounters()
	r.allocas.NewBr(r.fwdHead[f.Blocks[0]])
	setMinimalAlignment(g)
	r.applyCacheScope()
	r.applyOwnScope()
	if err := r.checkStandIns(g); err != nil {
		return nil, err
	}
	return g, nil
}

// setMinimalAlignment gives every load and store gozyme generated (those
// without an explicit alignment) align 8, or less for types aligned less:
// caches live in malloc'd buffers and tapes, which do not have the natural
// alignment of 32-byte vectors, and a record of bytes (one i1 per
// iteration) has them one byte apart.
func setMinimalAlignment(g *ir.Func) {
	for _, b := range g.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if x.Align == 0 {
					x.Align = minimalAlign(x.ElemType)
				}
			case *ir.InstStore:
				if x.Align == 0 {
					x.Align = minimalAlign(x.Src.Type())
				}
			}
		}
	}
}

// minimalAlign is the alignment setMinimalAlignment claims for an access
// of type t: its ABI alignment, at most 8.
func minimalAlign(t types.Type) ir.Align {
	if _, a, ok := abiLayout(t); ok && a < 8 {
		return ir.Align(a)
	}
	return 8
}

// reverseEntries returns, for split mode, the reverse blocks of the returns.
func (r *reverseGen) reverseEntries() []*ir.Block {
	out := make([]*ir.Block, len(r.rets))
	for i, b := range r.rets {
		out[i] = r.rev[b]
	}
	return out
}

// newSlot allocates a stack slot in the alloca block, initialized to init.
func (r *reverseGen) newSlot(t types.Type, init value.Value) *ir.InstAlloca {
	a := r.allocas.NewAlloca(t)
	if init != nil {
		r.allocas.NewStore(init, a)
	}
	return a
}

// newCacheSlot is newSlot for state the forward sweep leaves for the reverse
// sweep; in split mode these slots become the tape.
func (r *reverseGen) newCacheSlot(t types.Type, init value.Value) *ir.InstAlloca {
	a := r.newSlot(t, init)
	r.isCache[a] = true
	return a
}

// mapValue maps a primal operand to the forward sweep.
func (r *reverseGen) mapValue(v value.Value) value.Value {
	if x, ok := r.vmap[v]; ok {
		return x
	}
	if b, ok := v.(*ir.Block); ok {
		if t, ok := r.fwdHead[b]; ok {
			return t
		}
	}
	return v
}

// forward clones the primal blocks into the forward sweep.
func (r *reverseGen) forward() error {
	r.declareShadowPhis()
	for _, b := range r.cfg.RPO {
		head, tail := r.fwdHead[b], r.fwdTail[b]
		preds := r.cfg.Preds[b]
		var phis, rest []ir.Instruction
		var iter *ir.InstLoad
		if r.primal().IsHeader(b) {
			// The iteration's index, known to the header's own
			// instructions (a framed call's tape, frametape.go) and
			// inserted after its phis below.
			lc := r.loops[r.cfg.LoopOf[b]]
			iter = ir.NewLoad(types.I64, lc.counter)
			lc.fwdIdx = iter
		}
		for _, inst := range b.Insts {
			if isDebugIntrinsic(inst) || r.dropsLifetime(inst) {
				continue
			}
			if call, ok := inst.(*ir.InstCall); ok && r.returnsShadow(call) {
				if rule, ok := r.customRule(call); ok {
					insts, err := r.augmentCustomPointer(b, call, rule)
					if err != nil {
						return err
					}
					rest = append(rest, insts...)
					continue
				}
			}
			if call, ok := inst.(*ir.InstCall); ok && r.d.omp.sites[call] != nil && !r.callsDerivative(call) {
				rest = append(rest, ompPlainCall(r.d.omp.sites[call]))
				continue
			}
			if call, ok := inst.(*ir.InstCall); ok {
				rest = append(rest, r.d.callStops(r.f, call, r.act)...) // dispatch.go
			}
			if call, ok := inst.(*ir.InstCall); ok && r.callsDerivative(call) {
				insts, err := r.augmentCall(b, call)
				if err != nil {
					return err
				}
				rest = append(rest, insts...)
				continue
			}
			if call, ok := inst.(*ir.InstCall); ok {
				rest = append(rest, r.ompTicket(b, call)...)
			}
			var blasAfter []ir.Instruction
			if call, ok := inst.(*ir.InstCall); ok && isBlasCall(call) && r.customCallActive(call) {
				copies, after, err := r.augmentBlas(b, call)
				if err != nil {
					return err
				}
				rest = append(rest, copies...)
				blasAfter = after
			}
			c, err := irutil.CloneInst(inst, func(v value.Value) value.Value { return v })
			if err != nil {
				return errorAt(r.f, inst, "%v", err)
			}
			if call, ok := inst.(*ir.InstCall); ok && isFree(call) && len(call.Args) > 0 {
				notes, err := r.noteShadowFree(call, call.Args[0]) // shadowlife.go
				if err != nil {
					return err
				}
				rest = append(rest, notes...)
			}
			if call, ok := inst.(*ir.InstCall); ok && r.deferredFree(call) {
				r.deferredFrees = append(r.deferredFrees, call)
				if !r.freeAtExit(call) {
					// Record its arguments where it runs (remat.go).
					slots := make([]*ir.InstAlloca, len(call.Args))
					for i, a := range call.Args {
						a = irfacts.Unwrap(a)
						slots[i] = r.newSlot(a.Type(), rules.ZeroOf(a.Type()))
						rest = append(rest, ir.NewStore(a, slots[i])) // remapped below
					}
					if r.freeSlots == nil {
						r.freeSlots = map[*ir.InstCall][]*ir.InstAlloca{}
					}
					r.freeSlots[call] = slots
				}
				continue
			}
			if _, ok := c.(*ir.InstPhi); ok {
				phis = append(phis, c)
				if sp, ok := r.shadow[inst.(value.Value)]; ok {
					phis = append(phis, sp.(ir.Instruction))
				}
			} else {
				rest = append(rest, c)
			}
			if v, ok := inst.(value.Value); ok {
				r.noteForward(b, v, c.(value.Value))
			}
			extra, err := r.forwardShadow(b, inst, c)
			if err != nil {
				return err
			}
			rest = append(rest, extra...)
			rest = append(rest, blasAfter...)
			if call, ok := inst.(*ir.InstCall); ok {
				if r.usesPick(call) {
					picks, err := r.forwardPick(b, call)
					if err != nil {
						return err
					}
					rest = append(rest, picks...)
				}
				if rule, ok := r.customRule(call); ok && r.customCallActive(call) {
					aug, err := r.augmentCustom(b, call, rule)
					if err != nil {
						return err
					}
					rest = append(rest, aug...)
				}
			}
		}
		if outside, _, ok := r.primal().SimpleHeader(b); ok {
			// The reverse tells the first iteration from the others by
			// the iteration counter: remember its value on loop entry.
			lc := r.loops[r.cfg.LoopOf[b]]
			c0 := ir.NewLoad(types.I64, lc.counter)
			pt := r.fwdTail[outside]
			pt.Insts = append(pt.Insts, c0)
			r.entryCount[b] = c0
			r.blockOf[c0] = outside
		} else if len(preds) > 1 {
			// Record which predecessor was taken, for the reverse sweep.
			var incs []*ir.Incoming
			for i, p := range preds {
				// One entry per edge: a switch may reach b by several cases.
				for k := edgeCount(p, b); k > 0; k-- {
					incs = append(incs, ir.NewIncoming(constant.NewInt(predIdxType(len(preds)), int64(i)), p)) // remapped below
				}
			}
			phi := ir.NewPhi(incs...)
			phis = append(phis, phi)
			r.predIdx[b] = phi
			r.blockOf[phi] = b
		}
		head.Insts = append(head.Insts, phis...)
		tail.Insts = append(tail.Insts, rest...)
		if iter != nil {
			lc := r.loops[r.cfg.LoopOf[b]]
			head.Insts = append(head.Insts, iter)
			head.NewStore(head.NewAdd(iter, constant.NewInt(types.I64, 1)), lc.counter)
			head.NewBr(tail) // replaced by the growth check when the loop caches values
		}
	}
	if err := r.fillShadowPhis(); err != nil {
		return err
	}
	// Remap operands now that every value has its clone. Phi predecessors
	// become the blocks that end each predecessor (the forward tails).
	for _, b := range r.cfg.RPO {
		blocks := []*ir.Block{r.fwdHead[b]}
		if r.fwdTail[b] != r.fwdHead[b] {
			blocks = append(blocks, r.fwdTail[b])
		}
		for _, blk := range blocks {
			for _, inst := range blk.Insts {
				remapClone(inst, r.mapValue, func(b *ir.Block) *ir.Block { return r.fwdTail[b] })
			}
		}
		if err := r.forwardTerm(b); err != nil {
			return err
		}
	}
	return nil
}

// noteForward records fv, emitted in the forward copy of primal block b,
// as the forward value of primal v.
func (r *reverseGen) noteForward(b *ir.Block, v, fv value.Value) {
	r.vmap[v] = fv
	r.blockOf[fv] = b
	r.primalOf[fv] = v
}

// forwardTerm clones b's terminator; a return instead seeds the return
// adjoint and enters the reverse sweep.
func (r *reverseGen) forwardTerm(b *ir.Block) error {
	tail := r.fwdTail[b]
	blk := func(v value.Value) *ir.Block { return r.fwdHead[v.(*ir.Block)] }
	switch t := b.Term.(type) {
	case *ir.TermRet:
		if r.split {
			// The augmented forward returns here (split.go finishes it);
			// the reverse function seeds the return adjoint itself.
			r.rets = append(r.rets, b)
			return nil
		}
		if r.dret != nil && t.X != nil && r.act.Active(t.X) {
			r.accumulate(tail, t.X, r.dret)
		}
		tail.NewBr(r.rev[b])
	default:
		if !cloneBranch(tail, b.Term, blk, r.mapValue) {
			return errorAt(r.f, t, "terminator %s is not supported", describe(t))
		}
		r.markForwardLatch(b, tail)
	}
	return nil
}

// cloneBranch gives nb a copy of a branching terminator (br, switch,
// unreachable) with targets mapped by block and operands by value; it
// reports false for other terminators.
func cloneBranch(nb *ir.Block, term ir.Terminator, block func(value.Value) *ir.Block, val func(value.Value) value.Value) bool {
	switch t := term.(type) {
	case *ir.TermBr:
		nb.NewBr(block(t.Target))
	case *ir.TermCondBr:
		nb.NewCondBr(val(t.Cond), block(t.TargetTrue), block(t.TargetFalse))
	case *ir.TermSwitch:
		cases := make([]*ir.Case, len(t.Cases))
		for i, c := range t.Cases {
			cases[i] = ir.NewCase(c.X.(constant.Constant), block(c.Target))
		}
		nb.NewSwitch(val(t.X), block(t.TargetDefault), cases...)
	case *ir.TermUnreachable:
		nb.NewUnreachable()
	default:
		return false
	}
	return true
}

func isDebugIntrinsic(inst ir.Instruction) bool {
	c, ok := inst.(*ir.InstCall)
	if !ok {
		return false
	}
	f, ok := c.Callee.(*ir.Func)
	return ok && len(f.Name()) > 9 && f.Name()[:9] == "llvm.dbg."
}

// takeAdjoint loads the adjoint of primal value v (of type t) in blk and
// zeroes its slot: the adjoint is consumed where v's reverse runs.
func (r *reverseGen) takeAdjoint(blk *ir.Block, v value.Value, t types.Type) value.Value {
	s := r.adjSlot(v)
	d := blk.NewLoad(t, s)
	blk.NewStore(rules.AdjZero(t), s)
	return d
}

// adjSlot returns the adjoint slot of primal value v, creating it zeroed.
func (r *reverseGen) adjSlot(v value.Value) *ir.InstAlloca {
	if s, ok := r.adj[v]; ok {
		return s
	}
	s := r.newSlot(v.Type(), rules.AdjZero(v.Type()))
	r.adj[v] = s
	return s
}

// accumulate adds delta to the adjoint of primal value v, emitting into blk
// (field by field for aggregates such as a forward derivative's {y, dy}).
// Constants and inactive values have no adjoint.
func (r *reverseGen) accumulate(blk *ir.Block, v, delta value.Value) {
	v = irfacts.Unwrap(v)
	if !r.act.Active(v) {
		return
	}
	s := r.adjSlot(v)
	old := blk.NewLoad(v.Type(), s)
	blk.NewStore(addAggregate(blk, old, delta, v.Type(), nil), s)
}

// lookup returns, for code emitted in the reverse of primal block at, the
// forward value of primal value v: reused where the forward definition
// dominates, otherwise loaded from the cache the forward sweep filled.
func (r *reverseGen) lookup(blk *ir.Block, at *ir.Block, v value.Value) value.Value {
	v = irfacts.Unwrap(v)
	fv := r.mapValue(v)
	def, isInst := r.blockOf[v]
	if !isInst {
		return fv // constants, globals, parameters
	}
	return r.lookupForward(blk, at, fv, def)
}

// lookupForward is lookup for a forward value fv defined in primal block def.
func (r *reverseGen) lookupForward(blk *ir.Block, at *ir.Block, fv value.Value, def *ir.Block) value.Value {
	return r.lookupAt(blk, at, fv, def, 0)
}

// lookupAt is lookupForward at a recomputation depth: reuse the forward
// value where it dominates, else recompute it (remat.go), else cache it.
func (r *reverseGen) lookupAt(blk *ir.Block, at *ir.Block, fv value.Value, def *ir.Block, depth int) value.Value {
	l := r.cfg.LoopOf[def]
	if l == nil && r.postDomRet[def] && !r.split {
		return fv
	}
	if v, ok := r.exitEntryLookup(blk, at, fv); ok {
		return v
	}
	if v, ok := r.recomputedEntryCount(blk, at, fv, depth); ok {
		return v
	}
	exit := l != nil && !l.Contains(at)
	if depth == 0 {
		r.recordRequest(fv, at, exit)
	}
	if exit && r.plannedExit(fv, at) {
		// Read after the loop: only the last iteration's value matters;
		// cache it where it is read, not once per iteration.
		return r.lookupAt(blk, at, r.exitCopy(fv, at), at, depth)
	}
	if r.slotOverReload(fv, l, at) {
		return blk.NewLoad(fv.Type(), r.valueSlot(fv, def))
	}
	if cached, _ := r.planned(fv); !cached {
		if v, ok := r.rematerialize(blk, at, fv, depth); ok {
			return v
		}
	}
	if exit {
		return r.lookupAt(blk, at, r.exitCopy(fv, at), at, depth)
	}
	if r.invariantShadowLoad(fv, l) {
		// A shadow load the same in every iteration of its loop
		// (invariantshadow.go): cached once per iteration of the loop
		// around.
		l = l.Parent
	} else if p, ok := r.primalOf[fv]; ok && l != nil {
		switch x := r.hoistLoop(p); {
		case x == l:
			// The same in every iteration of its loop: cached once per
			// iteration of the loop around (hoist.go).
			l = l.Parent
		case x != nil && !r.d.gpu: // GPU caches are sized statically (gpucache.go)
			return r.hoistedLookup(blk, at, r.hoistGroup(l, x), fv, def)
		}
	}
	if l == nil {
		return blk.NewLoad(fv.Type(), r.valueSlot(fv, def))
	}
	lc := r.loops[l]
	buf := r.recordField(lc, fv, def, lc.fwdIdx)
	idx := value.Value(blk.NewLoad(types.I64, lc.counter))
	if !l.Contains(at) {
		// Outside the loop's reverse: the value of its last iteration.
		idx = blk.NewSub(idx, constant.NewInt(types.I64, 1))
	}
	return r.readField(blk, lc, buf, idx)
}

// slotOverReload reports whether forward value fv, a load outside every
// loop (l nil) read in the reverse of a loop, is kept in a slot (a register
// after mem2reg) rather than reloaded where it is read: a reload in the
// reverse loop's body stays there wherever the loop stores through a
// pointer the optimizer cannot tell apart from the load's (a caller's
// shadow, an untagged load), once per iteration. Combined mode only: in a
// split pair the slot would be a field of the tape.
func (r *reverseGen) slotOverReload(fv value.Value, l *irutil.Loop, at *ir.Block) bool {
	if l != nil || r.split || r.d.gpu || r.cfg.LoopOf[at] == nil {
		return false
	}
	_, isLoad := fv.(*ir.InstLoad)
	_, primal := r.primalOf[fv]
	return isLoad && primal
}

// valueSlot returns the cache slot of forward value fv, defined outside
// every loop in primal block def, stored at the end of def's forward copy
// on first use.
func (r *reverseGen) valueSlot(fv value.Value, def *ir.Block) *ir.InstAlloca {
	s, ok := r.slots[fv]
	if !ok {
		if s = r.exclusiveSlot(fv.Type(), def); s == nil {
			s = r.newCacheSlot(fv.Type(), nil)
			r.slotOrder = append(r.slotOrder, s)
		}
		r.slots[fv] = s
		r.slotDefs[s] = append(r.slotDefs[s], def)
		r.storeInForward(def, fv, s)
	}
	return s
}

// exitUse is a forward value defined in a loop, read in primal block at
// after the loop.
type exitUse struct {
	v  value.Value
	at *ir.Block
}

// exitCopy returns a copy of forward value fv (defined in a loop) made at
// the end of the forward copy of primal block at, outside that loop.
func (r *reverseGen) exitCopy(fv value.Value, at *ir.Block) value.Value {
	key := exitUse{fv, at}
	if c, ok := r.exitCopies[key]; ok {
		return c
	}
	c := ir.NewSelect(constant.True, fv, fv)
	tail := r.fwdTail[at]
	tail.Insts = append(tail.Insts, c)
	r.blockOf[c] = at
	if r.exitCopies == nil {
		r.exitCopies = map[exitUse]value.Value{}
	}
	r.exitCopies[key] = c
	return c
}

// storeInForward stores fv into slot at the end of the forward copy of def.
func (r *reverseGen) storeInForward(def *ir.Block, fv value.Value, slot *ir.InstAlloca) {
	tail := r.fwdTail[def]
	tail.Insts = append(tail.Insts, ir.NewStore(fv, slot))
}

// reverseBlock emits rev(b): the adjoints of b's instructions in reverse
// order, then the transfer of phi adjoints along the edge back to the
// predecessor the forward sweep came from.
func (r *reverseGen) reverseBlock(b *ir.Block) error {
	blk := r.rev[b]
	for i := len(b.Insts) - 1; i >= 0; i-- {
		inst := b.Insts[i]
		if _, ok := inst.(*ir.InstPhi); ok {
			continue
		}
		var err error
		if blk, err = r.reverseInst(blk, b, inst); err != nil {
			return err
		}
	}
	// Phi adjoints: read and clear them here, hand them to the incoming
	// values on the edge taken.
	type phiAdj struct {
		phi *ir.InstPhi
		d   value.Value
	}
	var pas []phiAdj
	for _, inst := range b.Insts {
		p, ok := inst.(*ir.InstPhi)
		if !ok || !r.act.Active(p) {
			continue
		}
		pas = append(pas, phiAdj{p, r.takeAdjoint(blk, p, p.Typ)})
	}
	preds := r.cfg.Preds[b]
	if len(preds) == 0 {
		blk.NewBr(r.exit)
		return nil
	}
	r.zeroSkipGuard(blk, b)
	edges := make([]*ir.Block, len(preds))
	for k, p := range preds {
		e := r.g.NewBlock("")
		r.noteExitEdge(e, p, b)
		for _, pa := range pas {
			if x, ok := irfacts.IncomingFrom(pa.phi, p); ok {
				r.accumulate(e, x, pa.d)
			}
		}
		// Leaving a loop iteration backward, or entering a loop from
		// below: step the iteration counters back.
		for l := r.cfg.LoopOf[p]; l != nil; l = l.Parent {
			if !l.Contains(b) || l.Header == b {
				lc := r.loops[l]
				c := e.NewLoad(types.I64, lc.counter)
				e.NewStore(e.NewSub(c, constant.NewInt(types.I64, 1)), lc.counter)
			}
		}
		last := e
		if l := r.cfg.LoopOf[b]; l != nil && l.Header == b && !l.Contains(p) {
			last = r.flushPartials(e, l) // leaving the loop's reverse
			r.resetChainFlags(last, b)
			if err := r.flushLoopSums(last, l, p); err != nil {
				return err
			}
		}
		last.NewBr(r.rev[p])
		r.noteZeroSkipEdge(e, p, b)
		if l := r.cfg.LoopOf[b]; l != nil && l.Header == b && l.Contains(p) {
			r.markReverseLatch(e, l)
		}
		edges[k] = e
	}
	if len(preds) == 1 {
		blk.NewBr(edges[0])
		return nil
	}
	if c0, ok := r.entryCount[b]; ok {
		outside, latch, _ := r.primal().SimpleHeader(b)
		l := r.cfg.LoopOf[b]
		cur := blk.NewLoad(types.I64, r.loops[l].counter)
		entry := r.lookupForward(blk, b, c0, outside)
		r.relativeRead(l, cur, entry)
		first := blk.NewICmp(enum.IPredEQ, cur, entry)
		blk.NewCondBr(first, edges[predIndex(preds, outside)], edges[predIndex(preds, latch)])
		return nil
	}
	if cond, t, f, byIndex, ok := r.mergeDecision(b); ok && !byIndex {
		// The branch that decides it: ending a predecessor (triangle),
		// both predecessors' (diamond), or further up (counters.go); the
		// same one merge phis are rebuilt by (mergephi.go).
		blk.NewCondBr(r.lookup(blk, b, cond), edges[predIndex(preds, t)], edges[predIndex(preds, f)])
		return nil
	}
	if len(preds) > 2 {
		if tree, ok := r.decisionTree(b); ok {
			// Branches that decide it, further up (decide.go).
			r.emitDecision(blk, b, tree, preds, edges)
			return nil
		}
	}
	if tree, ok := r.pathDecision(b); ok {
		// The paths from b's dominator, under conditions invariant in
		// b's loop (pathdecide.go).
		r.emitDecision(blk, b, tree, preds, edges)
		return nil
	}
	idx := r.lookupForward(blk, b, r.predIdx[b], b)
	cases := make([]*ir.Case, len(preds)-1)
	for k := range cases {
		cases[k] = ir.NewCase(constant.NewInt(predIdxType(len(preds)), int64(k)), edges[k])
	}
	blk.NewSwitch(idx, edges[len(preds)-1], cases...)
	return nil
}

// predIdxType is the integer type recording which of n predecessors the
// forward sweep came from (a byte per iteration in the common case).
func predIdxType(n int) *types.IntType {
	if n <= 256 {
		return types.I8
	}
	return types.I32
}

// triangle recognizes a block b entered either straight from p or through
// q, where q has no other predecessor than p and branches to b: p ends in
// a conditional branch on cond, taking b directly when cond is pOnTrue.
func (r *reverseGen) triangle(b *ir.Block) (p, q *ir.Block, cond value.Value, pOnTrue, ok bool) {
	preds := r.cfg.Preds[b]
	if len(preds) != 2 {
		return nil, nil, nil, false, false
	}
	for _, order := range [][2]*ir.Block{{preds[0], preds[1]}, {preds[1], preds[0]}} {
		p, q := order[0], order[1]
		qp := r.cfg.Preds[q]
		br, isCond := p.Term.(*ir.TermCondBr)
		qbr, isBr := q.Term.(*ir.TermBr)
		if len(qp) != 1 || qp[0] != p || !isCond || !isBr || qbr.Target != b {
			continue
		}
		t, f := br.TargetTrue.(*ir.Block), br.TargetFalse.(*ir.Block)
		switch {
		case t == b && f == q:
			return p, q, br.Cond, true, true
		case t == q && f == b:
			return p, q, br.Cond, false, true
		}
	}
	return nil, nil, nil, false, false
}

// diamond recognizes a block b whose two predecessors p and q each have
// one predecessor, the same block, ending in a conditional branch on cond
// to p (when true) and q.
func (r *reverseGen) diamond(b *ir.Block) (p, q *ir.Block, cond value.Value, ok bool) {
	preds := r.cfg.Preds[b]
	if len(preds) != 2 || preds[0] == preds[1] {
		return nil, nil, nil, false
	}
	a, c := r.cfg.Preds[preds[0]], r.cfg.Preds[preds[1]]
	if len(a) != 1 || len(c) != 1 || a[0] != c[0] {
		return nil, nil, nil, false
	}
	br, isCond := a[0].Term.(*ir.TermCondBr)
	if !isCond {
		return nil, nil, nil, false
	}
	t, f := br.TargetTrue.(*ir.Block), br.TargetFalse.(*ir.Block)
	switch {
	case t == preds[0] && f == preds[1]:
		return preds[0], preds[1], br.Cond, true
	case t == preds[1] && f == preds[0]:
		return preds[1], preds[0], br.Cond, true
	}
	return nil, nil, nil, false
}

// edgeCount is the number of edges from p to b: a switch may branch to
// the same block by several cases (or a branch by both ways), and a phi of b
// has an entry for each.
func edgeCount(p, b *ir.Block) int {
	n := 0
	count := func(t value.Value) {
		if t == b {
			n++
		}
	}
	switch t := p.Term.(type) {
	case *ir.TermCondBr:
		count(t.TargetTrue)
		count(t.TargetFalse)
	case *ir.TermSwitch:
		count(t.TargetDefault)
		for _, c := range t.Cases {
			count(c.Target)
		}
	default:
		return 1
	}
	return n
}

func predIndex(preds []*ir.Block, b *ir.Block) int {
	for i, p := range preds {
		if p == b {
			return i
		}
	}
	panic("not a predecessor")
}

// finishExit fills the exit block: gather the Out adjoints, free the caches,
// return.
func (r *reverseGen) finishExit() {
	x := r.exit
	frees := map[*ir.InstAlloca][]ir.Instruction{}
	for _, s := range r.frees {
		if r.d.gpu {
			break // caches in local memory (gpucache.go)
		}
		p := x.NewLoad(s.ElemType, s)
		bc := x.NewBitCast(p, types.I8Ptr)
		fc := x.NewCall(libc(r.m, "free"), bc)
		r.tapeMem = append(r.tapeMem, fc)
		frees[s] = []ir.Instruction{p, bc, fc}
	}
	if !r.d.gpu {
		r.noteRetainable(frees)
	}
	for _, c := range r.deferredFrees {
		args := make([]value.Value, len(c.Args))
		for i, a := range c.Args {
			if slots, ok := r.freeSlots[c]; ok {
				args[i] = x.NewLoad(slots[i].ElemType, slots[i])
			} else {
				args[i] = r.mapValue(irfacts.Unwrap(a))
			}
		}
		x.NewCall(c.Callee, args...)
	}
	var outs []value.Value
	for i, p := range r.f.Params {
		if r.acts[i] == activity.Out {
			if r.act.Active(p) {
				var o value.Value = x.NewLoad(p.Typ, r.adjSlot(p))
				if irfacts.IsFloat(p.Typ) || isVectorOfFloat(p.Typ) {
					o = x.NewFAdd(o, rules.ZeroOf(p.Typ)) // an untouched adjoint is -0.0 (rules.AdjZero): return +0.0
				}
				outs = append(outs, o)
			} else {
				outs = append(outs, rules.ZeroOf(p.Typ))
			}
		}
	}
	switch len(outs) {
	case 0:
		x.NewRet(nil)
	case 1:
		x.NewRet(outs[0])
	default:
		var agg value.Value = constant.NewUndef(r.g.Sig.RetType)
		for i, o := range outs {
			agg = x.NewInsertValue(agg, o, uint64(i))
		}
		x.NewRet(agg)
	}
}

// finishLoops adds the buffer growth checks of every loop that caches
// values: in the forward header, when the iteration index reaches the
// capacity, double it (at least 8, at least what the trip counts reserve,
// see tripcount.go; exactly the reservation on the first growth when it
// covers the index) and realloc the loop's buffer of records. Where exact
// trip counts bound the records of a whole loop nest, the check is made
// once on entry to the nest instead (entrygrow.go). The records' layouts
// are fixed first (recordLayout).
func (r *reverseGen) finishLoops() {
	for _, l := range r.cfg.Loops {
		recordLayout(r.loops[l])
	}
	for _, h := range r.hoists {
		recordLayout(h.lc)
	}
	for _, l := range r.cfg.Loops {
		type group struct {
			lc        *loopCache
			idx, need value.Value
		}
		var groups []group
		if lc := r.loops[l]; lc.rec != nil {
			if top, chain, ok := r.entryGrowth(l); ok {
				var need value.Value
				if further, _ := r.nestChain(l, nil, false); further != top {
					need = r.reservation(l)
				}
				r.growOnEntry(top, chain, lc, need)
			} else {
				groups = append(groups, group{lc, lc.fwdIdx, r.reservation(l)})
			}
		}
		for _, h := range r.hoists {
			if h.inner == l && h.lc.rec != nil {
				groups = append(groups, group{h.lc, h.idx, r.reserve(l, h.over, h.lc.counter)})
			}
		}
		if len(groups) == 0 {
			continue
		}
		cur, tail := r.fwdHead[l.Header], r.fwdTail[l.Header]
		cur.Term = nil
		for k, gr := range groups {
			next := tail
			if k < len(groups)-1 {
				next = r.g.NewBlock("")
			}
			idx := gr.idx
			r.growRecords(cur, gr.lc, func(b *ir.Block, capv value.Value) value.Value { return b.NewICmp(enum.IPredUGE, idx, capv) }, gr.need, next)
			cur = next
		}
	}
}

// growRecords ends block cur with the growth check of lc's buffer: when
// full (emitted into the block given, for a capacity) holds, the buffer
// grows to twice its capacity, at least 8 records and at least need (when
// not nil; exactly need on the first growth where need is not full), and
// execution goes on at next. An allocation that fails traps.
func (r *reverseGen) growRecords(cur *ir.Block, lc *loopCache, full func(b *ir.Block, capv value.Value) value.Value, need value.Value, next *ir.Block) {
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	grow, failed := r.g.NewBlock(""), r.g.NewBlock("")
	capv := cur.NewLoad(types.I64, lc.cap)
	cur.NewCondBr(full(cur, capv), grow, next)
	doubled := grow.NewShl(capv, i64(1))
	var ncap value.Value = grow.NewSelect(grow.NewICmp(enum.IPredULT, doubled, i64(8)), i64(8), doubled)
	if need != nil {
		// Grow to what the trip counts say the loop nest needs: exactly
		// that on the first growth where it suffices (no rounding up to
		// 8), at least that later on.
		ncap = grow.NewSelect(grow.NewICmp(enum.IPredUGT, need, ncap), need, ncap)
		suffices := grow.NewXor(full(grow, need), constant.NewBool(true))
		first := grow.NewAnd(grow.NewICmp(enum.IPredEQ, capv, i64(0)), suffices)
		ncap = grow.NewSelect(first, need, ncap)
	}
	grow.NewStore(ncap, lc.cap)
	slot := lc.slot
	old := grow.NewLoad(slot.ElemType, slot)
	// More records than an address space holds: ask for SIZE_MAX bytes,
	// which fails, rather than for a product that wrapped around.
	huge := grow.NewICmp(enum.IPredUGT, ncap, i64(1<<48))
	bytes := grow.NewSelect(huge, i64(-1), grow.NewMul(ncap, sizeOf(lc.rec)))
	np := grow.NewCall(libc(r.m, "realloc"), grow.NewBitCast(old, types.I8Ptr), bytes)
	r.tapeMem = append(r.tapeMem, np)
	grow.NewStore(grow.NewBitCast(np, slot.ElemType), slot)
	got := r.g.NewBlock("")
	grow.NewCondBr(grow.NewICmp(enum.IPredEQ, np, constant.NewNull(types.I8Ptr)), failed, got)
	r.adviseRecords(got, np, bytes, next)
	failed.NewCall(rules.Declare(r.m, "llvm.trap", types.Void))
	failed.NewUnreachable()
}

// sizeOf is the allocation size of t as an i64 constant expression
// (the getelementptr-from-null idiom, independent of the data layout).
func sizeOf(t types.Type) constant.Constant {
	pt := types.NewPointer(t)
	gep := constant.NewGetElementPtr(t, constant.NewNull(pt), constant.NewInt(types.I64, 1))
	return constant.NewPtrToInt(gep, types.I64)
}

// libc declares (once) and returns free or realloc.
func libc(m *ir.Module, name string) *ir.Func {
	switch name {
	case "free":
		return rules.Declare(m, "free", types.Void, types.I8Ptr)
	case "realloc":
		return rules.Declare(m, "realloc", types.I8Ptr, types.I8Ptr, types.I64)
	}
	panic(fmt.Sprintf("libc: %s", name))
}
