package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Two versions of an inner loop's forward copy. The optimizer after AD
// vectorizes a loop behind a minimum-count test and run-time overlap checks
// and leaves it through a scalar remainder; an inner loop is entered once
// per iteration of the loops around it, so a short one pays for the vector
// loop's entry and the scalar path's setup on every entry without running
// it (GMM's triangle of d = 2 or 10), while a long one runs mostly vector
// code (GMM's d = 64, an ODE's stages over n = 1000). versionLoops gives
// each innermost forward copy of a nested loop that gradientLoopID marked
// (versionTwins) two versions: the copy as made, left to the vectorizer,
// entered where the loop runs at least versionMinTrip iterations, and a
// copy of it with the scalar twin's hints (vectorize width 1, interleave
// 1), entered otherwise. Both compute the same thing: the trip count only
// picks the version, so an estimate that is off (a loop whose count is
// not start to bound by one) costs time, never a wrong value. A loop whose
// shape admits no versioning (more than one exit, calls, no count) gets
// the scalar twin's hints alone, as before versioning. Where the count is
// invariant in the loops around the copy, the optimizer's unswitching may
// hoist the choice out of them.
//
// A gradient's inner reverse loops get two versions the same way, their
// count read from the counter's slot (slotcounter.go); the short one keeps
// the scalar twin's hints alone, as before versioning (LLVM may unroll it).
// A reverse loop adding into a slot from one iteration to the next
// (carriesFloatSum) is not versioned: the vectorizer leaves it scalar.

// versionMinTrip is the fewest iterations the vector version is entered
// for: twice the vectorizer's minimum count of 4 lanes times interleave 2,
// so that most of a vector version's iterations are vector ones.
const versionMinTrip = 16

// versionMaxInsts bounds the size of a loop given two versions.
const versionMaxInsts = 120

// versionLoops versions the marked loops of the functions AD made in m
// (those not in user) and gives every marked loop it does not version its
// scalar twin's ID.
func (d *differ) versionLoops(m *ir.Module, user map[*ir.Func]bool) error {
	if len(d.versionTwins) == 0 {
		return nil
	}
	for _, f := range m.Funcs {
		if user[f] || len(f.Blocks) == 0 {
			continue
		}
		if err := d.versionFunc(f); err != nil {
			return err
		}
	}
	return nil
}

// versionFunc versions f's marked innermost loops and points the latches of
// the rest at their scalar twins.
func (d *differ) versionFunc(f *ir.Func) error {
	marked := false
	for _, b := range f.Blocks {
		if id := termLoopID(b); id != nil && d.versionTwins[id] != nil {
			marked = true
			break
		}
	}
	if !marked {
		return nil
	}
	kept := map[*ir.Block]bool{} // latches of vector versions
	if cfg, err := irutil.NewCFG(f); err == nil {
		outer := map[*irutil.Loop]bool{}
		for _, l := range cfg.Loops {
			if l.Parent != nil {
				outer[l.Parent] = true
			}
		}
		for _, l := range cfg.Loops {
			id := latchID(l, func(b *ir.Block) ir.Terminator { return b.Term })
			twin := d.versionTwins[id]
			if twin == nil || outer[l] {
				continue
			}
			if d.versionLoop(f, cfg, l, twin) {
				for _, b := range l.Latches {
					kept[b] = true
				}
			}
		}
	}
	for _, b := range f.Blocks {
		md := termMetadata(b.Term)
		if md == nil || kept[b] {
			continue
		}
		for _, a := range *md {
			if t, ok := a.Node.(*metadata.Tuple); ok && a.Name == "llvm.loop" && d.versionTwins[t] != nil {
				a.Node = d.versionTwins[t]
			}
		}
	}
	if err := irutil.Renumber(f); err != nil {
		return fmt.Errorf("internal error: versioning the loops of %s: %v", f.Name(), err)
	}
	return nil
}

// noRuntimeUnrollHint keeps the optimizer from unrolling the short version
// at run time: its unrolled body and remainder loop cost more on entry than
// the few iterations it runs gain.
func noRuntimeUnrollHint() metadata.Field {
	return &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{&metadata.String{Value: "llvm.loop.unroll.runtime.disable"}}}
}

// termLoopID is the llvm.loop attachment of b's terminator, or nil.
func termLoopID(b *ir.Block) *metadata.Tuple {
	md := termMetadata(b.Term)
	if md == nil {
		return nil
	}
	return loopIDOf(*md)
}

// loopShape is what versioning a loop needs of it: the one block entering
// it (ending in a branch to the header), the one exit block and the one
// block leaving for it, and the trip count's operands.
type loopShape struct {
	pre, exit, exiting *ir.Block
	start, bound       value.Value // the counter's first value and the bound it is compared with
	down               bool        // the counter steps by -1
	// A counter kept in memory (a reverse loop's, slotcounter.go): the
	// slot it is loaded from, counting down, and the bound's slot where
	// the bound is reloaded in the loop (else bound).
	slot, boundSlot *ir.InstAlloca
}

// shapeOf returns l's shape, or false where l has more than one entering
// or exiting block, an exit block entered from outside l, a terminator
// other than br, calls other than to intrinsics, allocas, more than
// versionMaxInsts instructions, or no counter stepping by one from a
// value before the loop to a bound computed outside it.
func shapeOf(f *ir.Func, cfg *irutil.CFG, l *irutil.Loop) (loopShape, bool) {
	var s loopShape
	for _, p := range cfg.Preds[l.Header] {
		if l.Contains(p) {
			continue
		}
		if s.pre != nil {
			return s, false
		}
		s.pre = p
	}
	if s.pre == nil {
		return s, false
	}
	if br, ok := s.pre.Term.(*ir.TermBr); !ok || br.Target != l.Header {
		return s, false
	}
	n := 0
	defined := map[value.Value]bool{}
	for _, b := range f.Blocks {
		if !l.Contains(b) {
			continue
		}
		switch b.Term.(type) {
		case *ir.TermBr, *ir.TermCondBr:
		default:
			return s, false
		}
		for _, inst := range b.Insts {
			n++
			switch x := inst.(type) {
			case *ir.InstAlloca:
				return s, false
			case *ir.InstCall:
				callee, ok := x.Callee.(*ir.Func)
				if !ok || !strings.HasPrefix(callee.Name(), "llvm.") {
					return s, false
				}
			}
			if v, ok := inst.(value.Value); ok {
				defined[v] = true
			}
		}
		for _, succ := range irutil.Succs(b) {
			if l.Contains(succ) {
				continue
			}
			if (s.exit != nil && s.exit != succ) || (s.exiting != nil && s.exiting != b) {
				return s, false
			}
			s.exit, s.exiting = succ, b
		}
	}
	if n > versionMaxInsts || s.exit == nil {
		return s, false
	}
	br := s.exiting.Term.(*ir.TermCondBr)
	cmp, ok := br.Cond.(*ir.InstICmp)
	if !ok {
		return s, false
	}
	for _, pair := range [][2]value.Value{{cmp.X, cmp.Y}, {cmp.Y, cmp.X}} {
		counter, bound := pair[0], pair[1]
		if defined[bound] {
			continue
		}
		if _, ok := bound.Type().(*types.IntType); !ok {
			continue
		}
		if start, down, ok := stepOfOne(l, counter); ok && !defined[start] {
			s.start, s.bound, s.down = start, bound, down
			return s, true
		}
	}
	for _, pair := range [][2]value.Value{{cmp.X, cmp.Y}, {cmp.Y, cmp.X}} {
		if slot, bound, boundSlot, ok := slotCounter(f, l, pair[0], pair[1], defined); ok && !carriesFloatSum(f, l) {
			s.slot, s.bound, s.boundSlot, s.down = slot, bound, boundSlot, true
			return s, true
		}
	}
	return s, false
}

// stepOfOne reports whether v is a counter of l's header, or the counter
// plus its step, that steps by 1 or -1 (down) from start.
func stepOfOne(l *irutil.Loop, v value.Value) (value.Value, bool, bool) {
	phi, ok := v.(*ir.InstPhi)
	if add, isAdd := v.(*ir.InstAdd); isAdd {
		phi, ok = add.X.(*ir.InstPhi)
	}
	if !ok || len(phi.Incs) != 2 {
		return nil, false, false
	}
	inHeader := false
	for _, inst := range l.Header.Insts {
		if inst == ir.Instruction(phi) {
			inHeader = true
		}
	}
	if !inHeader {
		return nil, false, false
	}
	var start value.Value
	var step *ir.InstAdd
	for _, in := range phi.Incs {
		if l.Contains(in.Pred.(*ir.Block)) {
			if a, ok := in.X.(*ir.InstAdd); ok && a.X == value.Value(phi) {
				step = a
			}
		} else {
			start = in.X
		}
	}
	if step == nil || start == nil {
		return nil, false, false
	}
	if add, isAdd := v.(*ir.InstAdd); isAdd && add != step {
		return nil, false, false
	}
	c, ok := step.Y.(*constant.Int)
	if !ok || !c.X.IsInt64() || (c.X.Int64() != 1 && c.X.Int64() != -1) {
		return nil, false, false
	}
	return start, c.X.Int64() == -1, true
}

// versionLoop gives l a scalar version entered from its preheader where
// fewer than versionMinTrip iterations are to run; the copy's latches
// carry twin's hints and no run-time unrolling. It reports false, changing nothing, where l's shape does
// not admit it (shapeOf).
func (d *differ) versionLoop(f *ir.Func, cfg *irutil.CFG, l *irutil.Loop, twin *metadata.Tuple) bool {
	s, ok := shapeOf(f, cfg, l)
	if !ok {
		return false
	}
	short := twin // a reverse's: as scalar as the loop had been, unrolled as LLVM decides
	if s.slot == nil {
		short = d.newLoopID(append(twin.Fields[1:len(twin.Fields):len(twin.Fields)], noRuntimeUnrollHint()))
	}
	var blocks []*ir.Block
	for _, b := range f.Blocks {
		if l.Contains(b) {
			blocks = append(blocks, b)
		}
	}
	if len(cfg.Preds[s.exit]) > 1 {
		s.exit = splitExit(f, s.exiting, s.exit)
	}
	vmap := map[value.Value]value.Value{}
	remap := func(v value.Value) value.Value {
		if n, ok := vmap[v]; ok {
			return n
		}
		return v
	}
	keep := func(v value.Value) value.Value { return v }
	var clones []*ir.Block
	for _, b := range blocks {
		nb := ir.NewBlock("")
		nb.Parent = f
		vmap[b] = nb
		clones = append(clones, nb)
	}
	for i, b := range blocks {
		nb := clones[i]
		for _, inst := range b.Insts {
			c, err := irutil.CloneInstInPlace(inst, keep)
			if err != nil {
				return false
			}
			if n, ok := c.(interface{ SetName(string) }); ok {
				n.SetName("")
			}
			nb.Insts = append(nb.Insts, c)
			if v, ok := inst.(value.Value); ok {
				vmap[v] = c.(value.Value)
			}
		}
	}
	for i, b := range blocks {
		nb := clones[i]
		for _, inst := range nb.Insts {
			irutil.RemapOperands(inst, remap)
			if phi, ok := inst.(*ir.InstPhi); ok {
				for _, in := range phi.Incs {
					in.Pred = remap(in.Pred)
				}
			}
		}
		switch t := b.Term.(type) {
		case *ir.TermBr:
			nt := ir.NewBr(remap(t.Target).(*ir.Block))
			nt.Metadata = latchMetadata(t.Metadata, short)
			nb.Term = nt
		case *ir.TermCondBr:
			nt := ir.NewCondBr(remap(t.Cond), remap(t.TargetTrue).(*ir.Block), remap(t.TargetFalse).(*ir.Block))
			nt.Metadata = latchMetadata(t.Metadata, short)
			nb.Term = nt
		}
	}
	// Values of the loop used past it: one phi in the exit block for both
	// versions (the exit's one predecessor is the exiting block, so the
	// exit dominates every use outside the loop).
	merged := map[value.Value]value.Value{}
	var phis []ir.Instruction
	for _, inst := range s.exit.Insts {
		if phi, ok := inst.(*ir.InstPhi); ok {
			for _, in := range phi.Incs[:len(phi.Incs):len(phi.Incs)] {
				if in.Pred == value.Value(s.exiting) {
					phi.Incs = append(phi.Incs, ir.NewIncoming(remap(in.X), vmap[s.exiting].(*ir.Block)))
				}
			}
		}
	}
	outside := func(v value.Value) value.Value {
		if m, ok := merged[v]; ok {
			return m
		}
		c, ok := vmap[v]
		if !ok || v == value.Value(c) {
			return v
		}
		if _, isBlock := v.(*ir.Block); isBlock {
			return v
		}
		phi := ir.NewPhi(ir.NewIncoming(v, s.exiting), ir.NewIncoming(c, vmap[s.exiting].(*ir.Block)))
		merged[v] = phi
		phis = append(phis, phi)
		return phi
	}
	for _, b := range f.Blocks {
		if l.Contains(b) {
			continue
		}
		for _, inst := range b.Insts {
			if _, isPhi := inst.(*ir.InstPhi); isPhi && b == s.exit {
				continue
			}
			irutil.RemapOperands(inst, outside)
		}
		irutil.RemapOperands(b.Term, outside)
	}
	s.exit.Insts = append(phis, s.exit.Insts...)
	// The choice, in the preheader.
	count, made := estimateCount(s)
	long := ir.NewICmp(enum.IPredSGE, count, constant.NewInt(count.Type().(*types.IntType), versionMinTrip))
	s.pre.Insts = append(s.pre.Insts, made...)
	s.pre.Insts = append(s.pre.Insts, long)
	old := s.pre.Term.(*ir.TermBr)
	nt := ir.NewCondBr(long, l.Header, vmap[l.Header].(*ir.Block))
	nt.Metadata = old.Metadata
	s.pre.Term = nt
	// The copy's blocks after the loop's last block.
	last := blocks[len(blocks)-1]
	var out []*ir.Block
	for _, b := range f.Blocks {
		out = append(out, b)
		if b == last {
			out = append(out, clones...)
		}
	}
	f.Blocks = out
	return true
}

// estimateCount is the iteration count the version is picked by: from the
// counter's start to its bound where the end it starts from is a constant;
// else the other end alone (the bound counting up, the start counting
// down), which the loops around the copy often leave unchanged (a
// triangle's row length d where the row starts at i + 1), so that the
// choice is the same on every entry and the optimizer may hoist it out of
// them. A counter kept in memory counts down from its slot's value at the
// loop's entry to its bound, read there too (slotCount). An estimate only:
// both versions compute the same.
func estimateCount(s loopShape) (count value.Value, made []ir.Instruction) {
	if s.slot != nil {
		return slotCount(s)
	}
	if s.down {
		if _, ok := s.bound.(constant.Constant); ok {
			sub := ir.NewSub(s.start, s.bound)
			return sub, []ir.Instruction{sub}
		}
		return s.start, nil
	}
	if _, ok := s.start.(constant.Constant); ok {
		sub := ir.NewSub(s.bound, s.start)
		return sub, []ir.Instruction{sub}
	}
	return s.bound, nil
}

// splitExit puts a block of its own on the edge from exiting, a loop's
// only exiting block, to exit, entered from elsewhere too, and returns it:
// the loop's exit block then has the one predecessor, and dominates every
// use of the loop's values past it.
func splitExit(f *ir.Func, exiting, exit *ir.Block) *ir.Block {
	ded := ir.NewBlock("")
	ded.Parent = f
	ded.Term = ir.NewBr(exit)
	t := exiting.Term.(*ir.TermCondBr)
	if t.TargetTrue == exit {
		t.TargetTrue = ded
	}
	if t.TargetFalse == exit {
		t.TargetFalse = ded
	}
	irutil.RenameIncoming(exit, exiting, ded)
	var out []*ir.Block
	for _, b := range f.Blocks {
		out = append(out, b)
		if b == exiting {
			out = append(out, ded)
		}
	}
	f.Blocks = out
	return ded
}

// latchMetadata is md with its llvm.loop attachment (if any) naming id.
func latchMetadata(md ir.Metadata, id *metadata.Tuple) ir.Metadata {
	var out ir.Metadata
	for _, a := range md {
		if a.Name == "llvm.loop" {
			out = append(out, &metadata.Attachment{Name: "llvm.loop", Node: id})
			continue
		}
		out = append(out, a)
	}
	return out
}
