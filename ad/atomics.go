package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Atomics: the adjoint rules of parallel code and of atomic updates.
//
// A read shared by threads in the primal is an adjoint written by all of
// them in the reverse. In the reverse of a function run by the threads of
// a parallel region (reverseGen.parallel), a load's adjoint is added into
// its shadow with atomicrmw fadd unless the memory is private to the
// thread (an alloca of the function whose address goes nowhere another
// thread could find it) or the element is its iteration's own
// (ompowned.go). The reverse of a store (read the shadow, clear it)
// stays plain: a race-free primal does not let another thread touch the
// stored location until a barrier, which the reverse mirrors.
//
// atomicrmw fadd/fsub (#pragma omp atomic x += v) is a store of x+v that
// reads x: its reverse adds the shadow of x into v's adjoint and leaves the
// shadow alone; in forward mode the tangent is added atomically into the
// shadow.

// threadPrivate reports whether primal pointer p points only into allocas
// of the function that no other thread can reach.
func (r *reverseGen) threadPrivate(p value.Value) bool {
	objs, known := underlyingObjects(p)
	if !known || len(objs) == 0 {
		return false
	}
	if r.private == nil {
		r.private = privateAllocas(r.f)
	}
	for _, o := range objs {
		a, ok := o.(*ir.InstAlloca)
		if !ok || !r.private[a] {
			return false
		}
	}
	return true
}

// privateAllocas lists the allocas of f whose address (or one derived by
// GEPs and casts) is only loaded from, stored to, or given to lifetime
// markers, memset/memcpy and the OpenMP runtime's bookkeeping calls
// (schedule bounds): never stored, passed elsewhere, merged or compared.
func privateAllocas(f *ir.Func) map[*ir.InstAlloca]bool {
	return privateAllocasBut(f, nil)
}

// privateAllocasBut is privateAllocas where calls that allowed accepts
// may take the allocas too.
func privateAllocasBut(f *ir.Func, allowed func(*ir.InstCall) bool) map[*ir.InstAlloca]bool {
	base := map[value.Value]*ir.InstAlloca{}
	escaped := map[*ir.InstAlloca]bool{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if a, ok := inst.(*ir.InstAlloca); ok {
				base[a] = a
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				var from value.Value
				switch x := inst.(type) {
				case *ir.InstGetElementPtr:
					from = x.Src
				case *ir.InstBitCast:
					from = x.From
				case *ir.InstAddrSpaceCast:
					from = x.From
				}
				if a := base[irfacts.Unwrap(from)]; a != nil && base[inst.(value.Value)] == nil {
					base[inst.(value.Value)] = a
					changed = true
				}
			}
		}
	}
	use := func(inst interface{}, op value.Value) {
		a := base[op]
		if a == nil {
			return
		}
		switch x := inst.(type) {
		case *ir.InstLoad, *ir.InstGetElementPtr, *ir.InstBitCast, *ir.InstAddrSpaceCast:
			return
		case *ir.InstStore:
			if irfacts.Unwrap(x.Dst) == op && irfacts.Unwrap(x.Src) != op {
				return
			}
		case *ir.InstCall:
			name := irfacts.CalleeName(x)
			if strings.HasPrefix(name, "llvm.lifetime.") || irfacts.IsMemSet(x) || irfacts.IsMemTransfer(x) || ompInactive[name] || (allowed != nil && allowed(x)) {
				return
			}
		}
		escaped[a] = true
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range unwrappedOperands(inst) {
				use(inst, op)
			}
		}
		for _, op := range unwrappedOperands(b.Term) {
			use(b.Term, op)
		}
	}
	out := map[*ir.InstAlloca]bool{}
	for v, a := range base {
		if v == a && !escaped[a] {
			out[a] = true
		}
	}
	return out
}

// addIntoShadow emits the reverse of load x: its adjoint d added into the
// shadow sp, atomically where other threads may touch it.
func (r *reverseGen) addIntoShadow(blk *ir.Block, x *ir.InstLoad, sp, d value.Value) {
	if g := r.partialOf(x); g != nil {
		r.addToPartial(blk, g, d)
		return
	}
	if r.parallel && !r.threadPrivate(x.Src) && !r.ownedLoads()[x] {
		atomicAddScalars(blk, sp, d)
		return
	}
	old := blk.NewLoad(x.ElemType, sp)
	old.Align = x.Align // the shadow has the primal's layout and alignment
	st := blk.NewStore(addAny(blk, old, d, x.ElemType), sp)
	st.Align = x.Align
}

// atomicAddScalars adds v (a float, a vector of floats, or an aggregate of
// them) into the memory at ptr, each float with an atomicrmw fadd; other
// fields are left alone.
func atomicAddScalars(blk *ir.Block, ptr, v value.Value) {
	switch t := v.Type().(type) {
	case *types.FloatType:
		blk.NewAtomicRMW(enum.AtomicOpFAdd, ptr, v, enum.AtomicOrderingMonotonic)
	case *types.VectorType:
		if !irfacts.IsFloat(t.ElemType) {
			return
		}
		base := blk.NewBitCast(ptr, types.NewPointer(t.ElemType))
		for k := uint64(0); k < t.Len; k++ {
			lane := blk.NewExtractElement(v, constant.NewInt(types.I32, int64(k)))
			blk.NewAtomicRMW(enum.AtomicOpFAdd, blk.NewGetElementPtr(t.ElemType, base, constant.NewInt(types.I64, int64(k))), lane, enum.AtomicOrderingMonotonic)
		}
	case *types.StructType:
		for i, ft := range t.Fields {
			if irfacts.CarriesFloat(ft) {
				gep := blk.NewGetElementPtr(t, ptr, constant.NewInt(types.I64, 0), constant.NewInt(types.I32, int64(i)))
				atomicAddScalars(blk, gep, blk.NewExtractValue(v, uint64(i)))
			}
		}
	case *types.ArrayType:
		if !irfacts.CarriesFloat(t.ElemType) {
			return
		}
		for i := uint64(0); i < t.Len; i++ {
			gep := blk.NewGetElementPtr(t, ptr, constant.NewInt(types.I64, 0), constant.NewInt(types.I64, int64(i)))
			atomicAddScalars(blk, gep, blk.NewExtractValue(v, i))
		}
	}
}

// sharedAccumulation is the error for an accumulation into shadow memory
// other threads may touch that gozyme has no atomic form of.
func (r *reverseGen) sharedAccumulation(inst ir.Instruction, p value.Value) error {
	if !r.parallel || r.threadPrivate(p) {
		return nil
	}
	return errorAt(r.f, inst, "%s in a parallel region adds derivatives into memory other threads may touch, and gozyme has no atomic form of it", describe(inst))
}

// checkCmpXchg reports, before the other checks of f's activity (whose
// messages would describe the loop around it less plainly), a
// compare-exchange on memory holding derivatives: an atomic update gozyme
// has no rule for (x *= v, captures).
func checkCmpXchg(f *ir.Func, act *activity.Info) error {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if x, ok := inst.(*ir.InstCmpXchg); ok && act.HasShadow(x.Ptr) && atomicOnFloats(x.Ptr, x.New) {
				return errorAt(f, inst, "an atomic compare-exchange on memory holding derivatives (%s) cannot be differentiated: only atomic updates x += v and x -= v of floats can", describe(inst))
			}
		}
	}
	return nil
}

// reverseAtomic emits the reverse of an atomic read-modify-write or
// compare-exchange.
func (r *reverseGen) reverseAtomic(blk *ir.Block, at *ir.Block, inst ir.Instruction) error {
	switch x := inst.(type) {
	case *ir.InstCmpXchg:
		if r.act.HasShadow(x.Ptr) && atomicOnFloats(x.Ptr, x.New) {
			return errorAt(r.f, inst, "an atomic compare-exchange on memory holding derivatives (%s) cannot be differentiated: only atomic updates x += v and x -= v of floats can", describe(inst))
		}
	case *ir.InstAtomicRMW:
		if !r.act.HasShadow(x.Dst) {
			return nil
		}
		if !irfacts.IsFloatAtomic(x) {
			if atomicOnFloats(x.Dst, x.X) {
				return errorAt(r.f, inst, "an atomic %s on memory holding derivatives (%s) cannot be differentiated: only atomic updates x += v and x -= v of floats can", x.Op, describe(inst))
			}
			return nil
		}
		sp, err := r.lookupShadow(blk, at, x, x.Dst)
		if err != nil {
			return err
		}
		ds := blk.NewLoad(x.Typ, sp)
		if r.act.Active(x) {
			d := r.takeAdjoint(blk, x, x.Typ)
			atomicAddScalars(blk, sp, d)
		}
		if r.act.Active(x.X) {
			var delta value.Value = ds
			if x.Op == enum.AtomicOpFSub {
				delta = blk.NewFNeg(ds)
			}
			r.accumulate(blk, x.X, delta)
		}
	}
	return nil
}

// atomicOnFloats reports an atomic operation whose memory or value is
// floating point (clang moves floats through integer compare-exchange).
func atomicOnFloats(ptr, v value.Value) bool {
	if t := pointee(ptr); t != nil && irfacts.CarriesFloat(t) {
		return true
	}
	if bc, ok := irfacts.Unwrap(v).(*ir.InstBitCast); ok && irfacts.CarriesFloat(bc.From.Type()) {
		return true
	}
	return irfacts.CarriesFloat(v.Type())
}

// forwardAtomic emits the tangent side of an atomic update: the tangent
// added atomically into the shadow (whose old value is the result's
// tangent). It reports whether inst was an atomic operation.
func (fg *forwardGen) forwardAtomic(scratch *ir.Block, inst ir.Instruction) (bool, error) {
	switch x := inst.(type) {
	case *ir.InstCmpXchg:
		if fg.act.HasShadow(x.Ptr) && atomicOnFloats(x.Ptr, x.New) {
			return true, errorAt(fg.f, inst, "an atomic compare-exchange on memory holding derivatives (%s) cannot be differentiated: only atomic updates x += v and x -= v of floats can", describe(inst))
		}
		return true, nil
	case *ir.InstAtomicRMW:
		if !fg.act.HasShadow(x.Dst) {
			return true, nil
		}
		if !irfacts.IsFloatAtomic(x) {
			if atomicOnFloats(x.Dst, x.X) {
				return true, errorAt(fg.f, inst, "an atomic %s on memory holding derivatives (%s) cannot be differentiated: only atomic updates x += v and x -= v of floats can", x.Op, describe(inst))
			}
			return true, nil
		}
		dst, err := fg.tangentOf(inst, x.Dst)
		if err != nil {
			return true, err
		}
		t, err := fg.tangentOf(inst, x.X)
		if err != nil {
			return true, err
		}
		rmw := scratch.NewAtomicRMW(x.Op, dst, t, enum.AtomicOrderingMonotonic)
		if fg.needsTangent(x) {
			fg.tan[x] = rmw
		}
		return true, nil
	}
	return false, nil
}

// parallelState is what a gradient run by many threads needs: on a GPU,
// which parameters are uniform or thread-private and the local memory of
// its caches; in OpenMP, thread-private allocas, owned elements, per-thread
// partial sums of shared scalars and critical-section tickets.
type parallelState struct {
	// GPU (gpuaccum.go): per primal parameter, whether the kernel passes
	// it (and its shadow) alike to every thread; gid-private parameters.
	uniform []bool
	gidOnly map[gidKey]bool
	// gidPlain makes gid-private accumulations plain (the variant for
	// one-dimensional launches); usedGID records that there were some.
	gidPlain, usedGID bool
	// cacheBytes: the local memory the gradient's loop caches take per
	// thread (gpucache.go).
	cacheBytes  int64
	private     map[*ir.InstAlloca]bool         // allocas no other thread can reach (atomics.go)
	owned       map[*ir.InstLoad]bool           // loads of elements their iteration owns (ompowned.go)
	partials    map[*ir.InstLoad]*scalarPartial // loads of shared scalars summed per thread (ompscalar.go)
	partialList []*scalarPartial                // the same, each sum once
	tickets     map[*ir.InstCall]value.Value    // unlock -> the forward's ticket of its section (omp.go)
}
