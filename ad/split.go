package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// splitGrad is the reverse mode of a called function cut in two, as Enzyme
// does for calls inside differentiated code: the augmented forward runs the
// primal and returns its result with a tape (everything its reverse will
// read, in one malloc'd struct); the reverse takes the arguments again, the
// return adjoint and the tape, returns the Out adjoints and frees the tape.
//
//	aug(params...)                 -> {ret, i8* tape}   (i8* alone for void)
//	rev(params..., [dret], i8* tape) -> Out adjoints
type splitGrad struct {
	aug, rev  *ir.Func
	retActive bool
	retShadow bool       // aug returns {ret, shadow of ret, tape}
	tape      types.Type // what the tape points to (nil: no tape, a null pointer)
	// framed: the caller gives the tape's memory (aug's last parameter,
	// frametape.go); the reverse does not free it.
	framed bool
	// frame is a framed pair's tape type, named and registered with the
	// shells, its fields set once the pair is generated: a loop record
	// holding the tape of a recursive call names it before (frametape.go).
	frame *types.StructType
	done  bool // generated (a recursive call meets the pair before)

	// For the tape stack (tapestack.go): the pairs its forward calls, the
	// calls allocating, growing and freeing its tape and records, whether
	// the user holds its tapes (split mode) and whether the threads of a
	// parallel region run it.
	callees            []*splitGrad
	tapeMem            []*ir.InstCall
	userHeld, parallel bool
}

func splitName(prefix string, f *ir.Func, acts []activity.Activity, retActive, retShadow, parallel, quiet bool) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	sb.WriteString(f.Name())
	sb.WriteByte('_')
	for _, a := range acts {
		sb.WriteByte("codn"[a])
	}
	if retActive {
		sb.WriteString("_r")
	}
	if retShadow {
		sb.WriteString("_s")
	}
	if parallel {
		sb.WriteString("_par")
	}
	if quiet {
		sb.WriteString("_q")
	}
	return sb.String()
}

// splitGradient returns the augmented forward and reverse functions of f,
// creating them on first use. Their shells are registered before their
// bodies are generated, so recursion finds them.
func (d *differ) splitGradient(f *ir.Func, acts []activity.Activity, retActive, retShadow bool) (*splitGrad, error) {
	return d.splitGradientIn(f, acts, retActive, retShadow, false, false)
}

// splitGradientIn is splitGradient; parallel asks for the pair run by the
// threads of a parallel region, whose shadow accumulation into memory other
// threads may touch is atomic (atomics.go); quiet asks for the pair whose
// every call site lets nothing write primal memory between the augmented
// forward and the reverse (quiet.go).
func (d *differ) splitGradientIn(f *ir.Func, acts []activity.Activity, retActive, retShadow, parallel, quiet bool) (*splitGrad, error) {
	return d.splitGradientAt(f, acts, retActive, retShadow, parallel, quiet, siteFacts{})
}

// siteFacts are what a call site proves beyond its activities: the
// arguments whose contents are private (privcontents.go), where it is not
// quiet the tags of all that writes between the pair's halves
// (quiettags.go), and whether the caller gives the tape's memory (framed,
// frametape.go).
type siteFacts struct {
	private    []bool
	quietTyped bool
	quietTags  []*metadata.Tuple
	framed     bool
}

// suffix names the facts in a pair's name.
func (s siteFacts) suffix() string {
	out := privateSuffix(s.private)
	if s.quietTyped {
		out += quietTagsSuffix(s.quietTags)
	}
	return out + frameSuffix(s.framed)
}

// splitGradientAt is splitGradientIn for a call site with facts: a pair of
// its own, named for them.
func (d *differ) splitGradientAt(f *ir.Func, acts []activity.Activity, retActive, retShadow, parallel, quiet bool, facts siteFacts) (*splitGrad, error) {
	suffix := facts.suffix()
	private, framed := facts.private, facts.framed
	augName := splitName("__gozyme_aug_", f, acts, retActive, retShadow, parallel, quiet) + suffix
	if s, ok := d.splits[augName]; ok {
		return s, nil
	}
	params := func() []*ir.Param {
		var ps []*ir.Param
		for i, p := range f.Params {
			ps = append(ps, ir.NewParam("", p.Typ))
			if acts[i] == activity.Dup || acts[i] == activity.DupNoNeed {
				ps = append(ps, ir.NewParam("", p.Typ))
			}
		}
		return ps
	}
	var augRet types.Type = types.I8Ptr
	switch {
	case retShadow:
		augRet = types.NewStruct(f.Sig.RetType, f.Sig.RetType, types.I8Ptr)
	case !types.Equal(f.Sig.RetType, types.Void):
		augRet = types.NewStruct(f.Sig.RetType, types.I8Ptr)
	}
	augParams := params()
	if framed {
		augParams = append(augParams, ir.NewParam("frame", types.I8Ptr))
	}
	aug := d.m.NewFunc(augName, augRet, augParams...)
	aug.Linkage = enum.LinkageInternal
	revParams := params()
	var outs []types.Type
	for i, p := range f.Params {
		if acts[i] == activity.Out {
			outs = append(outs, p.Typ)
		}
	}
	if retActive {
		revParams = append(revParams, ir.NewParam("dret", f.Sig.RetType))
	}
	revParams = append(revParams, ir.NewParam("tape", types.I8Ptr))
	rev := d.m.NewFunc(splitName("__gozyme_rev_", f, acts, retActive, retShadow, parallel, quiet)+suffix, outsType(outs), revParams...)
	rev.Linkage = enum.LinkageInternal
	inheritTarget(aug, f)
	inheritTarget(rev, f)
	s := &splitGrad{aug: aug, rev: rev, retActive: retActive, retShadow: retShadow, parallel: parallel, framed: framed}
	if framed {
		s.frame = d.frameType(augName)
	}
	d.splits[augName] = s

	pf, err := d.prepared(f)
	if err != nil {
		return nil, err
	}
	r, err := d.generateReverse(func() (*reverseGen, error) {
		r, err := newReverseGen(d, pf, acts, retActive, retShadow, true, augName)
		if r != nil {
			r.pair = s
			r.parallel = parallel
			r.quiet = quiet && !parallel && !d.gpu
			if len(private) > 0 {
				r.contents = d.calleeContents(pf, private)
			}
			if !r.quiet && !parallel && !d.gpu && facts.quietTyped {
				r.quietTyped, r.quietTags = true, facts.quietTags
			}
		}
		return r, err
	})
	if err != nil {
		return nil, err
	}
	tape, err := r.cut(aug, rev)
	if err != nil {
		return nil, err
	}
	s.tape = tape
	s.tapeMem = r.tapeMem
	s.done = true
	return s, nil
}

// cut moves the blocks of the generated (combined-layout) function into the
// augmented forward and reverse functions, turning every cache slot into a
// field of the tape. It returns the tape's type (nil when there is none).
func (r *reverseGen) cut(aug, rev *ir.Func) (types.Type, error) {
	g := r.g
	if len(r.rets) > 1 {
		r.retIdx = r.newCacheSlot(types.I32, nil)
	}
	// The return seeds come first: they may create adjoint slots.
	entries := r.reverseEntries()
	seedBlocks := make([]*ir.Block, len(r.rets))
	for i, b := range r.rets {
		sb := ir.NewBlock("")
		sb.Parent = rev
		if ret := b.Term.(*ir.TermRet); r.dret != nil && ret.X != nil && r.act.Active(ret.X) {
			r.accumulate(sb, ret.X, r.dret)
		}
		sb.NewBr(entries[i])
		seedBlocks[i] = sb
	}
	// Split the alloca block: cache slots (with their initial stores) go to
	// the tape, adjoint slots to the reverse function.
	var cacheSlots []*ir.InstAlloca
	var adjInsts []ir.Instruction
	inits := map[*ir.InstAlloca]value.Value{}
	for _, inst := range r.allocas.Insts {
		switch x := inst.(type) {
		case *ir.InstAlloca:
			if r.isCache[x] {
				cacheSlots = append(cacheSlots, x)
			} else {
				adjInsts = append(adjInsts, x)
			}
		case *ir.InstStore:
			if a, ok := x.Dst.(*ir.InstAlloca); ok && r.isCache[a] {
				inits[a] = x.Src
			} else {
				adjInsts = append(adjInsts, x)
			}
		}
	}
	fwdSet := map[*ir.Block]bool{}
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		if fwdSet[b] {
			return
		}
		fwdSet[b] = true
		for _, s := range irutil.Succs(b) {
			walk(s)
		}
	}
	walk(r.fwdHead[r.f.Blocks[0]])
	cacheSlots, fwdOnly := r.readInReverse(cacheSlots, fwdSet)

	fieldTypes := make([]types.Type, len(cacheSlots))
	for i, a := range cacheSlots {
		fieldTypes[i] = a.ElemType
	}
	tapeType := types.NewStruct(fieldTypes...)
	if r.pair != nil && r.pair.frame != nil {
		r.pair.frame.Fields = fieldTypes
		tapeType = r.pair.frame
	}
	hasTape := len(cacheSlots) > 0
	if hasTape && r.d.gpu {
		// A tape is heap memory handed from the augmented forward to the
		// reverse: a device malloc per thread and call (gpucache.go).
		return nil, errorAt(r.f, nil, "a call of '%s' inside the differentiated code needs values cached across the call, which on a GPU would take a heap allocation per thread: make the function inline (__forceinline__) or its values recomputable", r.f.Name())
	}

	// Augmented forward: allocate the tape, point every cache slot into it.
	augEntry := ir.NewBlock("entry")
	augEntry.Parent = aug
	var raw value.Value = constant.NewNull(types.I8Ptr)
	fieldsIn := func(blk *ir.Block, tape value.Value) map[value.Value]value.Value {
		m := map[value.Value]value.Value{}
		tp := blk.NewBitCast(tape, types.NewPointer(tapeType))
		for i, a := range cacheSlots {
			m[a] = blk.NewGetElementPtr(tapeType, tp, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
		}
		return m
	}
	var augFields map[value.Value]value.Value
	// Scalar slots only loaded and stored (loop counters, record buffers,
	// values cached once) live in each function's frame, where the
	// optimizer keeps them in registers across the calls the forward
	// makes: the forward writes them to the tape as it returns, the
	// reverse reads them from it on entry.
	local := map[*ir.InstAlloca]*ir.InstAlloca{}
	framed := r.pair != nil && r.pair.framed
	if hasTape {
		if framed {
			raw = aug.Params[len(aug.Params)-1]
		} else {
			malloc := rules.Declare(r.m, "malloc", types.I8Ptr, types.I64)
			call := augEntry.NewCall(malloc, sizeOf(tapeType))
			r.tapeMem = append(r.tapeMem, call)
			raw = call
		}
		augFields = fieldsIn(augEntry, raw)
		plain := plainSlots(g, r.allocas, cacheSlots)
		for _, a := range cacheSlots {
			dst := augFields[a]
			if plain[a] {
				l := augEntry.NewAlloca(a.ElemType)
				local[a] = l
				dst = l
			}
			if init, ok := inits[a]; ok {
				augEntry.NewStore(init, dst)
			}
		}
	}
	for _, a := range fwdOnly {
		l := augEntry.NewAlloca(a.ElemType)
		if init, ok := inits[a]; ok {
			augEntry.NewStore(init, l)
		}
		local[a] = l
	}
	augEntry.NewBr(r.fwdHead[r.f.Blocks[0]])
	for i, b := range r.rets {
		tail := r.fwdTail[b]
		if r.retIdx != nil {
			tail.NewStore(constant.NewInt(types.I32, int64(i)), r.retIdx)
		}
		ret := b.Term.(*ir.TermRet)
		if ret.X == nil {
			tail.NewRet(raw)
			continue
		}
		agg := tail.NewInsertValue(constant.NewUndef(aug.Sig.RetType), r.mapValue(ret.X), 0)
		tapeField := uint64(1)
		if r.retShadow {
			sv, err := r.shadowOf(ret, ret.X)
			if err != nil {
				return nil, err
			}
			agg = tail.NewInsertValue(agg, sv, 1)
			tapeField = 2
		}
		tail.NewRet(tail.NewInsertValue(agg, raw, tapeField))
	}
	aug.Blocks = []*ir.Block{augEntry}
	var revBlocks []*ir.Block
	for _, b := range g.Blocks {
		switch {
		case b == r.allocas:
		case fwdSet[b]:
			aug.Blocks = append(aug.Blocks, b)
		default:
			revBlocks = append(revBlocks, b)
		}
	}
	for _, b := range aug.Blocks {
		b.Parent = aug
	}
	// The forward's uses replaced in one pass over it (ReplaceAllUsesOf).
	var olds, news []value.Value
	for _, a := range append(cacheSlots, fwdOnly...) {
		if l, ok := local[a]; ok && augFields[a] == nil {
			olds, news = append(olds, a), append(news, l) // the forward's alone
			continue
		}
		if l, ok := local[a]; ok {
			olds, news = append(olds, a), append(news, l)
			for _, b := range r.rets {
				tail := r.fwdTail[b]
				ld := ir.NewLoad(a.ElemType, l)
				tail.Insts = append(tail.Insts, ld, ir.NewStore(ld, augFields[a]))
			}
		} else {
			olds, news = append(olds, a), append(news, augFields[a])
		}
	}
	nArgs := len(aug.Params) // primal parameters and their shadows
	if framed {
		nArgs-- // and the tape's memory
	}
	for i, p := range g.Params[:nArgs] {
		olds, news = append(olds, p), append(news, aug.Params[i])
	}
	irutil.ReplaceAllUsesOf(aug, olds, news)

	// Reverse: fields of the tape, fresh adjoint slots, the return seed,
	// then the reverse sweep; the exit frees the tape.
	revEntry := ir.NewBlock("entry")
	revEntry.Parent = rev
	tapeParam := rev.Params[len(rev.Params)-1]
	revFields := map[value.Value]value.Value{}
	if hasTape {
		revFields = fieldsIn(revEntry, tapeParam)
		for _, a := range cacheSlots {
			if _, ok := local[a]; ok {
				l := revEntry.NewAlloca(a.ElemType)
				revEntry.NewStore(revEntry.NewLoad(a.ElemType, revFields[a]), l)
				revFields[a] = l
			}
		}
	}
	for _, a := range fwdOnly {
		revFields[a] = revEntry.NewAlloca(a.ElemType) // stored to at most, never read
	}
	revEntry.Insts = append(revEntry.Insts, adjInsts...)
	rev.Blocks = append([]*ir.Block{revEntry}, seedBlocks...)
	switch {
	case len(seedBlocks) == 1:
		revEntry.NewBr(seedBlocks[0])
	case len(seedBlocks) > 1:
		which := revEntry.NewLoad(types.I32, r.retIdx)
		cases := make([]*ir.Case, len(seedBlocks)-1)
		for i := range cases {
			cases[i] = ir.NewCase(constant.NewInt(types.I32, int64(i)), seedBlocks[i])
		}
		revEntry.NewSwitch(which, seedBlocks[len(seedBlocks)-1], cases...)
	default:
		revEntry.NewUnreachable() // the primal never returns
	}
	rev.Blocks = append(rev.Blocks, revBlocks...)
	for _, b := range rev.Blocks {
		b.Parent = rev
	}
	if hasTape && !framed {
		r.tapeMem = append(r.tapeMem, r.exit.NewCall(libc(r.m, "free"), tapeParam))
	}
	olds, news = olds[:0], news[:0]
	for a, gep := range revFields {
		olds, news = append(olds, a), append(news, gep)
	}
	for i, p := range g.Params[:nArgs] {
		olds, news = append(olds, p), append(news, rev.Params[i])
	}
	if r.dret != nil {
		olds, news = append(olds, r.dret), append(news, rev.Params[nArgs])
	}
	irutil.ReplaceAllUsesOf(rev, olds, news)
	// The loads and stores written here move cache slots to and from the
	// tape, which malloc and the tape stack align to 16 bytes only: without
	// an explicit alignment LLVM reads the type's ABI alignment (32 for a
	// <4 x double>) and emits aligned vector moves that fault.
	setMinimalAlignment(aug)
	setMinimalAlignment(rev)
	if !hasTape {
		return nil, nil
	}
	return tapeType, nil
}

// plainSlots returns which of the cache slots of g (outside its alloca
// block, which initializes them) hold a scalar and are only loaded from and
// stored to: no address of theirs is taken, so each function of the pair
// may keep its own copy.
func plainSlots(g *ir.Func, allocas *ir.Block, slots []*ir.InstAlloca) map[*ir.InstAlloca]bool {
	plain := map[*ir.InstAlloca]bool{}
	for _, a := range slots {
		switch a.ElemType.(type) {
		case *types.StructType, *types.ArrayType:
		default:
			plain[a] = true
		}
	}
	uses := func(ops []*value.Value, ok func(*value.Value) bool) {
		for _, op := range ops {
			v := *op
			switch x := v.(type) {
			case *ir.Arg:
				v = x.Value
			case *metadata.Value:
				if mv, isValue := x.Value.(value.Value); isValue {
					v = mv
				}
			}
			if a, isSlot := v.(*ir.InstAlloca); isSlot && plain[a] && !ok(op) {
				delete(plain, a)
			}
		}
	}
	for _, b := range g.Blocks {
		if b == allocas {
			continue
		}
		for _, inst := range b.Insts {
			u, has := inst.(interface{ Operands() []*value.Value })
			if !has {
				continue
			}
			switch x := inst.(type) {
			case *ir.InstLoad:
				uses(u.Operands(), func(op *value.Value) bool { return op == &x.Src })
			case *ir.InstStore:
				uses(u.Operands(), func(op *value.Value) bool { return op == &x.Dst })
			default:
				uses(u.Operands(), func(*value.Value) bool { return false })
			}
		}
		if u, has := b.Term.(interface{ Operands() []*value.Value }); has {
			uses(u.Operands(), func(*value.Value) bool { return false })
		}
	}
	return plain
}

// readInReverse splits the cache slots into those the reverse reads,
// fields of the tape, and the plain ones (plainSlots) whose forward value
// the reverse never loads (a loop's capacity, the forward's own
// bookkeeping, a counter the reverse restarts: exposedInReverse): each
// function keeps its own copy of those and the tape has no field for them.
func (r *reverseGen) readInReverse(slots []*ir.InstAlloca, fwdSet map[*ir.Block]bool) (read, fwdOnly []*ir.InstAlloca) {
	plain := plainSlots(r.g, r.allocas, slots)
	exposed := r.exposedInReverse(plain, fwdSet)
	for _, a := range slots {
		if plain[a] && !exposed[a] && a != r.retIdx {
			fwdOnly = append(fwdOnly, a)
		} else {
			read = append(read, a)
		}
	}
	return read, fwdOnly
}
