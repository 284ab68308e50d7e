package ad

import (
	"sort"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Tape stacks: the tapes of augmented forward / reverse pairs called from a
// combined gradient (directly or through a chain of such pairs) come from a
// per-thread stack instead of malloc and free. A combined gradient runs its
// augmented forwards in call order and their reverses in exactly the
// opposite order on the same thread, so the tapes (each pair's struct and
// the iteration records of its loops) are released last-allocated first,
// and a recursive function's gradient (det by minors: a tape and a record
// buffer per call) stops paying malloc and free per call.
//
// Soundness does not rest on that order: each block on the stack carries a
// freed mark, and a release only moves the top down over marked blocks, so
// a block released out of order stays until those above it are released
// (memory kept longer, never reused early). What the order buys is that
// memory is not kept: so pairs whose tapes may be released out of order,
// or on another thread, keep malloc and free: those the user splits
// (__enzyme_augmentfwd / __enzyme_reverse hold the tape) and whatever they
// call, those run by the threads of a parallel region (_par) and their
// callees, all on GPUs; and pairs differentiated again (forward over
// reverse), whose derivatives were generated with malloc and free and may
// hand a tape from one to the other. The switch is made once every root is
// done (stackTapes), by retargeting the pair's recorded tape allocations,
// reallocations and frees.
//
// The stack is a chain of chunks, each with a header:
//
//	chunk: {prev chunk, saved top, saved end, saved last, own end, pad} data...
//	block: {prev block in the chunk (or null), size | freed bit} data...
//
// Per thread: top (next free byte), end (of the chunk), last (the topmost
// block's header, null when the chunk is empty), chunk, spare (one emptied
// chunk kept for the next switch), registered (the thread-exit release).
//
// Chunk sizes: the first is 1 MiB (the standard size), each next one twice
// the one before, up to 64 MiB (tapeChunkMax), or the block's size where
// that is larger. A tape of tens of megabytes (det by minors at ell = 9:
// ~30 MB written by the forward, read back by the reverse) then spans a
// few chunks, not thirty. Chunks of 2 MiB and more are 2 MiB-aligned
// (aligned_alloc) and, on Linux, advised as huge pages (hugepages.go).
//
// Between gradients a thread keeps at most two chunks: the first (of the
// standard size) and the spare, the largest emptied chunk of at most
// tapeChunkMax, so that the next gradient of the same size takes it at its
// first switch and allocates nothing (no page faults: its pages stay
// mapped). Other emptied chunks are freed; so is the spare at thread exit.

const (
	tapeChunkHeader = 48
	tapeBlockHeader = 16
	tapeChunkMin    = 1 << 20
	tapeChunkMax    = 64 << 20
	tapeMaxBlock    = 1 << 48 // larger requests fail (null)
)

// tapeStack is the runtime of one module's tape stacks.
type tapeStack struct {
	alloc, realloc, free *ir.Func
}

// tapeStackRuntime defines (once per module) the thread-local state and the
// functions __gozyme_tape_alloc(i64), __gozyme_tape_realloc(i8*, i64) and
// __gozyme_tape_free(i8*), with malloc's, realloc's and free's signatures.
func (d *differ) tapeStackRuntime() *tapeStack {
	if d.tapeRT != nil {
		return d.tapeRT
	}
	m := d.m
	// A module differentiated before has them (and the globals) already.
	have := map[string]*ir.Func{}
	for _, f := range m.Funcs {
		have[f.Name()] = f
	}
	if a, r, f := have["__gozyme_tape_alloc"], have["__gozyme_tape_realloc"], have["__gozyme_tape_free"]; a != nil && r != nil && f != nil {
		d.tapeRT = &tapeStack{alloc: a, realloc: r, free: f}
		return d.tapeRT
	}
	i8p := types.I8Ptr
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	tl := func(name string, t types.Type) *ir.Global {
		var init constant.Constant = constant.NewInt(types.I64, 0)
		if pt, ok := t.(*types.PointerType); ok {
			init = constant.NewNull(pt)
		}
		g := m.NewGlobalDef("__gozyme_tapestack."+name, init)
		g.Linkage = enum.LinkageInternal
		g.TLSModel = enum.TLSModelGeneric
		return g
	}
	top, end, last, chunk, spare := tl("top", i8p), tl("end", i8p), tl("last", i8p), tl("chunk", i8p), tl("spare", i8p)
	registered := tl("registered", types.I64)
	// word returns a pointer to the i-th 8-byte word at p, of type t.
	word := func(b *ir.Block, p value.Value, i int64, t types.Type) value.Value {
		w := b.NewGetElementPtr(types.I8, p, i64(i*8))
		return b.NewBitCast(w, types.NewPointer(t))
	}
	gep := func(b *ir.Block, p, off value.Value) value.Value { return b.NewGetElementPtr(types.I8, p, off) }
	room := func(b *ir.Block, from, to value.Value) value.Value {
		return b.NewSub(b.NewPtrToInt(to, types.I64), b.NewPtrToInt(from, types.I64))
	}
	internal := func(name string, ret types.Type, params ...*ir.Param) *ir.Func {
		f := m.NewFunc(name, ret, params...)
		f.Linkage = enum.LinkageInternal
		return f
	}
	malloc := rules.Declare(m, "malloc", i8p, types.I64)
	free := libc(m, "free")

	// release(i8*): the thread's chunks and spare, at thread exit.
	release := internal("__gozyme_tapestack.release", types.Void, ir.NewParam("", i8p))
	{
		entry, loop, body, done := release.NewBlock(""), release.NewBlock(""), release.NewBlock(""), release.NewBlock("")
		entry.NewCall(free, entry.NewLoad(i8p, spare))
		entry.NewStore(constant.NewNull(i8p), spare)
		entry.NewBr(loop)
		c := loop.NewLoad(i8p, chunk)
		loop.NewCondBr(loop.NewICmp(enum.IPredEQ, c, constant.NewNull(i8p)), done, body)
		body.NewStore(body.NewLoad(i8p, word(body, c, 0, i8p)), chunk)
		body.NewCall(free, c)
		body.NewBr(loop)
		for _, g := range []*ir.Global{top, end, last} {
			done.NewStore(constant.NewNull(i8p), g)
		}
		done.NewRet(nil)
	}

	// newChunk(need): switch to a chunk with need bytes free past its header.
	newChunk := internal("__gozyme_tapestack.newchunk", types.Void, ir.NewParam("need", types.I64))
	{
		need := newChunk.Params[0]
		entry := newChunk.NewBlock("")
		reuse, fresh, dropSpare, doMalloc, failed, reg, regDone, link := newChunk.NewBlock(""), newChunk.NewBlock(""), newChunk.NewBlock(""),
			newChunk.NewBlock(""), newChunk.NewBlock(""), newChunk.NewBlock(""), newChunk.NewBlock(""), newChunk.NewBlock("")
		want := entry.NewAdd(need, i64(tapeChunkHeader))
		// Twice the current chunk (none: 0), at most tapeChunkMax, at
		// least the standard size, and want where that is larger.
		// end is the current chunk's own end: both null before the first.
		curSize := room(entry, entry.NewLoad(i8p, chunk), entry.NewLoad(i8p, end))
		var grown value.Value = entry.NewShl(curSize, i64(1))
		grown = entry.NewSelect(entry.NewICmp(enum.IPredUGT, grown, i64(tapeChunkMax)), i64(tapeChunkMax), grown)
		grown = entry.NewSelect(entry.NewICmp(enum.IPredULT, grown, i64(tapeChunkMin)), i64(tapeChunkMin), grown)
		size := entry.NewSelect(entry.NewICmp(enum.IPredULT, want, grown), grown, want)
		sp := entry.NewLoad(i8p, spare)
		hasSpare := entry.NewICmp(enum.IPredNE, sp, constant.NewNull(i8p))
		entry.NewCondBr(hasSpare, dropSpare, fresh)
		// A spare that holds the block is taken; one too small is freed.
		se := dropSpare.NewLoad(i8p, word(dropSpare, sp, 4, i8p))
		fits := dropSpare.NewICmp(enum.IPredUGE, room(dropSpare, sp, se), want)
		dropSpare.NewCondBr(fits, reuse, doMalloc)
		reuse.NewStore(constant.NewNull(i8p), spare)
		reuse.NewBr(link)
		fresh.NewBr(doMalloc)
		doMalloc.NewCall(free, doMalloc.NewLoad(i8p, spare))
		doMalloc.NewStore(constant.NewNull(i8p), spare)
		small, huge, got := newChunk.NewBlock(""), newChunk.NewBlock(""), newChunk.NewBlock("")
		doMalloc.NewCondBr(doMalloc.NewICmp(enum.IPredULT, size, i64(tapeHugePage)), small, huge)
		rawSmall := small.NewCall(malloc, size)
		small.NewBr(got)
		// Huge-page chunks: a multiple of 2 MiB, 2 MiB-aligned (as
		// aligned_alloc asks), advised where the target is Linux.
		hugeSize := huge.NewAnd(huge.NewAdd(size, i64(tapeHugePage-1)), i64(-tapeHugePage))
		alignedAlloc := rules.Declare(m, "aligned_alloc", i8p, types.I64, types.I64)
		rawHuge := huge.NewCall(alignedAlloc, i64(tapeHugePage), hugeSize)
		if hugePageAdvice(m.TargetTriple) {
			advise, adviseDone := newChunk.NewBlock(""), newChunk.NewBlock("")
			huge.NewCondBr(huge.NewICmp(enum.IPredEQ, rawHuge, constant.NewNull(i8p)), adviseDone, advise)
			madvise := rules.Declare(m, "madvise", types.I32, i8p, types.I64, types.I32)
			advise.NewCall(madvise, rawHuge, hugeSize, constant.NewInt(types.I32, madvHugePage))
			advise.NewBr(adviseDone)
			adviseDone.NewBr(got)
			huge = adviseDone
		} else {
			huge.NewBr(got)
		}
		raw := got.NewPhi(ir.NewIncoming(rawSmall, small), ir.NewIncoming(rawHuge, huge))
		rawSize := got.NewPhi(ir.NewIncoming(size, small), ir.NewIncoming(hugeSize, huge))
		got.NewCondBr(got.NewICmp(enum.IPredEQ, raw, constant.NewNull(i8p)), failed, reg)
		failed.NewCall(rules.Declare(m, "llvm.trap", types.Void))
		failed.NewUnreachable()
		reg.NewStore(gep(reg, raw, rawSize), word(reg, raw, 4, i8p))
		// The thread's first chunk registers the release at thread exit.
		first := reg.NewICmp(enum.IPredEQ, reg.NewLoad(types.I64, registered), i64(0))
		regNow := newChunk.NewBlock("")
		reg.NewCondBr(first, regNow, regDone)
		dtor := types.NewPointer(release.Sig)
		atexit := rules.Declare(m, "__cxa_thread_atexit_impl", types.I32, dtor, i8p, i8p)
		regNow.NewCall(atexit, release, constant.NewNull(i8p), d.dsoHandle())
		regNow.NewStore(i64(1), registered)
		regNow.NewBr(regDone)
		regDone.NewBr(link)
		c := link.NewPhi(ir.NewIncoming(sp, reuse), ir.NewIncoming(raw, regDone))
		link.NewStore(link.NewLoad(i8p, chunk), word(link, c, 0, i8p))
		link.NewStore(link.NewLoad(i8p, top), word(link, c, 1, i8p))
		link.NewStore(link.NewLoad(i8p, end), word(link, c, 2, i8p))
		link.NewStore(link.NewLoad(i8p, last), word(link, c, 3, i8p))
		link.NewStore(c, chunk)
		link.NewStore(gep(link, c, i64(tapeChunkHeader)), top)
		link.NewStore(link.NewLoad(i8p, word(link, c, 4, i8p)), end)
		link.NewStore(constant.NewNull(i8p), last)
		link.NewRet(nil)
	}

	// alloc(n): a block of n bytes (16-aligned) on top.
	alloc := internal("__gozyme_tape_alloc", i8p, ir.NewParam("n", types.I64))
	{
		n := alloc.Params[0]
		check, entry, grow, put, huge := alloc.NewBlock(""), alloc.NewBlock(""), alloc.NewBlock(""), alloc.NewBlock(""), alloc.NewBlock("")
		// More than any chunk could hold (growRecords asks SIZE_MAX
		// bytes for a count that would wrap): null, as malloc fails.
		check.NewCondBr(check.NewICmp(enum.IPredUGT, n, i64(tapeMaxBlock)), huge, entry)
		huge.NewRet(constant.NewNull(i8p))
		sz := entry.NewAnd(entry.NewAdd(n, i64(15)), i64(-16))
		need := entry.NewAdd(sz, i64(tapeBlockHeader))
		t := entry.NewLoad(i8p, top)
		e := entry.NewLoad(i8p, end)
		// top is null before the first chunk: room is 0 then.
		entry.NewCondBr(entry.NewICmp(enum.IPredUGT, need, room(entry, t, e)), grow, put)
		grow.NewCall(newChunk, need)
		grow.NewBr(put)
		h := put.NewLoad(i8p, top)
		put.NewStore(put.NewLoad(i8p, last), word(put, h, 0, i8p))
		put.NewStore(sz, word(put, h, 1, types.I64))
		put.NewStore(h, last)
		p := gep(put, h, i64(tapeBlockHeader))
		put.NewStore(gep(put, p, sz), top)
		put.NewRet(p)
	}

	// free(p): mark p's block freed, then move the top down over freed
	// blocks (and emptied chunks but the first).
	fr := internal("__gozyme_tape_free", types.Void, ir.NewParam("p", i8p))
	{
		p := fr.Params[0]
		entry, mark, loop, inChunk, popBlock, chunkEmpty, popChunk, keepSpare, freeChunk, resume, done := fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""),
			fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock(""), fr.NewBlock("")
		check, popTop := fr.NewBlock(""), fr.NewBlock("")
		entry.NewCondBr(entry.NewICmp(enum.IPredEQ, p, constant.NewNull(i8p)), done, check)
		// The topmost block (last in, first out: the common case) is
		// popped at once, without its mark; the loop then pops the freed
		// blocks below it.
		h := gep(check, p, i64(-tapeBlockHeader))
		check.NewCondBr(check.NewICmp(enum.IPredEQ, h, check.NewLoad(i8p, last)), popTop, mark)
		popTop.NewStore(h, top)
		popTop.NewStore(popTop.NewLoad(i8p, word(popTop, h, 0, i8p)), last)
		popTop.NewBr(loop)
		szp := word(mark, h, 1, types.I64)
		mark.NewStore(mark.NewOr(mark.NewLoad(types.I64, szp), i64(1)), szp)
		mark.NewBr(loop)
		l := loop.NewLoad(i8p, last)
		loop.NewCondBr(loop.NewICmp(enum.IPredEQ, l, constant.NewNull(i8p)), chunkEmpty, inChunk)
		freed := inChunk.NewAnd(inChunk.NewLoad(types.I64, word(inChunk, l, 1, types.I64)), i64(1))
		inChunk.NewCondBr(inChunk.NewICmp(enum.IPredEQ, freed, i64(0)), done, popBlock)
		popBlock.NewStore(l, top)
		popBlock.NewStore(popBlock.NewLoad(i8p, word(popBlock, l, 0, i8p)), last)
		popBlock.NewBr(loop)
		// An emptied chunk: back to the one before it (the first, with no
		// chunk before it, back to no chunk); the first chunk of the
		// standard size stays, for the next gradient. A popped chunk of at
		// most tapeChunkMax larger than the spare (or with none) becomes
		// the spare, the spare it replaces freed; others are freed.
		c := chunkEmpty.NewLoad(i8p, chunk)
		some := fr.NewBlock("")
		chunkEmpty.NewCondBr(chunkEmpty.NewICmp(enum.IPredEQ, c, constant.NewNull(i8p)), done, some)
		prev := some.NewLoad(i8p, word(some, c, 0, i8p))
		cSize := room(some, c, some.NewLoad(i8p, word(some, c, 4, i8p)))
		standard := some.NewICmp(enum.IPredEQ, cSize, i64(tapeChunkMin))
		keepFirst := some.NewAnd(some.NewICmp(enum.IPredEQ, prev, constant.NewNull(i8p)), standard)
		some.NewCondBr(keepFirst, done, popChunk)
		popChunk.NewStore(prev, chunk)
		popChunk.NewStore(popChunk.NewLoad(i8p, word(popChunk, c, 1, i8p)), top)
		popChunk.NewStore(popChunk.NewLoad(i8p, word(popChunk, c, 2, i8p)), end)
		popChunk.NewStore(popChunk.NewLoad(i8p, word(popChunk, c, 3, i8p)), last)
		sp := popChunk.NewLoad(i8p, spare)
		kept, haveSpare := fr.NewBlock(""), fr.NewBlock("")
		popChunk.NewCondBr(popChunk.NewICmp(enum.IPredULE, cSize, i64(tapeChunkMax)), kept, freeChunk)
		kept.NewCondBr(kept.NewICmp(enum.IPredEQ, sp, constant.NewNull(i8p)), keepSpare, haveSpare)
		spSize := room(haveSpare, sp, haveSpare.NewLoad(i8p, word(haveSpare, sp, 4, i8p)))
		haveSpare.NewCondBr(haveSpare.NewICmp(enum.IPredUGT, cSize, spSize), keepSpare, freeChunk)
		keepSpare.NewCall(free, sp)
		keepSpare.NewStore(c, spare)
		keepSpare.NewBr(resume)
		freeChunk.NewCall(free, c)
		freeChunk.NewBr(resume)
		resume.NewBr(loop)
		done.NewRet(nil)
	}

	// realloc(p, n): in place when p's block is the topmost and its chunk
	// has the room (or n is no larger), else a new block, copied, and p's
	// released.
	re := internal("__gozyme_tape_realloc", i8p, ir.NewParam("p", i8p), ir.NewParam("n", types.I64))
	{
		p, n := re.Params[0], re.Params[1]
		entry, have, topmost, inPlace, notTop, move, keep := re.NewBlock(""), re.NewBlock(""), re.NewBlock(""), re.NewBlock(""),
			re.NewBlock(""), re.NewBlock(""), re.NewBlock("")
		fresh, sized, huge := re.NewBlock(""), re.NewBlock(""), re.NewBlock("")
		entry.NewCondBr(entry.NewICmp(enum.IPredUGT, n, i64(tapeMaxBlock)), huge, sized)
		huge.NewRet(constant.NewNull(i8p)) // p stays, as realloc leaves it
		sized.NewCondBr(sized.NewICmp(enum.IPredEQ, p, constant.NewNull(i8p)), fresh, have)
		fresh.NewRet(fresh.NewCall(alloc, n))
		sz := have.NewAnd(have.NewAdd(n, i64(15)), i64(-16))
		h := gep(have, p, i64(-tapeBlockHeader))
		szp := word(have, h, 1, types.I64)
		old := have.NewLoad(types.I64, szp)
		have.NewCondBr(have.NewICmp(enum.IPredEQ, h, have.NewLoad(i8p, last)), topmost, notTop)
		fitsHere := topmost.NewICmp(enum.IPredULE, sz, room(topmost, p, topmost.NewLoad(i8p, end)))
		topmost.NewCondBr(fitsHere, inPlace, notTop)
		inPlace.NewStore(sz, szp)
		inPlace.NewStore(gep(inPlace, p, sz), top)
		inPlace.NewRet(p)
		notTop.NewCondBr(notTop.NewICmp(enum.IPredULE, sz, old), keep, move)
		keep.NewRet(p)
		q := move.NewCall(alloc, n)
		memcpy := rules.Declare(m, "llvm.memcpy.p0i8.p0i8.i64", types.Void, i8p, i8p, types.I64, types.I1)
		// old's low bit is clear: the block is live.
		move.NewCall(memcpy, q, p, old, constant.False)
		move.NewCall(fr, p)
		move.NewRet(q)
	}
	// The fast paths are a few instructions: inlined into every pair, as
	// malloc's and free's calls were not; the chunk switch stays a call.
	alloc.FuncAttrs = append(alloc.FuncAttrs, enum.FuncAttrAlwaysInline)
	fr.FuncAttrs = append(fr.FuncAttrs, enum.FuncAttrAlwaysInline)
	re.FuncAttrs = append(re.FuncAttrs, enum.FuncAttrAlwaysInline)
	newChunk.FuncAttrs = append(newChunk.FuncAttrs, enum.FuncAttrNoInline, enum.FuncAttrCold)
	d.tapeRT = &tapeStack{alloc: alloc, realloc: re, free: fr}
	return d.tapeRT
}

// stackTapes switches the tapes of the pairs the stack discipline holds for
// (see above) from malloc, realloc and free to the tape stack.
func (d *differ) stackTapes() {
	if d.gpu || len(d.splits) == 0 {
		return
	}
	names := make([]string, 0, len(d.splits))
	for n := range d.splits {
		names = append(names, n)
	}
	sort.Strings(names)
	off := map[*splitGrad]bool{}
	var mark func(s *splitGrad)
	mark = func(s *splitGrad) {
		if off[s] {
			return
		}
		off[s] = true
		for _, c := range s.callees {
			mark(c)
		}
	}
	for _, n := range names {
		if s := d.splits[n]; s.userHeld || s.parallel {
			mark(s)
		}
	}
	for _, n := range names {
		s := d.splits[n]
		if off[s] || len(s.tapeMem) == 0 {
			continue
		}
		_, augAgain := d.prep[s.aug]
		_, revAgain := d.prep[s.rev]
		if augAgain || revAgain {
			continue
		}
		rt := d.tapeStackRuntime()
		for _, c := range s.tapeMem {
			switch irfacts.CalleeName(c) {
			case "malloc":
				c.Callee = rt.alloc
			case "realloc":
				c.Callee = rt.realloc
			case "free":
				c.Callee = rt.free
			}
		}
	}
}
