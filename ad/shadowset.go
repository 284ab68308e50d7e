package ad

import (
	"fmt"
	"github.com/gozyme/gozyme/ad/rules"
	"strconv"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The per-thread set of shadow pointers of shadowlife.go. Entries are
// shadows whose primal was freed (s) and shadows of nodes linked into a
// red-black tree (s|1: shadows are at least 2-aligned), open addressing
// with linear probing over a power-of-two table (null: empty, -1:
// removed), at most half its slots used. A derivative's root opens a set
// of its own (enter) and drops it on return (leave); the state is five
// thread-local words: slots, capacity, live entries, used slots (live and
// removed), open.

// shadowSetWords is the size of a saved set, in words.
const shadowSetWords = 5

// shadowSet is the runtime of the set, defined once per module.
type shadowSet struct {
	// enter(i8* save): saves the thread's set into save, opens an empty one.
	enter *ir.Func
	// leave(i8* save, i8* msg): stops the program with msg where the open
	// set holds a tree node (its primal never freed: it outlives the
	// derivative); else frees the open set and restores the saved one.
	leave *ir.Func
	// note(i8* s, i8* p): the primal p of shadow s is freed: adds s (not
	// null, not p) to the open set, removes s|1.
	note *ir.Func
	// take(i8* s) i1: removes s from the open set and reports whether it
	// was there; true where no set is open.
	take *ir.Func
	// treeNode(i8* s, i8* msg): adds s|1 to the open set; stops the
	// program with msg where no set is open.
	treeNode *ir.Func
	// forget(i8* s): removes s|1 (forward mode's free of a tree node).
	forget *ir.Func
}

var shadowSetNames = [...]string{"enter", "leave", "note", "take", "treenode", "forget"}

// shadowSetRuntime defines the set's state and functions for derivatives
// of order level (once per module and level; a module differentiated
// before has them). Each order has a set of its own: where a derivative's
// code is differentiated again, its calls of the set are the outer
// derivative's primal code, which must not see the outer's own notes.
func (d *differ) shadowSetRuntime(level int) *shadowSet {
	if rt := d.shadowRT[level]; rt != nil {
		return rt
	}
	m := d.m
	prefix := shadowSetPrefix(level)
	fn := func(name string) *ir.Func {
		for _, f := range m.Funcs {
			if f.Name() == prefix+name {
				return f
			}
		}
		return nil
	}
	if fn(shadowSetNames[0]) == nil {
		d.defineShadowSet(prefix)
	}
	rt := &shadowSet{fn("enter"), fn("leave"), fn("note"), fn("take"), fn("treenode"), fn("forget")}
	if d.shadowRT == nil {
		d.shadowRT = map[int]*shadowSet{}
	}
	d.shadowRT[level] = rt
	if d.inactive == nil {
		d.inactive = map[*ir.Func]bool{}
	}
	for _, f := range []*ir.Func{rt.enter, rt.leave, rt.note, rt.take, rt.treeNode, rt.forget} {
		d.inactive[f] = true // a derivative differentiated again calls them as they are
	}
	return rt
}

// shadowSetPrefix names the set of derivatives of order level.
func shadowSetPrefix(level int) string { return fmt.Sprintf("__gozyme_shadowlife%d.", level) }

// defineShadowSet emits the set's globals and functions, named with
// prefix, into d.m.
func (d *differ) defineShadowSet(prefix string) {
	m := d.m
	i8p, i64 := types.I8Ptr, types.I64
	slotsT := types.NewPointer(i8p)
	c64 := func(n int64) *constant.Int { return constant.NewInt(i64, n) }
	tl := func(name string, init constant.Constant) *ir.Global {
		g := m.NewGlobalDef(prefix+name, init)
		g.Linkage = enum.LinkageInternal
		g.TLSModel = enum.TLSModelGeneric
		return g
	}
	slots := tl("slots", constant.NewNull(slotsT))
	capG, count, used, open := tl("cap", c64(0)), tl("count", c64(0)), tl("used", c64(0)), tl("open", c64(0))
	words := []*ir.Global{slots, capG, count, used, open}
	internal := func(name string, ret types.Type, params ...*ir.Param) *ir.Func {
		f := m.NewFunc(prefix+name, ret, params...)
		f.Linkage = enum.LinkageInternal
		return f
	}
	calloc := rules.Declare(m, "calloc", i8p, i64, i64)
	free := libc(m, "free")
	stop := d.unknownTargetStop()
	removed := constant.NewIntToPtr(c64(-1), i8p)
	null := constant.NewNull(i8p)
	isOpen := func(b *ir.Block) value.Value {
		return b.NewICmp(enum.IPredNE, b.NewLoad(i64, open), c64(0))
	}
	tagged := func(b *ir.Block, s value.Value) value.Value {
		return b.NewIntToPtr(b.NewOr(b.NewPtrToInt(s, i64), c64(1)), i8p)
	}
	savedWord := func(b *ir.Block, save value.Value, i int64) value.Value {
		return b.NewGetElementPtr(i64, b.NewBitCast(save, types.NewPointer(i64)), c64(i))
	}
	loadWord := func(b *ir.Block, i int) value.Value {
		if i == 0 {
			return b.NewPtrToInt(b.NewLoad(slotsT, slots), i64)
		}
		return b.NewLoad(i64, words[i])
	}
	storeWord := func(b *ir.Block, i int, v value.Value) {
		if i == 0 {
			b.NewStore(b.NewIntToPtr(v, slotsT), slots)
			return
		}
		b.NewStore(v, words[i])
	}
	// hash is the first slot to probe for s in a table of capacity cp.
	hash := func(b *ir.Block, s, cp value.Value) value.Value {
		x := b.NewPtrToInt(s, i64)
		h := b.NewMul(b.NewXor(x, b.NewLShr(x, c64(29))), c64(-7046029254386353131)) // 0x9E3779B97F4A7C15
		return b.NewAnd(b.NewXor(h, b.NewLShr(h, c64(32))), b.NewSub(cp, c64(1)))
	}
	nextSlot := func(b *ir.Block, i, cp value.Value) value.Value {
		return b.NewAnd(b.NewAdd(i, c64(1)), b.NewSub(cp, c64(1)))
	}

	enter := internal("enter", types.Void, ir.NewParam("save", i8p))
	{
		b := enter.NewBlock("")
		for i := range words {
			b.NewStore(loadWord(b, i), savedWord(b, enter.Params[0], int64(i)))
			if i < len(words)-1 {
				storeWord(b, i, c64(0))
			}
		}
		b.NewStore(c64(1), open)
		b.NewRet(nil)
	}

	// take(s) i1
	take := internal("take", types.I1, ir.NewParam("s", i8p))
	{
		s := take.Params[0]
		entry, probe, start, loop, other, next, hit, miss, all := take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock(""), take.NewBlock("")
		entry.NewCondBr(isOpen(entry), probe, all)
		all.NewRet(constant.True)
		cnt := probe.NewLoad(i64, count)
		t := probe.NewLoad(slotsT, slots)
		cp := probe.NewLoad(i64, capG)
		probe.NewCondBr(probe.NewICmp(enum.IPredEQ, cnt, c64(0)), miss, start)
		h := hash(start, s, cp)
		start.NewBr(loop)
		i := loop.NewPhi(ir.NewIncoming(h, start))
		at := loop.NewGetElementPtr(i8p, t, i)
		cur := loop.NewLoad(i8p, at)
		loop.NewCondBr(loop.NewICmp(enum.IPredEQ, cur, s), hit, other)
		other.NewCondBr(other.NewICmp(enum.IPredEQ, cur, null), miss, next)
		i.Incs = append(i.Incs, ir.NewIncoming(nextSlot(next, i, cp), next))
		next.NewBr(loop)
		hit.NewStore(removed, at)
		hit.NewStore(hit.NewSub(cnt, c64(1)), count)
		hit.NewRet(constant.True)
		miss.NewRet(constant.False)
	}

	// insert(t, cp, s) i1: puts s into table t of capacity cp, which has
	// an empty slot; false where s was there. Removed slots are not
	// reused (the table is rebuilt when half its slots are used).
	insert := internal("insert", types.I1, ir.NewParam("t", slotsT), ir.NewParam("cp", i64), ir.NewParam("s", i8p))
	{
		t, cp, s := insert.Params[0], insert.Params[1], insert.Params[2]
		entry, loop, check, next, put, dup := insert.NewBlock(""), insert.NewBlock(""), insert.NewBlock(""), insert.NewBlock(""), insert.NewBlock(""), insert.NewBlock("")
		h := hash(entry, s, cp)
		entry.NewBr(loop)
		i := loop.NewPhi(ir.NewIncoming(h, entry))
		at := loop.NewGetElementPtr(i8p, t, i)
		cur := loop.NewLoad(i8p, at)
		loop.NewCondBr(loop.NewICmp(enum.IPredEQ, cur, null), put, check)
		check.NewCondBr(check.NewICmp(enum.IPredEQ, cur, s), dup, next)
		i.Incs = append(i.Incs, ir.NewIncoming(nextSlot(next, i, cp), next))
		next.NewBr(loop)
		put.NewStore(s, at)
		put.NewRet(constant.True)
		dup.NewRet(constant.False)
	}

	// add(s): s into the open set, the table grown (or rebuilt without
	// its removed slots) first where it is half used.
	add := internal("add", types.Void, ir.NewParam("s", i8p))
	{
		s := add.Params[0]
		entry, grow, rehash, move, moveOne, swap, put, counted, done := add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock(""), add.NewBlock("")
		cp := entry.NewLoad(i64, capG)
		u := entry.NewLoad(i64, used)
		entry.NewCondBr(entry.NewICmp(enum.IPredUGE, entry.NewMul(entry.NewAdd(u, c64(1)), c64(2)), cp), grow, put)
		// At least four slots per live entry, at least 16.
		live := grow.NewLoad(i64, count)
		want := grow.NewMul(grow.NewAdd(live, c64(1)), c64(4))
		ctlz := rules.Declare(m, "llvm.ctlz.i64", i64, i64, types.I1)
		ncp0 := grow.NewShl(c64(1), grow.NewSub(c64(64), grow.NewCall(ctlz, want, constant.False)))
		ncp := grow.NewSelect(grow.NewICmp(enum.IPredULT, ncp0, c64(16)), c64(16), ncp0)
		nt := grow.NewBitCast(grow.NewCall(calloc, ncp, c64(8)), slotsT)
		old := grow.NewLoad(slotsT, slots)
		grow.NewBr(rehash)
		j := rehash.NewPhi(ir.NewIncoming(c64(0), grow))
		rehash.NewCondBr(rehash.NewICmp(enum.IPredULT, j, cp), move, swap)
		e := move.NewLoad(i8p, move.NewGetElementPtr(i8p, old, j))
		keep := move.NewAnd(move.NewICmp(enum.IPredNE, e, null), move.NewICmp(enum.IPredNE, e, removed))
		j1 := move.NewAdd(j, c64(1))
		move.NewCondBr(keep, moveOne, rehash)
		moveOne.NewCall(insert, nt, ncp, e)
		moveOne.NewBr(rehash)
		j.Incs = append(j.Incs, ir.NewIncoming(j1, move), ir.NewIncoming(j1, moveOne))
		swap.NewCall(free, swap.NewBitCast(old, i8p))
		swap.NewStore(nt, slots)
		swap.NewStore(ncp, capG)
		swap.NewStore(live, used)
		swap.NewBr(put)
		added := put.NewCall(insert, put.NewLoad(slotsT, slots), put.NewLoad(i64, capG), s)
		put.NewCondBr(added, counted, done)
		counted.NewStore(counted.NewAdd(counted.NewLoad(i64, count), c64(1)), count)
		counted.NewStore(counted.NewAdd(counted.NewLoad(i64, used), c64(1)), used)
		counted.NewBr(done)
		done.NewRet(nil)
	}

	// note(s, p)
	note := internal("note", types.Void, ir.NewParam("s", i8p), ir.NewParam("p", i8p))
	{
		s, p := note.Params[0], note.Params[1]
		entry, body, done := note.NewBlock(""), note.NewBlock(""), note.NewBlock("")
		skip := entry.NewOr(entry.NewICmp(enum.IPredEQ, s, null), entry.NewICmp(enum.IPredEQ, s, p))
		entry.NewCondBr(entry.NewAnd(isOpen(entry), entry.NewXor(skip, constant.True)), body, done)
		body.NewCall(add, s)
		body.NewCall(take, tagged(body, s))
		body.NewBr(done)
		done.NewRet(nil)
	}

	// treenode(s, msg)
	treeNode := internal("treenode", types.Void, ir.NewParam("s", i8p), ir.NewParam("msg", i8p))
	{
		s, msg := treeNode.Params[0], treeNode.Params[1]
		entry, body, none := treeNode.NewBlock(""), treeNode.NewBlock(""), treeNode.NewBlock("")
		entry.NewCondBr(isOpen(entry), body, none)
		body.NewCall(add, tagged(body, s))
		body.NewRet(nil)
		none.NewCall(stop, msg)
		none.NewUnreachable()
	}

	// forget(s)
	forget := internal("forget", types.Void, ir.NewParam("s", i8p))
	{
		b := forget.NewBlock("")
		b.NewCall(take, tagged(b, forget.Params[0]))
		b.NewRet(nil)
	}

	// leave(save, msg)
	leave := internal("leave", types.Void, ir.NewParam("save", i8p), ir.NewParam("msg", i8p))
	{
		save, msg := leave.Params[0], leave.Params[1]
		entry, scan, look, bad, next, done := leave.NewBlock(""), leave.NewBlock(""), leave.NewBlock(""), leave.NewBlock(""), leave.NewBlock(""), leave.NewBlock("")
		t := entry.NewLoad(slotsT, slots)
		cp := entry.NewLoad(i64, capG)
		entry.NewBr(scan)
		j := scan.NewPhi(ir.NewIncoming(c64(0), entry))
		scan.NewCondBr(scan.NewICmp(enum.IPredULT, j, cp), look, done)
		e := look.NewLoad(i8p, look.NewGetElementPtr(i8p, t, j))
		isTag := look.NewAnd(look.NewICmp(enum.IPredNE, e, removed),
			look.NewICmp(enum.IPredNE, look.NewAnd(look.NewPtrToInt(e, i64), c64(1)), c64(0)))
		look.NewCondBr(isTag, bad, next)
		bad.NewCall(stop, msg)
		bad.NewUnreachable()
		j.Incs = append(j.Incs, ir.NewIncoming(next.NewAdd(j, c64(1)), next))
		next.NewBr(scan)
		done.NewCall(free, done.NewBitCast(t, i8p))
		for i := range words {
			storeWord(done, i, done.NewLoad(i64, savedWord(done, save, int64(i))))
		}
		done.NewRet(nil)
	}
}

// shadowLevel is the order of the derivatives of f: one more than the
// highest order of the sets the code f runs (its callees, through direct
// calls) already uses, 1 where it uses none.
func (d *differ) shadowLevel(f *ir.Func) int {
	if l, ok := d.shadowLevels[f]; ok {
		return l
	}
	if d.shadowLevels == nil {
		d.shadowLevels = map[*ir.Func]int{}
	}
	level := 1
	seen := map[*ir.Func]bool{f: true}
	work := []*ir.Func{f}
	for len(work) > 0 {
		g := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range g.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok {
					continue
				}
				callee, ok := c.Callee.(*ir.Func)
				if !ok || seen[callee] {
					continue
				}
				seen[callee] = true
				if rest, ok := strings.CutPrefix(callee.Name(), "__gozyme_shadowlife"); ok {
					if k, err := strconv.Atoi(rest[:strings.IndexByte(rest+".", '.')]); err == nil && k+1 > level {
						level = k + 1
					}
				}
				work = append(work, callee)
			}
		}
	}
	d.shadowLevels[f] = level
	return level
}
