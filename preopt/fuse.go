package preopt

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// FuseLoops fuses adjacent sibling loops that run the same iterations into
// one loop, in every function of m, and returns how many pairs it fused.
// Fused, a pair such as
//
//	for (j = 0; j < d; j++) xc[j] = x[j] - mu[j];
//	for (j = 0; j < d; j++) qx[j] = q[j] * xc[j];
//
// is one loop before LLVM's pipeline vectorizes it, and one loop for AD to
// differentiate (one forward copy and one reverse loop instead of two each,
// xc[j] and its shadow in registers between the two bodies).
//
// LLVM 14's loop-fusion pass would do this where the vectorizer starts, but
// its dependence test accepts two accesses to the same loop-invariant
// address (a flow dependence through *p that fusion breaks: LLVM issue
// 191238), so gozyme fuses only pairs it proves safe itself, on the IR of
// the light pipeline (loops not yet rotated):
//   - each loop is canonical (canonLoop): one header holding only the
//     induction phi (start, step 1) and its exit test, one latch, one exit
//     (from the header), no value used outside the loop, and the same
//     loop metadata (no pragma for one of them only);
//   - the first loop's header exits straight into the second loop's header
//     (or through an empty block), and both loops have the same start, test
//     and bound, so they run the same iterations;
//   - neither loop is a memset or memcpy (idiom), which LLVM turns into
//     a library call;
//   - the loops touch memory only through plain loads and stores (calls
//     must be readnone, nounwind and willreturn), and each pair of accesses, one in
//     each loop, one of them a store, is to the same element of the same
//     array in the same iteration (sameElement), or to memory the other
//     cannot reach (noAlias).
//
// Fusion then only moves the second body's iteration j before the first
// body's iterations after j, which touch none of its memory.
func FuseLoops(m *ir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		n += fuseFunc(f)
	}
	return n
}

// fuseFunc fuses f's fusable pairs, the fused loop with the next one too,
// and returns how many it fused.
func fuseFunc(f *ir.Func) int {
	n := 0
	for len(f.Blocks) > 0 {
		cfg, err := irutil.NewCFG(f)
		if err != nil {
			break
		}
		p := fusablePair(f, cfg)
		if p == nil {
			break
		}
		p.fuse(f)
		n++
	}
	return n
}

// canonLoop is a loop in the form FuseLoops fuses.
type canonLoop struct {
	l      *irutil.Loop
	header *ir.Block
	latch  *ir.Block // the only latch; ends in br header
	pre    *ir.Block // the header's predecessor outside the loop
	iv     *ir.InstPhi
	start  value.Value
	test   *ir.InstICmp         // iv <pred> bound
	body   *ir.Block            // the header's successor in the loop
	exit   *ir.Block            // the header's successor outside the loop
	onTrue bool                 // the loop goes on when the test holds
	defs   map[value.Value]bool // the instructions of the loop's blocks
}

// defines reports whether v is an instruction of the loop.
func (c *canonLoop) defines(v value.Value) bool { return c.defs[v] }

// canon returns l as a canonLoop, or nil.
func canon(l *irutil.Loop, cfg *irutil.CFG) *canonLoop {
	h := l.Header
	insts := withoutDebug(h.Insts)
	if len(l.Latches) != 1 || len(insts) != 2 || len(cfg.Preds[h]) != 2 {
		return nil
	}
	c := &canonLoop{l: l, header: h, latch: l.Latches[0], defs: map[value.Value]bool{}}
	for b := range l.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok {
				c.defs[v] = true
			}
		}
	}
	if br, ok := c.latch.Term.(*ir.TermBr); !ok || br.Target != h {
		return nil
	}
	for _, p := range cfg.Preds[h] {
		if p != c.latch {
			c.pre = p
		}
	}
	iv, ok := insts[0].(*ir.InstPhi)
	test, ok2 := insts[1].(*ir.InstICmp)
	br, ok3 := h.Term.(*ir.TermCondBr)
	if !ok || !ok2 || !ok3 || c.pre == nil || len(iv.Incs) != 2 || br.Cond != test || test.X != iv {
		return nil
	}
	if test.Pred != enum.IPredSLT && test.Pred != enum.IPredULT && test.Pred != enum.IPredNE {
		return nil
	}
	if c.defines(test.Y) {
		return nil
	}
	for _, inc := range iv.Incs {
		switch inc.Pred {
		case c.pre:
			c.start = inc.X
		case c.latch:
			add, ok := inc.X.(*ir.InstAdd)
			if !ok || add.X != iv || !isOne(add.Y) {
				return nil
			}
		}
	}
	c.iv, c.test = iv, test
	t, e := br.TargetTrue.(*ir.Block), br.TargetFalse.(*ir.Block)
	c.onTrue = l.Contains(t)
	if !c.onTrue {
		t, e = e, t
	}
	if c.start == nil || !l.Contains(t) || l.Contains(e) || t == h {
		return nil
	}
	c.body, c.exit = t, e
	// One exit, from the header; no return or unwinding inside.
	for b := range l.Blocks {
		switch b.Term.(type) {
		case *ir.TermBr, *ir.TermCondBr, *ir.TermSwitch:
		default:
			return nil
		}
		for _, s := range irutil.Succs(b) {
			if !l.Contains(s) && b != h {
				return nil
			}
		}
	}
	return c
}

// withoutDebug returns insts without calls to llvm.dbg.* intrinsics.
func withoutDebug(insts []ir.Instruction) []ir.Instruction {
	var out []ir.Instruction
	for _, inst := range insts {
		if c, ok := inst.(*ir.InstCall); ok {
			if callee, ok := c.Callee.(*ir.Func); ok && strings.HasPrefix(callee.Name(), "llvm.dbg.") {
				continue
			}
		}
		out = append(out, inst)
	}
	return out
}

// isOne reports whether v is the integer constant 1.
func isOne(v value.Value) bool {
	c, ok := v.(*constant.Int)
	return ok && c.X.IsInt64() && c.X.Int64() == 1
}

// pair is two canonical loops, the first exiting into the second's header
// directly or through the empty block mid.
type pair struct {
	a, b *canonLoop
	mid  *ir.Block
}

// fusablePair returns the first pair of f's loops FuseLoops may fuse.
func fusablePair(f *ir.Func, cfg *irutil.CFG) *pair {
	for _, p := range adjacentPairs(cfg) {
		if p.legal(f, cfg) {
			return p
		}
	}
	return nil
}

// adjacentPairs returns the pairs of canonical sibling loops in which the
// first loop exits into the second's header, legal to fuse or not.
func adjacentPairs(cfg *irutil.CFG) []*pair {
	headed := map[*ir.Block]*irutil.Loop{}
	for _, l := range cfg.Loops {
		headed[l.Header] = l
	}
	var out []*pair
	for _, l := range cfg.Loops {
		a := canon(l, cfg)
		if a == nil {
			continue
		}
		p := &pair{a: a}
		next := a.exit
		if headed[next] == nil {
			br, ok := next.Term.(*ir.TermBr)
			if !ok || len(next.Insts) != 0 || len(cfg.Preds[next]) != 1 {
				continue
			}
			p.mid, next = next, br.Target.(*ir.Block)
		}
		l2 := headed[next]
		if l2 == nil || l2.Parent != l.Parent {
			continue
		}
		want := a.header
		if p.mid != nil {
			want = p.mid
		}
		if p.b = canon(l2, cfg); p.b != nil && p.b.pre == want {
			out = append(out, p)
		}
	}
	return out
}

// legal reports whether fusing p keeps f's meaning (see FuseLoops).
func (p *pair) legal(f *ir.Func, cfg *irutil.CFG) bool {
	a, b := p.a, p.b
	if !a.iv.Type().Equal(b.iv.Type()) || !irutil.SameValue(a.start, b.start) || a.test.Pred != b.test.Pred || a.onTrue != b.onTrue ||
		!irutil.SameValue(a.test.Y, b.test.Y) || a.defines(b.start) || a.defines(b.test.Y) {
		return false
	}
	// The second body is entered only from its header, without phis.
	if len(cfg.Preds[b.body]) != 1 || (len(b.body.Insts) > 0 && isPhi(b.body.Insts[0])) {
		return false
	}
	if usedOutside(f, a) || usedOutside(f, b) || !sameHints(a.latch, b.latch) {
		return false
	}
	accA, ok1 := accesses(f, a)
	accB, ok2 := accesses(f, b)
	if !ok1 || !ok2 || idiom(accA, a) || idiom(accB, b) {
		return false
	}
	for _, x := range accA {
		for _, y := range accB {
			if (x.write || y.write) && !sameElement(x, y, a, b) && !noAlias(f, x.ptr, y.ptr) {
				return false
			}
		}
	}
	return true
}

// sameHints reports whether the loop metadata (llvm.loop) on the two
// latches' branches asks for the same: the fused loop keeps the second
// loop's, and a pragma (unroll, vectorize, distribute, ...) written for
// one loop is not to apply to both. Metadata LLVM uniques, so equal hints
// are the same nodes (-O1 gives every loop llvm.loop.unroll.disable).
func sameHints(a, b *ir.Block) bool {
	ha, ok1 := hints(a)
	hb, ok2 := hints(b)
	if !ok1 || !ok2 || len(ha) != len(hb) {
		return false
	}
	for h := range ha {
		if !hb[h] {
			return false
		}
	}
	return true
}

// hints returns the nodes a latch's loop metadata lists (not its own ID,
// not source locations); false for a form it does not know.
func hints(latch *ir.Block) (map[*metadata.Tuple]bool, bool) {
	out := map[*metadata.Tuple]bool{}
	for _, a := range latch.Term.(*ir.TermBr).Metadata {
		if a.Name != "llvm.loop" {
			continue
		}
		t, ok := a.Node.(*metadata.Tuple)
		if !ok {
			return nil, false
		}
		for _, fld := range t.Fields {
			if ft, ok := fld.(*metadata.Tuple); ok && ft != t {
				out[ft] = true
			}
		}
	}
	return out, true
}

func isPhi(i ir.Instruction) bool {
	_, ok := i.(*ir.InstPhi)
	return ok
}

// operands returns the values inst uses, call arguments and metadata
// wrappers unwrapped.
func operands(inst interface{}) []value.Value {
	u, ok := inst.(interface{ Operands() []*value.Value })
	if !ok {
		return nil
	}
	var out []value.Value
	for _, op := range u.Operands() {
		v := *op
		for {
			if a, ok := v.(*ir.Arg); ok {
				v = a.Value
				continue
			}
			if mv, ok := v.(*metadata.Value); ok {
				if inner, ok := mv.Value.(value.Value); ok {
					v = inner
					continue
				}
			}
			break
		}
		out = append(out, v)
	}
	return out
}

// usedOutside reports whether a value defined in loop c is used outside it.
func usedOutside(f *ir.Func, c *canonLoop) bool {
	for _, blk := range f.Blocks {
		if c.l.Contains(blk) {
			continue
		}
		users := append([]interface{}{}, blk.Term)
		for _, inst := range blk.Insts {
			users = append(users, inst)
		}
		for _, u := range users {
			for _, v := range operands(u) {
				if c.defines(v) {
					return true
				}
			}
		}
	}
	return false
}

// fuse rewrites f so that p's two loops are one: the first body, then the
// second on the same induction variable, then the first loop's header's
// test; the second loop's header (and the empty block before it) go.
func (p *pair) fuse(f *ir.Func) {
	a, b := p.a, p.b
	irutil.ReplaceAllUses(f, b.iv, a.iv)
	// b's test goes with its header; where b's body reads it, it is a's
	// (the same predicate on the same counter and bound).
	irutil.ReplaceAllUses(f, b.test, a.test)
	setBr(a.latch, b.body, false)
	setBr(b.latch, a.header, true)
	for _, inc := range a.iv.Incs {
		if inc.Pred == a.latch {
			inc.Pred = b.latch
		}
	}
	br := a.header.Term.(*ir.TermCondBr)
	if br.TargetTrue == a.exit {
		br.TargetTrue = b.exit
	} else {
		br.TargetFalse = b.exit
	}
	br.Successors = []*ir.Block{br.TargetTrue.(*ir.Block), br.TargetFalse.(*ir.Block)}
	for _, inst := range b.exit.Insts {
		phi, ok := inst.(*ir.InstPhi)
		if !ok {
			break
		}
		for _, inc := range phi.Incs {
			if inc.Pred == b.header {
				inc.Pred = a.header
			}
		}
	}
	gone := map[*ir.Block]bool{b.header: true, p.mid: true}
	var keep []*ir.Block
	for _, blk := range f.Blocks {
		if !gone[blk] {
			keep = append(keep, blk)
		}
	}
	f.Blocks = keep
}

// setBr makes blk's unconditional branch go to target, keeping its loop
// loop metadata (llvm.loop) only when keep: the fused loop's backedge is
// the second loop's latch, the first loop's latch is no longer one. Other
// attachments (!dbg) stay.
func setBr(blk, target *ir.Block, keep bool) {
	br := blk.Term.(*ir.TermBr)
	br.Target, br.Successors = target, []*ir.Block{target}
	if !keep {
		var md []*metadata.Attachment
		for _, a := range br.Metadata {
			if a.Name != "llvm.loop" {
				md = append(md, a)
			}
		}
		br.Metadata = md
	}
}
