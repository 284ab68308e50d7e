package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Reverse loops skipped where their adjoints are zero by construction. A
// loop whose result only a select (or fmin/fmax) passes on, as the
// distance loop of a nearest-centroid search (best = min(best, dist(i,
// j))) or a dot product under a ReLU, receives in its reverse the adjoint
// select(c, d, -0): zero in every execution the select did not pick. Its
// reverse then adds zero times a partial into every adjoint and shadow it
// touches, iteration by iteration. Where the condition says so, the
// reverse skips the loop instead.
//
// Sound when nothing else reaches the loop's reverse: the loop is
// innermost, left only from one exiting block p to a block E with p its
// only predecessor; every use outside the loop of an active value of the
// loop is a comparison, an inactive instruction without effects, a select
// in E with the value as one arm (not the condition), an fmin/fmax call in
// E with a pick (pick.go) with the value as one of its two arguments, or a
// one-entry phi in E whose own uses are such; and the loop writes no
// memory and calls nothing but math functions with derivative rules
// (pointer-free). Then the adjoints entering the loop's reverse are those
// selects' terms, each -0 (AdjZero) where its condition is false; the loop
// reads no shadow (no store's reverse), so every adjoint and shadow
// addition in its reverse is linear in them: the reverse adds d · ∂ with d
// zero, which changes no value (0 · ∂ where ∂ is infinite or NaN is the
// one difference: the skipped loop adds nothing, as Enzyme's strong-zero
// mode does, where the derivative of a value min/max did not pick is 0).
// The condition is a discrete value of the primal, so the skip holds under
// forward mode over the gradient too (forward-over-reverse): the tangent of
// select(c, d, -0) is select(c, ḋ, 0), zero where the skip is taken, which
// a test of the adjoint's value (zero adjoint, nonzero tangent) would not
// give.
//
// The skipped reverse leaves the state the loop's reverse would: the
// loop's iteration counter back at its value on entry (records are indexed
// by it, not popped; the entry counter is the one the reverse header
// compares with), the adjoint slots of the loop's live-out values cleared
// (they hold -0 already), and nothing in the loop's own slots or sums
// (loopsum.go's are cleared on each exit, and nothing was added).

// skipUse is one select (or pick) term guarding a skip: the loop's reverse
// runs where cond (negated when neg) holds.
type skipUse struct {
	sel   *ir.InstSelect // a select in E, or
	call  *ir.InstCall   // an fmin/fmax call in E
	arg   int            // the call's argument that is the loop's value
	chain *ir.InstPhi    // or a chain's phi in E, a loop header (minchain.go)
	neg   bool           // the loop's value is the select's false arm
}

// zeroSkip is a planned skip of loop l's reverse, entered from below on
// the reverse edge block e of the exit p -> E.
type zeroSkip struct {
	l     *irutil.Loop
	p     *ir.Block // l's exiting block
	exit  *ir.Block // the block l exits into, whose reverse enters l's from below
	e     *ir.Block // the reverse edge block of p -> exit
	guard value.Value
	live  []value.Value // active values of l used outside it: slots cleared on the skip
}

// zeroSkipPlan returns, for primal block b, the loop l exiting into b
// whose reverse may be skipped: l's exiting block p, the block exit l
// exits into (b, or a block between p and b that only forwards: one
// predecessor, a branch to b, no active instruction, no call), the select
// terms deciding it and l's active live-out values; ok false where the
// conditions above fail. b may also be the header of a loop beside l
// whose running-minimum chain (minchain.go) alone passes l's values on:
// the chain's flag, read once that loop's reverse is done, decides.
func (r *reverseGen) zeroSkipPlan(b *ir.Block) (s *zeroSkip, uses []skipUse, ok bool) {
	if r.parallel || r.d.gpu {
		return nil, nil, false
	}
	var l *irutil.Loop
	var p, exit, from *ir.Block // from: b's predecessor on l's side
	for _, q := range r.cfg.Preds[b] {
		qp, qx := q, b
		if fp := r.cfg.Preds[q]; r.forwards(q, b) && len(fp) == 1 {
			qp, qx = fp[0], q
		}
		ql := r.cfg.LoopOf[qp]
		if ql == nil || ql.Contains(qx) {
			continue
		}
		if p != nil {
			return nil, nil, false // two loops (or two exits) end here
		}
		l, p, exit, from = ql, qp, qx, q
	}
	if l == nil || r.cfg.LoopOf[exit] != r.cfg.LoopOf[b] {
		return nil, nil, false
	}
	// header: l exits into the header of a sibling loop, whose chains'
	// phis alone may pass its values on (minchain.go).
	header := false
	if bl := r.cfg.LoopOf[b]; bl != l.Parent {
		if bl == nil || bl.Header != b || bl.Parent != l.Parent || exit != b {
			return nil, nil, false
		}
		header = true
	}
	if _, _, simple := r.primal().SimpleHeader(l.Header); !simple {
		return nil, nil, false
	}
	if _, counted := r.entryCount[l.Header]; !counted {
		return nil, nil, false
	}
	defined := map[value.Value]bool{}
	for _, blk := range r.f.Blocks {
		if !l.Contains(blk) {
			continue
		}
		if r.cfg.LoopOf[blk] != l {
			return nil, nil, false // not innermost
		}
		switch blk.Term.(type) {
		case *ir.TermBr, *ir.TermCondBr, *ir.TermSwitch, *ir.TermUnreachable:
		default:
			return nil, nil, false
		}
		for _, x := range irutil.Succs(blk) {
			if !l.Contains(x) && (x != exit || blk != p) {
				return nil, nil, false
			}
		}
		for _, inst := range blk.Insts {
			if !r.skipSafe(inst) {
				return nil, nil, false
			}
			if v, isValue := inst.(value.Value); isValue && r.act.Active(v) {
				if !irfacts.CarriesFloat(v.Type()) {
					// An active pointer or integer: its uses
					// outside are not followed.
					for _, u := range r.skipUsers()[v] {
						if ui, ok := u.(value.Value); !ok || r.blockOf[ui] == nil || !l.Contains(r.blockOf[ui]) {
							return nil, nil, false
						}
					}
					continue
				}
				defined[v] = true
			}
		}
	}
	// Every use outside l of its active values, and of the values of b
	// computed from them, contributes a select term or nothing.
	seen := map[value.Value]bool{}
	var live []value.Value
	var visit func(v value.Value) bool
	visit = func(v value.Value) bool {
		if seen[v] {
			return true
		}
		seen[v] = true
		if defined[v] {
			live = append(live, v)
		}
		for _, u := range r.skipUsers()[v] {
			inst, isInst := u.(ir.Instruction)
			iv, isValue := u.(value.Value)
			if !isInst || !isValue {
				return false // a terminator or a store
			}
			ub := r.blockOf[iv]
			if ub != nil && l.Contains(ub) {
				if !defined[v] {
					return false // a value of b back in l: around a loop
				}
				continue
			}
			if !r.skipUse(inst, ub, b, from, v, defined[v], header, &uses, visit) {
				return false
			}
		}
		return true
	}
	for _, blk := range r.f.Blocks {
		if !l.Contains(blk) {
			continue
		}
		for _, inst := range blk.Insts {
			if v, isValue := inst.(value.Value); isValue && defined[v] && !visit(v) {
				return nil, nil, false
			}
		}
	}
	if len(uses) == 0 {
		return nil, nil, false
	}
	return &zeroSkip{l: l, p: p, exit: exit, live: live}, uses, true
}

// forwards reports whether primal block x only passes control from its
// one predecessor on to b: a branch to b after instructions whose reverse
// does nothing (inactive, no call).
func (r *reverseGen) forwards(x, b *ir.Block) bool {
	if br, ok := x.Term.(*ir.TermBr); !ok || br.Target != b {
		return false
	}
	for _, inst := range x.Insts {
		v, isValue := inst.(value.Value)
		if _, isCall := inst.(*ir.InstCall); !isValue || isCall || r.act.Active(v) || !r.skipSafe(inst) {
			return false
		}
	}
	return true
}

// skipUsers is the primal's users map (capture.go's), built on first use.
func (r *reverseGen) skipUsers() map[value.Value][]interface{} {
	if r.users == nil {
		r.users = usersOf(r.f)
	}
	return r.users
}

// skipUse reports whether inst (in primal block ub, outside the loop) uses
// v (a value of the loop when inLoop, else one of exit block b computed
// from them) in a way the skip allows, adding the select terms it
// contributes; visit follows the values of b computed from v, whose
// reverse runs in b's before the guard.
func (r *reverseGen) skipUse(inst ir.Instruction, ub, b, from *ir.Block, v value.Value, inLoop, header bool, uses *[]skipUse, visit func(value.Value) bool) bool {
	switch inst.(type) {
	case *ir.InstICmp, *ir.InstFCmp:
		return true
	}
	if !r.act.Active(inst.(value.Value)) {
		// No adjoint flows back through it; a call's reverse may still
		// touch memory.
		_, isCall := inst.(*ir.InstCall)
		return !isCall && r.skipSafe(inst)
	}
	if ub != b {
		return false
	}
	if header {
		// b's reverse runs in every iteration of its loop, the guard's
		// value is the last one's: only a chain's flag, read after the
		// loop's whole reverse, decides there.
		x, isPhi := inst.(*ir.InstPhi)
		if !isPhi || !inLoop || r.minChainSelect(x) == nil {
			return false
		}
		for _, inc := range x.Incs {
			if irfacts.Unwrap(inc.X) == v && inc.Pred != from {
				return false
			}
		}
		*uses = append(*uses, skipUse{chain: x})
		return true
	}
	switch x := inst.(type) {
	case *ir.InstSelect:
		t, f := irfacts.Unwrap(x.ValueTrue) == v, irfacts.Unwrap(x.ValueFalse) == v
		if t != f && types.Equal(x.Cond.Type(), types.I1) {
			*uses = append(*uses, skipUse{sel: x, neg: f})
			return true
		}
	case *ir.InstCall:
		if isDebugIntrinsic(x) {
			return true
		}
		if f, isFunc := irutil.StripCasts(x.Callee).(*ir.Func); isFunc && len(f.Blocks) == 0 && len(x.Args) == 2 {
			rule := mathRuleOf(f, x.Typ)
			_, custom := r.customRule(x)
			a0, a1 := irfacts.Unwrap(x.Args[0]) == v, irfacts.Unwrap(x.Args[1]) == v
			if rule != nil && rule.Pick != nil && !custom && a0 != a1 {
				arg := 0
				if a1 {
					arg = 1
				}
				*uses = append(*uses, skipUse{call: x, arg: arg})
				return true
			}
		}
	case *ir.InstPhi:
		// v enters the phi only on the edge from the loop's side: the
		// phi's adjoint goes to v on that edge alone.
		if !inLoop {
			return false
		}
		for _, inc := range x.Incs {
			if irfacts.Unwrap(inc.X) == v && inc.Pred != from {
				return false
			}
		}
		return visit(x)
	}
	return r.skipSafe(inst) && visit(inst.(value.Value))
}

// skipSafe reports whether the reverse of primal instruction inst, in a
// loop, only adds multiples of its result's adjoint into adjoints and
// shadows: no write to memory (whose reverse reads and clears a shadow),
// no call but of a pointer-free math function with a rule.
func (r *reverseGen) skipSafe(inst ir.Instruction) bool {
	switch x := inst.(type) {
	case *ir.InstLoad:
		return !x.Volatile && !x.Atomic
	case *ir.InstCall:
		if isDebugIntrinsic(x) {
			return true
		}
		f, isFunc := irutil.StripCasts(x.Callee).(*ir.Func)
		if !isFunc || len(f.Blocks) > 0 || isBlasCall(x) || holdsPointers(x.Typ) {
			return false
		}
		if _, custom := r.customRule(x); custom {
			return false
		}
		for _, a := range x.Args {
			if holdsPointers(irfacts.Unwrap(a).Type()) {
				return false
			}
		}
		return mathRuleOf(f, x.Typ) != nil
	case *ir.InstPhi, *ir.InstGetElementPtr, *ir.InstSelect, *ir.InstFreeze,
		*ir.InstICmp, *ir.InstFCmp, *ir.InstFNeg,
		*ir.InstAdd, *ir.InstFAdd, *ir.InstSub, *ir.InstFSub, *ir.InstMul, *ir.InstFMul,
		*ir.InstUDiv, *ir.InstSDiv, *ir.InstFDiv, *ir.InstURem, *ir.InstSRem, *ir.InstFRem,
		*ir.InstShl, *ir.InstLShr, *ir.InstAShr, *ir.InstAnd, *ir.InstOr, *ir.InstXor,
		*ir.InstTrunc, *ir.InstZExt, *ir.InstSExt, *ir.InstFPTrunc, *ir.InstFPExt,
		*ir.InstFPToUI, *ir.InstFPToSI, *ir.InstUIToFP, *ir.InstSIToFP,
		*ir.InstPtrToInt, *ir.InstIntToPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast,
		*ir.InstExtractValue, *ir.InstInsertValue,
		*ir.InstExtractElement, *ir.InstInsertElement, *ir.InstShuffleVector:
		return true
	}
	return false
}

// zeroSkipGuard emits, at the end of blk (the reverse of primal block b,
// after its instructions), whether the reverse of a loop exiting into b
// (or into a block forwarding to b) must run, when that loop's reverse may
// be skipped; it notes the skip for the reverse of the exit block
// (noteZeroSkipEdge).
func (r *reverseGen) zeroSkipGuard(blk, b *ir.Block) {
	s, uses, ok := r.zeroSkipPlan(b)
	if !ok {
		return
	}
	var guard value.Value
	for _, u := range uses {
		var c value.Value
		if u.chain != nil {
			flag := r.chainLive[u.chain]
			if flag == nil {
				return // the chain's select kept no flag
			}
			c = blk.NewLoad(types.I1, flag)
		} else if u.sel != nil {
			c = r.lookup(blk, b, u.sel.Cond)
			other := u.sel.ValueFalse
			if u.neg {
				c = blk.NewXor(c, constant.True)
				other = u.sel.ValueTrue
			}
			c = r.chainGuard(blk, u.sel, other, c)
		} else {
			c = r.pickedValue(blk, b, u.call)
			if c == nil {
				f := irutil.StripCasts(u.call.Callee).(*ir.Func)
				rule := mathRuleOf(f, u.call.Typ)
				c = rule.Pick(&rules.Builder{M: r.m, B: blk}, r.lookup(blk, b, u.call.Args[0]), r.lookup(blk, b, u.call.Args[1]))
			}
			if u.arg == 1 {
				c = blk.NewXor(c, constant.True)
			}
		}
		if guard == nil {
			guard = c
		} else {
			guard = blk.NewOr(guard, c)
		}
	}
	s.guard = guard
	if r.skipAt == nil {
		r.skipAt = map[*ir.Block]*zeroSkip{}
	}
	r.skipAt[s.exit] = s
}

// noteZeroSkipEdge remembers e, the reverse edge block of primal edge
// p -> b, where a skip planned for b's reverse enters its loop's.
func (r *reverseGen) noteZeroSkipEdge(e, p, b *ir.Block) {
	if s := r.skipAt[b]; s != nil && s.p == p {
		s.e = e
		r.zeroSkips = append(r.zeroSkips, s)
	}
}

// finishZeroSkips puts each planned skip on its edge, after the blocks the
// edge runs before entering the loop's reverse (finishExitEntries'): where
// the guard fails, the counter gets its entry value, the live-out adjoints
// are cleared and the reverse goes on at the reverse of the loop's
// preheader.
func (r *reverseGen) finishZeroSkips() {
	for _, s := range r.zeroSkips {
		l := s.l
		outside, _, _ := r.primal().SimpleHeader(l.Header)
		if _, recomputed := r.exitEntry(l); recomputed && r.exitSlots[l] == nil {
			continue // the reverse header did not read the slot: no entry value on the edge
		}
		last := s.e
		for {
			br, isBr := last.Term.(*ir.TermBr)
			if !isBr {
				last = nil
				break
			}
			if br.Target == r.rev[s.p] {
				break
			}
			last = br.Target.(*ir.Block)
		}
		if last == nil {
			continue
		}
		run, skip := r.g.NewBlock(""), r.g.NewBlock("")
		retarget(last.Term, r.rev[s.p], run)
		run.NewCondBr(s.guard, r.rev[s.p], skip)
		entry := r.lookupForward(skip, l.Header, r.entryCount[l.Header], outside)
		skip.NewStore(entry, r.loops[l].counter)
		for _, v := range s.live {
			skip.NewStore(rules.AdjZero(v.Type()), r.adjSlot(v))
		}
		skip.NewBr(r.rev[outside])
	}
}
