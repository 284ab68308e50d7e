package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Shadow accumulation on a GPU. The reverse of a load adds the load's
// adjoint into the shadow of the address read. Threads that read the same
// address in the primal (a benign read race, daxpy's a[0]) add into the
// same shadow in the reverse: a write race, unless the add is atomic. So
// every accumulation is an atomic add (atomicrmw fadd, relaxed: adjoints
// are only added up, and barriers order them against the reads of the
// shadow), except where the address is proven private to the thread:
//   - memory of the thread's own stack (allocas: local memory);
//   - in a gradient called from a kernel, p[gid] where gid is the global
//     thread index along x (blockIdx.x·blockDim.x + threadIdx.x) and p a
//     kernel parameter passed to every thread alike, when every access of
//     the gradient that may reach p's memory is p[gid] as well: then no
//     two threads touch the same element. That holds for a launch whose
//     grid and blocks are one-dimensional (else threads differing in y or
//     z share gid): such a gradient comes in two variants, plain adds
//     there and atomic ones, and the launch picks one (launchVariants).
// Where the address is likely the same for every thread (a kernel
// parameter at an offset that does not depend on the thread: daxpy's
// a[0], a coefficient p[k % 4] in a loop), a warp whose lanes all add at
// the same address (checked at run time) first sums its lanes' values and
// one lane adds the sum (gpuAddHelper).

// privacy classifies the address of a shadow accumulation.
type privacy int

const (
	sharedAddr  privacy = iota // other threads may add there: atomic
	privateAddr                // the thread's own memory: plain
	gidAddr                    // private in a one-dimensional launch (launchVariants)
	uniformAddr                // likely the same address in every thread: warp sum, then atomic
)

// accumulateShadow emits shadow += d at sp, the shadow of primal pointer p
// (t the type added, align the primal access's alignment).
func (r *reverseGen) accumulateShadow(blk *ir.Block, sp, d value.Value, t types.Type, align ir.Align, p value.Value) error {
	kind := privateAddr
	if r.d.gpu {
		kind = r.addressPrivacy(p)
	}
	plain := func(b *ir.Block, sp, d value.Value) {
		old := b.NewLoad(t, sp)
		old.Align = align
		st := b.NewStore(addAny(b, old, d, t), sp)
		st.Align = align
	}
	if kind == privateAddr {
		plain(blk, sp, d)
		return nil
	}
	ft := floatElement(t)
	if ft == nil || (ft.Kind != types.FloatKindFloat && ft.Kind != types.FloatKindDouble) {
		return fmt.Errorf("no atomic add of %s for the adjoint of memory other threads may read", t)
	}
	for _, lane := range scalarLanes(blk, sp, d, t) {
		ptr := lane.ptr
		if pt := ptr.Type().(*types.PointerType); pt.AddrSpace != 0 && kind != sharedAddr {
			ptr = blk.NewAddrSpaceCast(ptr, types.NewPointer(pt.ElemType)) // the helpers take generic pointers
		}
		switch kind {
		case gidAddr:
			// Plain in the variant for one-dimensional launches, atomic
			// in the other (launchVariants).
			r.usedGID = true
			if r.gidPlain {
				blk.NewStore(blk.NewFAdd(blk.NewLoad(lane.val.Type(), ptr), lane.val), ptr)
			} else {
				r.d.sharedAdd(blk, ptr, lane.val)
			}
		case uniformAddr:
			blk.NewCall(r.d.warpAddHelper(ft), ptr, lane.val)
		default:
			r.d.sharedAdd(blk, ptr, lane.val)
		}
	}
	return nil
}

// scalarLane is one float of a value added into shadow memory.
type scalarLane struct{ ptr, val value.Value }

// scalarLanes splits adding d (of float, vector or aggregate type t) at sp
// into scalar adds.
func scalarLanes(blk *ir.Block, sp, d value.Value, t types.Type) []scalarLane {
	if _, ok := t.(*types.FloatType); ok {
		return []scalarLane{{sp, d}}
	}
	var out []scalarLane
	switch x := t.(type) {
	case *types.VectorType:
		ep := blk.NewBitCast(sp, elemPointer(sp, x.ElemType))
		for i := uint64(0); i < x.Len; i++ {
			out = append(out, scalarLane{
				blk.NewGetElementPtr(x.ElemType, ep, constant.NewInt(types.I64, int64(i))),
				blk.NewExtractElement(d, constant.NewInt(types.I32, int64(i))),
			})
		}
	default:
		for _, f := range leafFields(t, nil) {
			if floatElement(f.typ) == nil {
				continue
			}
			idx := make([]uint64, len(f.path))
			for i, p := range f.path {
				idx[i] = p.(*constant.Int).X.Uint64()
			}
			gep := blk.NewGetElementPtr(t, sp, append([]value.Value{constant.NewInt(types.I64, 0)}, f.path...)...)
			out = append(out, scalarLanes(blk, gep, blk.NewExtractValue(d, idx...), f.typ)...)
		}
	}
	return out
}

// elemPointer is a pointer to elem in the address space of pointer p.
func elemPointer(p value.Value, elem types.Type) *types.PointerType {
	pt := types.NewPointer(elem)
	if old, ok := p.Type().(*types.PointerType); ok {
		pt.AddrSpace = old.AddrSpace
	}
	return pt
}

// addressPrivacy classifies the shadow accumulation through primal pointer p.
func (r *reverseGen) addressPrivacy(p value.Value) privacy {
	p = irfacts.Unwrap(p)
	if objs, known := underlyingObjects(p); known && len(objs) > 0 {
		private := true
		for _, o := range objs {
			if _, ok := o.(*ir.InstAlloca); !ok {
				private = false
			}
		}
		if private {
			return privateAddr
		}
	}
	if r.uniformAddress(p) {
		return uniformAddr
	}
	if r.gidPrivate(p) {
		return gidAddr
	}
	return sharedAddr
}

// uniformAddress reports a pointer every thread of a warp likely computes
// alike: a kernel parameter passed alike to every thread, a __shared__ or
// other global variable, at offsets that do not depend on the thread
// (threadIndependent). A guess only: the warp sum checks at run time that
// the lanes' addresses are equal (gpuAddHelper).
func (r *reverseGen) uniformAddress(p value.Value) bool {
	seen := map[value.Value]bool{}
	for {
		p = irfacts.Unwrap(p)
		switch x := p.(type) {
		case *ir.InstGetElementPtr:
			for _, ix := range x.Indices {
				if !threadIndependent(ix, seen) {
					return false
				}
			}
			p = x.Src
		case *ir.InstBitCast:
			p = x.From
		case *ir.InstAddrSpaceCast:
			p = x.From
		case *constant.ExprGetElementPtr:
			p = x.Src
		case *constant.ExprBitCast:
			p = x.From
		case *constant.ExprAddrSpaceCast:
			p = x.From
		case *ir.Global:
			return true
		case *ir.Param:
			return r.uniformParam(x)
		default:
			return false
		}
	}
}

// threadIndependent reports an integer computed without the thread's
// index within its block (or lane), loads or calls: from constants,
// parameters, block indices and sizes, through arithmetic, phis and
// selects (a loop counter).
func threadIndependent(v value.Value, seen map[value.Value]bool) bool {
	v = irfacts.Unwrap(v)
	if seen[v] {
		return true
	}
	seen[v] = true
	switch x := v.(type) {
	case constant.Constant, *ir.Param:
		return true
	case *ir.InstCall:
		n := sregName(x)
		return n != "" && !strings.HasPrefix(n, "tid.") && n != "laneid"
	case *ir.InstLoad, *ir.InstAlloca:
		return false
	case *ir.InstPhi:
		for _, in := range irfacts.IncomingValues(x) {
			if !threadIndependent(in, seen) {
				return false
			}
		}
		return true
	case ir.Instruction:
		switch x.(type) {
		case *ir.InstAdd, *ir.InstSub, *ir.InstMul, *ir.InstSDiv, *ir.InstUDiv, *ir.InstSRem, *ir.InstURem,
			*ir.InstShl, *ir.InstLShr, *ir.InstAShr, *ir.InstAnd, *ir.InstOr, *ir.InstXor,
			*ir.InstSExt, *ir.InstZExt, *ir.InstTrunc, *ir.InstICmp, *ir.InstSelect, *ir.InstFreeze:
			for _, op := range operandsOf(x) {
				if !threadIndependent(op, seen) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// uniformParam reports a parameter of the differentiated function whose
// value and shadow the kernel passes alike to every thread (rootUniform).
func (r *reverseGen) uniformParam(p *ir.Param) bool {
	for i, q := range r.f.Params {
		if q == p {
			return i < len(r.uniform) && r.uniform[i]
		}
	}
	return false
}

// gidPrivate reports p = q[gid] (gid the global thread index along x, q a
// uniform parameter) where every access of the function that may reach
// q's memory is q[gid] with the same element type: each thread then has
// its own element (in a one-dimensional launch, launchIs1D).
func (r *reverseGen) gidPrivate(p value.Value) bool {
	q, elem, ok := gidElement(p)
	if !ok || !r.uniformParam(q) {
		return false
	}
	key := gidKey{q, elem.String()}
	if v, ok := r.gidOnly[key]; ok {
		return v
	}
	v := r.onlyGIDAccesses(q, elem)
	if r.gidOnly == nil {
		r.gidOnly = map[gidKey]bool{}
	}
	r.gidOnly[key] = v
	return v
}

type gidKey struct {
	q    *ir.Param
	elem string
}

// gidElement matches p = getelementptr T, q, gid with q a parameter.
func gidElement(p value.Value) (*ir.Param, types.Type, bool) {
	g, ok := irfacts.Unwrap(p).(*ir.InstGetElementPtr)
	if !ok || len(g.Indices) != 1 || !isGlobalThreadIndex(g.Indices[0]) {
		return nil, nil, false
	}
	q, ok := irfacts.Unwrap(g.Src).(*ir.Param)
	return q, g.ElemType, ok
}

// onlyGIDAccesses reports whether every memory access of the primal that
// may reach parameter q's memory is q[gid] of element type elem, and no
// call may reach it.
func (r *reverseGen) onlyGIDAccesses(q *ir.Param, elem types.Type) bool {
	reaches := func(ptr value.Value) bool {
		objs, known := underlyingObjects(ptr)
		if !known {
			return true
		}
		for _, o := range objs {
			if mayAlias(o, q) {
				return true
			}
		}
		return false
	}
	ok := func(ptr value.Value) bool {
		if !reaches(ptr) {
			return true
		}
		b, t, isGID := gidElement(ptr)
		return isGID && b == q && t.Equal(elem)
	}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if !ok(x.Src) {
					return false
				}
			case *ir.InstStore:
				if !ok(x.Dst) {
					return false
				}
			case *ir.InstAtomicRMW:
				if !ok(x.Dst) {
					return false
				}
			case *ir.InstCmpXchg:
				if !ok(x.Ptr) {
					return false
				}
			case *ir.InstCall:
				if !callLeavesMemory(x) {
					return false
				}
			}
		}
	}
	return true
}

// callLeavesMemory reports a call that reads and writes no memory the
// program can reach: math functions on values, thread and block indices,
// barriers and bookkeeping intrinsics.
func callLeavesMemory(c *ir.InstCall) bool {
	for _, a := range c.Args {
		if holdsPointers(a.Type()) {
			return isDebugIntrinsic(c) || strings.HasPrefix(irfacts.CalleeName(c), "llvm.lifetime.")
		}
	}
	name := irfacts.CalleeName(c)
	if rule, _ := rules.Lookup(name, c.Typ); rule != nil {
		return true
	}
	return isBarrier(c) || strings.HasPrefix(name, "llvm.nvvm.read.ptx.sreg.") || isDebugIntrinsic(c) ||
		strings.HasPrefix(name, "llvm.assume")
}

// isGlobalThreadIndex matches blockIdx.x·blockDim.x + threadIdx.x (in
// either order, through integer extensions).
func isGlobalThreadIndex(v value.Value) bool {
	v = stripIntExt(v)
	add, ok := v.(*ir.InstAdd)
	if !ok {
		return false
	}
	isMul := func(v value.Value) bool {
		m, ok := irfacts.Unwrap(v).(*ir.InstMul)
		if !ok {
			return false
		}
		a, b := sregName(m.X), sregName(m.Y)
		return (a == "ctaid.x" && b == "ntid.x") || (a == "ntid.x" && b == "ctaid.x")
	}
	return (sregName(add.X) == "tid.x" && isMul(add.Y)) || (sregName(add.Y) == "tid.x" && isMul(add.X))
}

// sregName is "tid.x" for a call of llvm.nvvm.read.ptx.sreg.tid.x, ...
func sregName(v value.Value) string {
	c, ok := irfacts.Unwrap(v).(*ir.InstCall)
	if !ok {
		return ""
	}
	const prefix = "llvm.nvvm.read.ptx.sreg."
	if n := irfacts.CalleeName(c); strings.HasPrefix(n, prefix) {
		return n[len(prefix):]
	}
	return ""
}

// readSreg emits a read of special register name (tid.x, ntid.y, ...).
func readSreg(m *ir.Module, blk *ir.Block, name string) value.Value {
	return blk.NewCall(rules.Declare(m, "llvm.nvvm.read.ptx.sreg."+name, types.I32))
}

// launchIs1D emits into b the i1 "this launch is one-dimensional and has
// at most 2^32 threads": then the global thread index along x is a
// different number in every thread.
func launchIs1D(m *ir.Module, b *ir.Block) value.Value {
	var all value.Value = constant.True
	for _, n := range []string{"ntid.y", "ntid.z", "nctaid.y", "nctaid.z"} {
		one := b.NewICmp(enum.IPredEQ, readSreg(m, b, n), constant.NewInt(types.I32, 1))
		all = b.NewAnd(all, one)
	}
	threads := b.NewMul(b.NewZExt(readSreg(m, b, "nctaid.x"), types.I64), b.NewZExt(readSreg(m, b, "ntid.x"), types.I64))
	fits := b.NewICmp(enum.IPredULE, threads, constant.NewInt(types.I64, 1<<32))
	return b.NewAnd(all, fits)
}

// launchVariants returns the function the Enzyme call runs for a gradient
// with gid-private accumulations: general (atomic there) and oneD (plain
// there), two straight-line variants rather than a test at each add (on an
// H200 a branch between the plain and the atomic add kept the clearing
// store before it and ran the private gradient at the atomic one's speed,
// five times the plain one's). It tests the launch once and calls either;
// the optimizer inlines all three into the kernel.
func (d *differ) launchVariants(general, oneD *ir.Func) *ir.Func {
	params := make([]*ir.Param, len(general.Params))
	args := make([]value.Value, len(params))
	for i, p := range general.Params {
		params[i] = ir.NewParam("", p.Typ)
		args[i] = params[i]
	}
	w := d.m.NewFunc(general.Name()+".launch", general.Sig.RetType, params...)
	w.Linkage = enum.LinkageInternal
	w.FuncAttrs = append(w.FuncAttrs, enum.FuncAttrAlwaysInline)
	markConvergent(w)
	entry, one, other := w.NewBlock(""), w.NewBlock(""), w.NewBlock("")
	entry.NewCondBr(launchIs1D(d.m, entry), one, other)
	for _, x := range []struct {
		b *ir.Block
		f *ir.Func
	}{{one, oneD}, {other, general}} {
		c := x.b.NewCall(x.f, args...)
		if types.Equal(general.Sig.RetType, types.Void) {
			x.b.NewRet(nil)
		} else {
			x.b.NewRet(c)
		}
	}
	return w
}

// warpAddHelper returns (creating once per module and type) the function
// adding v at p, an address likely the same in every thread of a warp:
// where the whole warp is here and every lane's p is the same (compared at
// run time, so any address is safe), the sum over the warp, added by its
// first lane; else an atomic add per thread. Inlined by the optimizer after
// AD. With GPUPlainAdjoints (benchmarks only) the adds are plain
// load-add-stores.
func (d *differ) warpAddHelper(t *types.FloatType) *ir.Func {
	name := "__gozyme_gpu_add_warp_" + rules.TypeSuffix(t)
	if d.gpuPlainAdjoints {
		name += "_plain"
	}
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	p, v := ir.NewParam("p", types.NewPointer(t)), ir.NewParam("v", t)
	f := d.m.NewFunc(name, types.Void, p, v)
	f.Linkage = enum.LinkageInternal
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrAlwaysInline)
	entry, atomic, done := f.NewBlock("entry"), f.NewBlock("atomicadd"), f.NewBlock("done")
	d.sharedAdd(atomic, p, v)
	atomic.NewBr(done)
	done.NewRet(nil)
	markConvergent(f)
	check, sum, first, join := f.NewBlock("check"), f.NewBlock("warpsum"), f.NewBlock("first"), f.NewBlock("join")
	i32 := func(n int64) value.Value { return constant.NewInt(types.I32, n) }
	// LLVM 14 has no activemask intrinsic: PTX's activemask.b32 (PTX 6.2).
	asm := ir.NewInlineAsm(types.NewPointer(types.NewFunc(types.I32)), "activemask.b32 $0;", "=r")
	asm.SideEffect = true
	mask := entry.NewCall(asm)
	mask.FuncAttrs = append(mask.FuncAttrs, enum.FuncAttrConvergent)
	entry.NewCondBr(entry.NewICmp(enum.IPredEQ, mask, i32(-1)), check, atomic)
	// Is p the same in every lane? Lane 0's address, both halves, against
	// each lane's, voted on.
	addr := check.NewPtrToInt(p, types.I64)
	idx := func(x value.Value) value.Value {
		sh := rules.Declare(d.m, "llvm.nvvm.shfl.sync.idx.i32", types.I32, types.I32, types.I32, types.I32, types.I32)
		markConvergent(sh)
		return check.NewCall(sh, i32(-1), x, i32(0), i32(0x1f))
	}
	lo := check.NewTrunc(addr, types.I32)
	hi := check.NewTrunc(check.NewLShr(addr, constant.NewInt(types.I64, 32)), types.I32)
	eq := check.NewAnd(check.NewICmp(enum.IPredEQ, lo, idx(lo)), check.NewICmp(enum.IPredEQ, hi, idx(hi)))
	vote := rules.Declare(d.m, "llvm.nvvm.vote.all.sync", types.I1, types.I32, types.I1)
	markConvergent(vote)
	check.NewCondBr(check.NewCall(vote, i32(-1), eq), sum, atomic)
	var acc value.Value = v
	for _, lanes := range []int64{16, 8, 4, 2, 1} {
		acc = sum.NewFAdd(acc, shuffleXor(d.m, sum, acc, lanes))
	}
	lane := readSreg(d.m, sum, "laneid")
	sum.NewCondBr(sum.NewICmp(enum.IPredEQ, lane, i32(0)), first, join)
	d.sharedAdd(first, p, acc)
	first.NewBr(join)
	join.NewBr(done)
	return f
}

// sharedAdd emits the add of v at p, which other threads may add to too:
// atomic (plain under GPUPlainAdjoints, for benchmarks).
func (d *differ) sharedAdd(b *ir.Block, p, v value.Value) {
	if d.gpuPlainAdjoints {
		b.NewStore(b.NewFAdd(b.NewLoad(v.Type(), p), v), p)
		return
	}
	b.NewAtomicRMW(enum.AtomicOpFAdd, p, v, enum.AtomicOrderingMonotonic)
}

// shuffleXor emits the value of x in lane (laneid xor lanes) of the full
// warp (shfl.sync.bfly), a double as its two 32-bit halves.
func shuffleXor(m *ir.Module, b *ir.Block, x value.Value, lanes int64) value.Value {
	i32 := func(n int64) value.Value { return constant.NewInt(types.I32, n) }
	shfl := func(v value.Value) value.Value {
		t := v.Type()
		f := rules.Declare(m, "llvm.nvvm.shfl.sync.bfly."+rules.TypeSuffix(t), t, types.I32, t, types.I32, types.I32)
		markConvergent(f)
		return b.NewCall(f, i32(-1), v, i32(lanes), i32(0x1f))
	}
	if ft := x.Type().(*types.FloatType); ft.Kind == types.FloatKindFloat {
		return shfl(x)
	}
	bits := b.NewBitCast(x, types.I64)
	lo := shfl(b.NewTrunc(bits, types.I32))
	hi := shfl(b.NewTrunc(b.NewLShr(bits, constant.NewInt(types.I64, 32)), types.I32))
	joined := b.NewOr(b.NewZExt(lo, types.I64), b.NewShl(b.NewZExt(hi, types.I64), constant.NewInt(types.I64, 32)))
	return b.NewBitCast(joined, x.Type())
}

// rootUniform returns, for an Enzyme call in a kernel of a GPU module, per
// parameter of the differentiated function whether the kernel passes it
// and its shadow alike to every thread: its own parameters (every thread
// gets the same), globals and constants. Nil elsewhere.
func (d *differ) rootUniform(rt *root) []bool {
	if !d.gpu || !kernels(d.m)[rt.caller] {
		return nil
	}
	uniform := func(v value.Value) bool {
		switch x := irutil.StripCasts(v).(type) {
		case *ir.Param:
			for _, p := range rt.caller.Params {
				if p == x {
					return true
				}
			}
			return false
		case constant.Constant:
			return true
		}
		return false
	}
	out := make([]bool, len(rt.args))
	any := false
	for i, a := range rt.args {
		if a.act != activity.Dup && a.act != activity.DupNoNeed {
			continue
		}
		out[i] = uniform(a.val) && len(a.shadows) > 0
		for _, s := range a.shadows {
			out[i] = out[i] && uniform(s)
		}
		any = any || out[i]
	}
	if !any {
		return nil
	}
	return out
}

// uniformSuffix distinguishes gradients made for different uniform
// parameters ("" when none is).
func uniformSuffix(uniform []bool) string {
	s := ""
	for i, u := range uniform {
		if u {
			s += fmt.Sprintf("_u%d", i)
		}
	}
	return s
}
