package ad

import (
	"strconv"

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

// Memory in reverse mode, as Enzyme does it: every pointer that can reach
// derivatives has a shadow pointer into shadow memory of the same layout.
// Loads of active floats add their adjoint into the shadow in reverse;
// stores hand the shadow's accumulated adjoint to the stored value and clear
// it; allocations get zeroed shadow allocations.

// shadowOf returns the forward shadow of primal pointer v.
func (r *reverseGen) shadowOf(inst interface{}, v value.Value) (value.Value, error) {
	v = irfacts.Unwrap(v)
	if s, ok := r.shadow[v]; ok {
		return s, nil
	}
	switch v.(type) {
	case *constant.Null, *constant.Undef, *constant.ZeroInitializer:
		return v, nil
	}
	if c, ok := v.(constant.Constant); ok {
		// Constant pointers (constshadow.go); a constant struct holding
		// others has null shadows.
		s, ok, err := r.d.constantShadow(c, false, false)
		switch {
		case err != nil:
			return nil, errorAt(r.f, inst, "%v", err)
		case ok:
			return s, nil
		case irfacts.HasPointerField(v.Type()):
			return constant.NewZeroInitializer(v.Type()), nil
		}
	}
	if g, ok := v.(*ir.Global); ok && r.d.inactiveGlobals[g] {
		return r.inactiveSink(g), nil
	}
	if derivedFromNull(v) {
		// Computed from null only (an empty std::vector's end, null + 0,
		// met by a phi with an allocation): its shadow is the same
		// computation on null's shadow, null, which is the forward's own
		// value.
		if fv, ok := r.vmap[v]; ok {
			return fv, nil
		}
	}
	return nil, errorAt(r.f, inst, "%s reaches memory holding derivatives but has no shadow (is it marked enzyme_const? pass it with enzyme_dup and a shadow)", describeValue(v))
}

// forwardShadow emits, after the forward clone c of inst, the shadow of a
// pointer-valued inst and the shadow side of memory operations.
func (r *reverseGen) forwardShadow(b *ir.Block, inst ir.Instruction, c ir.Instruction) ([]ir.Instruction, error) {
	if x, ok := inst.(*ir.InstCall); ok && rbTreeOpOf(x) != rbNone {
		if out, handled, err := r.rbReverseForward(b, x, c); handled || err != nil {
			return out, err // rbtree.go
		}
	}
	var out []ir.Instruction
	emit := func(s ir.Instruction) value.Value {
		out = append(out, s)
		return s.(value.Value)
	}
	if v, ok := inst.(value.Value); ok && r.act.HasShadow(v) {
		var sv value.Value
		switch x := inst.(type) {
		case *ir.InstPhi:
			return nil, nil // declared up front (declareShadowPhis)
		case *ir.InstAlloca:
			if r.split || dynamicAlloca(x) {
				// The reverse runs in another function, or the size is
				// known only here: heap, not stack.
				sv = emit(callMallocZeroed(r.m, &out, x.ElemType, x.NElems, x.Align))
			} else {
				a := ir.NewAlloca(x.ElemType)
				a.NElems = x.NElems
				a.Align = x.Align
				r.allocas.Insts = append(r.allocas.Insts, a)
				sv = a
				out = append(out, zeroFill(r.m, a, x.ElemType, x.NElems)...)
			}
		case *ir.InstCall:
			if irfacts.IsRealloc(x) {
				s, err := r.reallocShadow(b, x, &out)
				if err != nil {
					return nil, err
				}
				sv = s
				break
			}
			if !irfacts.IsAllocation(x) {
				return nil, errorAt(r.f, inst, "pointers returned by calls (%s) are not differentiated yet", describe(inst))
			}
			if r.reverseOnly(x) {
				sv = r.reverseOnlyStandIn(x) // reverseonly.go
				break
			}
			sc := ir.NewCall(x.Callee, irutil.CloneArgs(x.Args)...)
			sc.Typ = x.Typ
			sv = emit(sc)
			switch {
			case isCAllocation(x):
				// Zeroed over its usable size: realloc may copy all of it.
				out = append(out, memsetZero(r.m, sv, usableSize(r.m, &out, sv))...)
			case irfacts.CalleeName(x) != "calloc":
				out = append(out, memsetZero(r.m, sv, allocSizeArg(x))...)
			}
		case *ir.InstGetElementPtr:
			if r.forwardStandIn(x.Src) {
				sv = r.reverseOnlyStandIn(x)
				break
			}
			src, err := r.shadowOf(inst, x.Src)
			if err != nil {
				return nil, err
			}
			g := ir.NewGetElementPtr(x.ElemType, src, append([]value.Value(nil), x.Indices...)...)
			g.InBounds = x.InBounds
			g.Typ = x.Typ
			sv = emit(g)
		case *ir.InstBitCast:
			if r.forwardStandIn(x.From) {
				sv = r.reverseOnlyStandIn(x)
				break
			}
			src, err := r.shadowOf(inst, x.From)
			if err != nil {
				return nil, err
			}
			sv = emit(ir.NewBitCast(src, x.To))
		case *ir.InstAddrSpaceCast:
			src, err := r.shadowOf(inst, x.From)
			if err != nil {
				return nil, err
			}
			sv = emit(ir.NewAddrSpaceCast(src, x.To))
		case *ir.InstSelect:
			t, err := r.shadowOf(inst, x.ValueTrue)
			if err != nil {
				return nil, err
			}
			f, err := r.shadowOf(inst, x.ValueFalse)
			if err != nil {
				return nil, err
			}
			sv = emit(ir.NewSelect(x.Cond, t, f))
		case *ir.InstLoad:
			src, err := r.shadowOf(inst, x.Src)
			if err != nil {
				return nil, err
			}
			ld := ir.NewLoad(x.ElemType, src)
			ld.Align = x.Align
			sv = emit(ld)
		case *ir.InstExtractValue:
			agg, err := r.shadowOf(inst, x.X)
			if err != nil {
				return nil, err
			}
			sv = emit(ir.NewExtractValue(agg, x.Indices...))
		case *ir.InstInsertValue:
			// The same aggregate with shadow pointers in its pointer
			// fields (other fields keep primal values: only pointer fields
			// of a shadow aggregate are ever read).
			agg, elem := r.aggregateShadowOf(x.X), r.aggregateShadowOf(x.Elem)
			sv = emit(ir.NewInsertValue(agg, elem, x.Indices...))
		default:
			return nil, errorAt(r.f, inst, "cannot build the shadow of %s", describe(inst))
		}
		r.shadow[v] = sv
		r.blockOf[sv] = b
	}
	if x, ok := inst.(*ir.InstCall); ok && isMemAlign(x) && r.act.HasShadow(x.Args[0]) {
		slot, err := r.shadowOf(inst, x.Args[0])
		if err != nil {
			return nil, err
		}
		sp := memAlignShadow(r.m, x, slot, &out)
		r.shadow[x] = sp // released by the reverse of the call
		r.blockOf[sp] = b
	}
	switch x := inst.(type) {
	case *ir.InstStore:
		if r.d.gpu && irfacts.CarriesFloat(x.Src.Type()) && !irfacts.HasPointerField(x.Src.Type()) && r.act.HasShadow(x.Dst) && sharedBase(x.Dst) {
			dst, err := r.shadowOf(inst, x.Dst)
			if err != nil {
				return nil, err
			}
			out = append(out, clearSharedShadow(x, dst)...) // gpu.go
		}
		if r.act.Active(x.Src) && r.act.HasShadow(x.Dst) && r.d.mayAliasPrimal(x.Dst) {
			// A derivative written where the shadow is the primal.
			dst, err := r.shadowOf(inst, x.Dst)
			if err != nil {
				return nil, err
			}
			sb := &ir.Block{}
			r.d.inactiveWrite(sb, r.f, x, aliasTest(sb, dst, x.Dst))
			out = append(out, sb.Insts...)
		}
		if ld, ok := r.d.intPointerCopy(r.f, x, r.act); ok {
			// Integers and pointers copied as one integer (intptrcopy.go).
			src, err := r.shadowOf(inst, ld.Src)
			if err != nil {
				return nil, err
			}
			dst, err := r.shadowOf(inst, x.Dst)
			if err != nil {
				return nil, err
			}
			sb := &ir.Block{}
			copyShadowBytes(sb, ld, x, src, dst)
			return append(out, sb.Insts...), nil
		}
		if irfacts.HasPointerField(x.Src.Type()) && r.act.HasShadow(x.Dst) {
			insts, err := r.storeAggregateShadow(x)
			return append(out, insts...), err
		}
		// A pointer stored into shadowed memory: its shadow goes into the
		// shadow memory, so loads of it find the shadow again; a pointer
		// without one stores null (see shadowlessPointerStore).
		if r.act.HasShadow(x.Dst) && types.IsPointer(x.Src.Type()) {
			dst, err := r.shadowOf(inst, x.Dst)
			if err != nil {
				return nil, err
			}
			src := irfacts.Unwrap(x.Src)
			c, isConst := src.(constant.Constant)
			own := r.act.HasShadow(src) || (isConst && constShadowed(c))
			switch {
			case own:
				if src, err = r.shadowOf(inst, src); err != nil {
					return nil, err
				}
			case r.d.runtimeActivity:
				// The pointer is its own shadow (runtimeactivity.go).
			default:
				if err := shadowlessPointerStore(r.f, x); err != nil {
					return nil, err
				}
				src = constant.NewNull(src.Type().(*types.PointerType))
			}
			sb := &ir.Block{}
			if r.d.mayAliasPrimal(x.Dst) {
				addr, alias, err := r.d.guardShadow(r.f, x, sb, x.Dst, dst, x.Dst, src.Type())
				if err != nil {
					return nil, err
				}
				if own {
					r.d.inactiveWrite(sb, r.f, x, sb.NewAnd(alias, sb.NewICmp(enum.IPredNE, src, x.Src)))
				}
				dst = addr
			}
			st := sb.NewStore(src, dst)
			st.Align = x.Align
			out = append(out, sb.Insts...)
		}
	case *ir.InstCall:
		t := r.d.copyLayout(x)
		mixed := t != nil && mixedLayout(t) && irfacts.ContainsPointer(t)
		copies := irfacts.IsMemTransfer(x) && r.act.HasShadow(x.Args[0]) && r.d.copiesPointers(r.f, x)
		if r.d.gpu && (irfacts.IsMemTransfer(x) || irfacts.IsMemSet(x)) && !copies && r.act.HasShadow(x.Args[0]) && sharedBase(x.Args[0]) {
			// Shared memory written in bulk: its shadow cleared (gpu.go).
			dst, err := r.shadowOf(inst, x.Args[0])
			if err != nil {
				return nil, err
			}
			out = append(out, memsetZero(r.m, dst, irfacts.Unwrap(x.Args[2]))...)
		}
		if copies {
			// Copies of pointers copy their shadows too; mixed with
			// floats, the shadow pointers only.
			dst, err := r.shadowOf(inst, x.Args[0])
			if err != nil {
				return nil, err
			}
			src, err := r.shadowOf(inst, x.Args[1])
			if err != nil {
				return nil, err
			}
			sb := &ir.Block{}
			n := irfacts.Unwrap(x.Args[2])
			if r.d.mayAliasPrimal(x.Args[0]) {
				n = countUnless(sb, aliasTest(sb, dst, x.Args[0]), n)
			}
			out = append(out, sb.Insts...)
			if !mixed {
				args := append([]value.Value{dst, src, n}, x.Args[3:]...)
				out = append(out, ir.NewCall(x.Callee, args...))
				break
			}
			h, err := r.layoutCopyHelper(t, false)
			if err != nil {
				return nil, errorAt(r.f, inst, "cannot copy the shadow of %s: %v", describe(inst), err)
			}
			out = append(out, callLayoutHelper(h, dst, src, n)...)
		}
		if irfacts.IsMemTransfer(x) && !copies && r.act.HasShadow(x.Args[0]) && r.d.zeroShadowCopy(r.f, x) {
			// Bytes of unknown type: both shadows must be zero
			// (zeroshadowcopy.go).
			dst, err := r.shadowOf(inst, x.Args[0])
			if err != nil {
				return nil, err
			}
			src := dst
			if r.act.HasShadow(x.Args[1]) {
				if src, err = r.shadowOf(inst, x.Args[1]); err != nil {
					return nil, err
				}
			}
			out = append(out, r.d.zeroShadowCheck(dst, src, x.Args[2], r.d.zeroShadowMessage(r.f, x))...)
		}
	}
	return out, nil
}

// copiesPointers reports a bulk copy whose bytes may hold pointers: the
// forward sweep copies their shadows too.
func (d *differ) copiesPointers(f *ir.Func, x *ir.InstCall) bool {
	t := d.copyLayout(x)
	return irfacts.ContainsPointer(t) || irfacts.ContainsPointer(copyPointee(x, 1)) || d.untypedPointers(f, x)
}

// shadowlessPointerStore checks a store of a pointer without a shadow (an
// inactive argument, a global, memory activity analysis found no floats
// reach) into memory with one. Its shadow there is null: Enzyme stores the
// pointer itself, so that primal and shadow memory alias and derivatives
// read or added through a later load of it read or overwrite the primal.
// Where the pointer is to floating point, reaching it through the shadow is
// likely and without runtime activity checks gives wrong results or a
// crash, so it is an error naming the store (one that differentiating
// with run-time activity avoids, runtimeactivity.go); pointers to other
// data are fine.
func shadowlessPointerStore(f *ir.Func, x *ir.InstStore) error {
	src := irfacts.Unwrap(x.Src)
	switch src.(type) {
	case *constant.Null, *constant.Undef:
		return nil
	}
	if derivedFromNull(src) {
		// Computed from null (an empty std::vector's end, null + 0):
		// it points to no memory; its shadow is null.
		return nil
	}
	if t := pointee(src); t == nil || !irfacts.CarriesFloat(t) {
		return nil
	}
	err := errorAt(f, x, "%s stores %s, a pointer to floating point without a shadow (inactive), into memory that has one: derivatives read or added through that copy would have no shadow memory to go to (Enzyme aliases the primal there); make it active (enzyme_dup with a zeroed shadow)", describe(x), describeValue(src))
	err.runtimeActivity = true
	return err
}

// derivedFromNull reports a pointer every base of which (activity.PointerBases) is
// a null constant.
func derivedFromNull(p value.Value) bool { return activity.AllBases(p, activity.IsNullConstant) }

// aggregateShadowOf is the value standing for v in a shadow aggregate: its
// shadow where it has one (constant pointers: constshadow.go), null for
// pointers (and aggregates of them) without (no derivatives reach them),
// and v itself for other data.
func (r *reverseGen) aggregateShadowOf(v value.Value) value.Value {
	v = irfacts.Unwrap(v)
	if s, ok := r.shadow[v]; ok {
		return s
	}
	if r.d.runtimeActivity && holdsPointers(v.Type()) {
		return v // its own shadow (runtimeactivity.go)
	}
	if c, ok := v.(constant.Constant); ok {
		if s, ok, _ := r.d.constantShadow(c, false, false); ok {
			return s
		}
	}
	switch {
	case types.IsPointer(v.Type()):
		return constant.NewNull(v.Type().(*types.PointerType))
	case irfacts.HasPointerField(v.Type()):
		return constant.NewZeroInitializer(v.Type())
	}
	return v
}

// storeAggregateShadow stores, after a whole aggregate holding pointers is
// stored into shadowed memory, the shadow pointers of its pointer fields
// into the shadow memory (its float fields there keep their adjoints).
func (r *reverseGen) storeAggregateShadow(x *ir.InstStore) ([]ir.Instruction, error) {
	dst, err := r.shadowOf(x, x.Dst)
	if err != nil {
		return nil, err
	}
	t := x.Src.Type()
	agg := r.aggregateShadowOf(x.Src) // no shadows inside: null shadow pointers
	leaves, ok := layoutLeaves(t)
	if !ok {
		return nil, errorAt(r.f, x, "cannot store the shadow of %s: %s has more than %d fields", describe(x), t, maxLeaves)
	}
	sb := &ir.Block{}
	if r.d.mayAliasPrimal(x.Dst) {
		addr, alias, err := r.d.guardShadow(r.f, x, sb, x.Dst, dst, x.Dst, t)
		if err != nil {
			return nil, err
		}
		if r.act.HasShadow(x.Src) {
			// The shadow aggregate differs from the primal where it holds
			// shadow pointers of its own.
			var differs value.Value = constant.False
			for _, lf := range leaves {
				if types.IsPointer(lf.typ) {
					idx := leafIndices(lf)
					differs = sb.NewOr(differs, sb.NewICmp(enum.IPredNE, sb.NewExtractValue(agg, idx...), sb.NewExtractValue(x.Src, idx...)))
				}
			}
			r.d.inactiveWrite(sb, r.f, x, sb.NewAnd(alias, differs))
		}
		dst = addr
	}
	for _, lf := range leaves {
		if !types.IsPointer(lf.typ) {
			continue
		}
		ev := sb.NewExtractValue(agg, leafIndices(lf)...)
		gep := sb.NewGetElementPtr(t, dst, append([]value.Value{constant.NewInt(types.I64, 0)}, lf.path...)...)
		sb.NewStore(ev, gep)
	}
	return sb.Insts, nil
}

// leafIndices is the extractvalue indices of leaf lf.
func leafIndices(lf leaf) []uint64 {
	idx := make([]uint64, len(lf.path))
	for i, p := range lf.path {
		idx[i] = uint64(p.(*constant.Int).X.Int64())
	}
	return idx
}

// declareShadowPhis creates, before the forward sweep is built, an empty
// shadow for every shadowed pointer phi: other shadows may refer to them.
func (r *reverseGen) declareShadowPhis() {
	for _, b := range r.cfg.RPO {
		for _, inst := range b.Insts {
			if p, ok := inst.(*ir.InstPhi); ok && r.act.HasShadow(p) {
				sp := &ir.InstPhi{Typ: p.Typ}
				r.shadow[p] = sp
				r.blockOf[sp] = b
			}
		}
	}
}

// fillShadowPhis gives every shadow phi the shadows of its phi's incomings,
// once all shadows exist (phis feed each other around loops).
func (r *reverseGen) fillShadowPhis() error {
	for _, b := range r.cfg.RPO {
		for _, inst := range b.Insts {
			p, ok := inst.(*ir.InstPhi)
			if !ok || !r.act.HasShadow(p) {
				continue
			}
			sp := r.shadow[p].(*ir.InstPhi)
			for _, in := range p.Incs {
				s, err := r.shadowOf(p, in.X)
				if err != nil {
					return err
				}
				// Predecessors are remapped with the rest of the block.
				sp.Incs = append(sp.Incs, ir.NewIncoming(s, in.Pred.(*ir.Block)))
			}
		}
	}
	return nil
}

// lookupShadow is lookup for the shadow of a primal pointer.
func (r *reverseGen) lookupShadow(blk *ir.Block, at *ir.Block, inst interface{}, p value.Value) (value.Value, error) {
	p = irfacts.Unwrap(p)
	if s, ok := r.rebuildShadow(blk, at, p); ok {
		return s, nil // reverseonly.go
	}
	s, err := r.shadowOf(inst, p)
	if err != nil {
		return nil, err
	}
	def, isInst := r.blockOf[p]
	if !isInst {
		return s, nil
	}
	if fv, ok := r.vmap[p]; ok {
		// The shadow is rebuilt as the primal pointer would be (the same
		// indices): the plan (mincut.go) sees what that reads through p.
		l := r.cfg.LoopOf[def]
		r.recordRequest(fv, at, l != nil && !l.Contains(at))
	}
	return r.lookupForward(blk, at, s, def), nil
}

// reverseMemory emits the reverse of loads, stores, bulk memory operations,
// allocations and deallocations. It reports whether inst was one of them.
func (r *reverseGen) reverseMemory(blk *ir.Block, at *ir.Block, inst ir.Instruction) (bool, error) {
	switch x := inst.(type) {
	case *ir.InstLoad:
		if !r.act.Active(x) {
			return true, nil
		}
		d := r.takeAdjoint(blk, x, x.ElemType)
		if g := r.loadSum(x); g != nil {
			r.addToPartial(blk, g, d) // added into the shadow leaving the loop (loopsum.go)
			return true, nil
		}
		sp, err := r.lookupShadow(blk, at, x, x.Src)
		if err != nil {
			return true, err
		}
		if sp, err = r.guardedShadow(blk, at, x, x.Src, sp, x.ElemType); err != nil {
			return true, err
		}
		if r.parallel {
			// Other threads may add there too (atomics.go).
			r.addIntoShadow(blk, x, sp, d)
			return true, nil
		}
		// The shadow has the primal's layout and alignment; on a GPU the
		// add is atomic where other threads may add there (gpuaccum.go).
		from := len(blk.Insts)
		if err := r.accumulateShadow(blk, sp, d, x.ElemType, x.Align, x.Src); err != nil {
			return true, errorAt(r.f, x, "cannot differentiate %s: %v", describe(x), err)
		}
		if !r.d.gpu {
			tagShadowAccesses(blk, from, sp, x)
		}
		r.markOwnShadow(blk, from, sp, x.Src)
		return true, nil
	case *ir.InstStore:
		if lo, hi, ok, err := r.d.intOverFloat(r.f, x, r.act); ok || err != nil {
			// An integer over floats: their adjoints stop here (intstore.go).
			if err != nil {
				return true, err
			}
			sp, err := r.lookupShadow(blk, at, x, x.Dst)
			if err != nil {
				return true, err
			}
			var pp value.Value
			if r.d.mayAliasPrimal(x.Dst) {
				pp = r.lookup(blk, at, x.Dst)
			}
			return true, r.d.clearShadowWindow(r.f, x, x.Dst, blk, sp, pp, lo, hi)
		}
		if r.d.zeroChecked[x] && r.act.HasShadow(x.Dst) {
			// Four bytes of unknown type: exact if their adjoint is zero
			// here (unknownbits.go).
			sp, err := r.lookupShadow(blk, at, x, x.Dst)
			if err != nil {
				return true, err
			}
			four := constant.NewInt(types.I64, 4)
			blk.Insts = append(blk.Insts, r.d.zeroShadowCheck(sp, sp, four, r.d.zeroCheckMessage(r.f, x))...)
			return true, nil
		}
		if !r.act.HasShadow(x.Dst) || !irfacts.CarriesFloat(x.Src.Type()) {
			return true, nil
		}
		t := x.Src.Type()
		sp, err := r.lookupShadow(blk, at, x, x.Dst)
		if err != nil {
			return true, err
		}
		var alias value.Value
		if r.d.mayAliasPrimal(x.Dst) {
			if sp, alias, err = r.d.guardShadow(r.f, x, blk, x.Dst, sp, r.lookup(blk, at, x.Dst), t); err != nil {
				return true, err
			}
		}
		from := len(blk.Insts)
		var ds value.Value = blk.NewLoad(t, sp)
		ds.(*ir.InstLoad).Align = x.Align
		ds = zeroUnless(blk, alias, ds)
		if leaves, ok := layoutLeaves(t); ok && irfacts.HasPointerField(t) {
			// Clear the float fields only: the pointer fields hold shadow
			// pointers the rest of the reverse sweep may still read.
			// Shadow memory is the caller's: cleared to +0.0, as Enzyme
			// does, not to rules.AdjZero's -0.0 (a d_out would print as -0).
			for _, lf := range leaves {
				if irfacts.CarriesFloat(lf.typ) {
					gep := blk.NewGetElementPtr(t, sp, append([]value.Value{constant.NewInt(types.I64, 0)}, lf.path...)...)
					blk.NewStore(rules.ZeroOf(lf.typ), gep)
				}
			}
		} else {
			blk.NewStore(r.clearedShadow(x.Dst, t), sp).Align = x.Align
			if !r.d.gpu {
				tagShadowAccesses(blk, from, sp, x)
			}
			r.markOwnShadow(blk, from, sp, x.Dst)
		}
		if r.act.Active(x.Src) {
			r.accumulate(blk, x.Src, ds)
		}
		return true, nil
	case *ir.InstAlloca:
		if !r.act.HasShadow(x) {
			return true, nil
		}
		sp, err := r.lookupShadow(blk, at, x, x)
		if err != nil {
			return true, err
		}
		if r.split || dynamicAlloca(x) {
			blk.NewCall(libc(r.m, "free"), blk.NewBitCast(sp, types.I8Ptr))
		} else {
			// The next reversed execution of this alloca starts from zero.
			blk.Insts = append(blk.Insts, zeroFill(r.m, sp, x.ElemType, x.NElems)...)
		}
		return true, nil
	case *ir.InstAtomicRMW, *ir.InstCmpXchg:
		return true, r.reverseAtomic(blk, at, inst)
	case *ir.InstCall:
		if handled, err := r.reverseMasked(blk, at, x); handled {
			return true, err
		}
		switch {
		case irfacts.IsRealloc(x):
			return true, r.reverseRealloc(blk, at, x)
		case irfacts.IsAllocation(x):
			if !r.act.HasShadow(x) {
				return true, nil
			}
			sp, err := r.lookupShadow(blk, at, x, x)
			if err != nil {
				return true, err
			}
			// The reverse of the allocation is the last use of its shadow,
			// which was allocated the same way: release it the same way,
			// where the primal was freed (shadowlife.go).
			raw := blk.NewBitCast(sp, types.I8Ptr)
			switch name := irfacts.CalleeName(x); name {
			case "_Znwm", "_Znam":
				del := map[string]string{"_Znwm": "_ZdlPv", "_Znam": "_ZdaPv"}[name]
				blk.NewCall(r.shadowRelease(x, del), raw)
			case "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t":
				del := map[string]string{"_ZnwmSt11align_val_t": "_ZdlPvSt11align_val_t", "_ZnamSt11align_val_t": "_ZdaPvSt11align_val_t"}[name]
				align := r.lookup(blk, at, x.Args[1])
				blk.NewCall(r.shadowRelease(x, del, align.Type()), raw, align)
			default:
				f, _ := calleeFunc(x)
				if al, ok := r.d.allocs[f]; ok {
					r.deallocLike(blk, at, x, al, sp)
					break
				}
				blk.NewCall(r.shadowRelease(x, "free"), raw)
			}
			return true, nil
		case isFree(x):
			r.reverseOnlyFree(blk, at, x) // reverseonly.go
			return true, nil
		case isMemAlign(x):
			if _, ok := r.shadow[x]; ok {
				sp, err := r.lookupShadow(blk, at, x, x)
				if err != nil {
					return true, err
				}
				blk.NewCall(r.shadowRelease(x, "free"), sp)
			}
			return true, nil
		case irfacts.IsMemTransfer(x):
			return true, r.reverseMemTransfer(blk, at, x)
		case irfacts.IsMemSet(x):
			if !r.act.HasShadow(x.Args[0]) {
				return true, nil
			}
			sp, err := r.lookupShadow(blk, at, x, x.Args[0])
			if err != nil {
				return true, err
			}
			n := r.lookup(blk, at, x.Args[2])
			if r.d.mayAliasPrimal(x.Args[0]) {
				n = countUnless(blk, aliasTest(blk, sp, r.lookup(blk, at, x.Args[0])), n)
			}
			blk.NewCall(rules.Declare(r.m, "llvm.memset.p0i8."+rules.TypeSuffix(n.Type()), types.Void, types.I8Ptr, types.I8, n.Type(), types.I1),
				blk.NewBitCast(sp, types.I8Ptr), constant.NewInt(types.I8, 0), n, constant.False)
			return true, nil
		}
	}
	return false, nil
}

// dynamicAlloca reports an alloca whose element count is a run-time value
// (a C variable-length array, a Fortran automatic array): its shadow is
// allocated where it is, on the heap, and freed by its reverse.
func dynamicAlloca(x *ir.InstAlloca) bool {
	if x.NElems == nil {
		return false
	}
	_, isConst := irfacts.Unwrap(x.NElems).(constant.Constant)
	return !isConst
}

// clearedShadow is the zero the reverse of a store to p leaves in p's
// shadow. Memory the caller can see afterwards gets +0.0, as Enzyme leaves
// it (a consumed seed reads back as 0, not -0). The shadow of an allocation
// of this function (alloca, malloc, new) is private to the gradient: the
// reverse of the allocation frees or re-zeroes it, and until then only the
// reverse sweep reads it, adding what it reads into adjoints (and the
// caller's memory is only ever added into), so a zero's sign there changes
// no result but the sign of zero adjoints, which start from -0.0 anyway.
// There it gets rules.AdjZero's -0.0, the exact additive identity: the reverse of
// a read-modify-write (x[j] += ...) clears the shadow and then adds the
// load's adjoint into it, and -0.0 + d folds to d where +0.0 + d cannot.
// Every store into private memory clears this way, not only those an
// accumulation certainly follows: the sign is as harmless everywhere there,
// and it folds more than clearing to -0.0 only after an earlier load of the
// same address in the block would (bench/results/history.md). The cost: a
// loop that only clears private memory is no memset in the reverse (a
// store loop instead).
func (r *reverseGen) clearedShadow(p value.Value, t types.Type) constant.Constant {
	// A null among p's origins (a std::vector's data pointer when empty)
	// is no store's address: a store through it would be undefined, so
	// where the store runs p points into the others.
	objs, opaque, known := objectsOf(p, true)
	if !known || opaque || len(objs) == 0 {
		return rules.ZeroOf(t)
	}
	for _, o := range objs {
		// underlyingObjects lists only allocation calls.
		switch o.(type) {
		case *ir.InstAlloca, *ir.InstCall:
		default:
			return rules.ZeroOf(t)
		}
	}
	return rules.AdjZero(t)
}

// reverseMemTransfer: the adjoints of the copied floats move from the
// destination's shadow back into the source's shadow, and the destination's
// shadow is cleared (its old values were overwritten).
func (r *reverseGen) reverseMemTransfer(blk *ir.Block, at *ir.Block, x *ir.InstCall) error {
	if !r.act.HasShadow(x.Args[0]) {
		return nil
	}
	if err := r.clearOverwrittenFloats(blk, at, x); err != nil {
		return err
	}
	limit := int64(0) // bytes the copy may span, when only they are known
	elem := floatElement(pointee(x.Args[1]))
	if elem == nil {
		elem = floatElement(pointee(x.Args[0]))
	}
	dst, err := r.lookupShadow(blk, at, x, x.Args[0])
	if err != nil {
		return err
	}
	n := r.lookup(blk, at, x.Args[2])
	t := r.d.copyLayout(x)
	if elem == nil && t != nil {
		elem = floatElement(t)
	}
	if elem == nil && t != nil && mixedLayout(t) {
		if !irfacts.CarriesFloat(t) {
			return nil
		}
		if err := r.sharedAccumulation(x, x.Args[1]); err != nil && r.act.HasShadow(x.Args[1]) {
			return err
		}
		h, err := r.layoutCopyHelper(t, true)
		if err != nil {
			return errorAt(r.f, x, "cannot differentiate %s: %v", describe(x), err)
		}
		var src value.Value = constant.NewNull(types.I8Ptr)
		if r.act.HasShadow(x.Args[1]) {
			if src, err = r.lookupShadow(blk, at, x, x.Args[1]); err != nil {
				return err
			}
		}
		src, n = r.guardedCopy(blk, at, x, dst, src, n)
		blk.Insts = append(blk.Insts, callLayoutHelper(h, dst, src, n)...)
		return nil
	}
	if elem == nil {
		if !irfacts.ContainsFloatBytes(copyPointee(x, 1)) {
			return nil
		}
		// Untyped bytes: the copy's TBAA tag, or how the same pointers
		// are used elsewhere, tells what they hold.
		t := r.d.untypedCopy(r.f, x)
		if t == nil {
			// The type analysis may know the floats of a prefix of the
			// memory: the copy must not go beyond it (checked at run
			// time).
			if ft, lim, ok := r.d.boundedCopy(x); ok {
				elem, limit = ft, lim
				t = ft
			}
		}
		if t == nil && r.d.zeroShadowCopy(r.f, x) {
			// Nothing to move while the destination's shadow is zero
			// (zeroshadowcopy.go).
			blk.Insts = append(blk.Insts, r.d.zeroShadowCheck(dst, dst, n, r.d.zeroShadowMessage(r.f, x))...)
			return nil
		}
		if t == nil {
			return errorAt(r.f, x, "cannot tell which bytes of %s hold floating point", describe(x))
		}
		if elem = floatElement(t); elem == nil {
			return nil // integers or pointers
		}
	}
	var src value.Value = constant.NewNull(types.I8Ptr)
	if r.act.HasShadow(x.Args[1]) {
		if src, err = r.lookupShadow(blk, at, x, x.Args[1]); err != nil {
			return err
		}
	}
	src, n = r.guardedCopy(blk, at, x, dst, src, n)
	nn := value.Value(n)
	if !types.Equal(n.Type(), types.I64) {
		nn = blk.NewZExt(n, types.I64)
	}
	if limit > 0 {
		blk.NewCall(r.memcpyAdjointUpTo(elem), blk.NewBitCast(dst, types.I8Ptr), blk.NewBitCast(src, types.I8Ptr), nn,
			constant.NewInt(types.I64, limit))
		return nil
	}
	helper := r.memcpyAdjoint(elem)
	if r.parallel && !r.threadPrivate(x.Args[1]) {
		helper = r.memcpyAdjointAtomic(elem)
	}
	blk.NewCall(helper, blk.NewBitCast(dst, types.I8Ptr), blk.NewBitCast(src, types.I8Ptr), nn)
	return nil
}

// callLayoutHelper calls a layoutCopyHelper on two pointers and a byte count.
func callLayoutHelper(h *ir.Func, dst, src, n value.Value) []ir.Instruction {
	var out []ir.Instruction
	d, s := bitCastTo(&out, dst, types.I8Ptr), bitCastTo(&out, src, types.I8Ptr)
	n = zextI64(&out, irfacts.Unwrap(n))
	return append(out, ir.NewCall(h, d, s, n))
}

// memcpyAdjoint returns (creating once per module) the helper that, for n
// bytes of elements of type t, adds dst' into src' (when src' is not null)
// and clears dst'.
// On a GPU the adds are atomic: other threads may read the same source.
func (r *reverseGen) memcpyAdjoint(t *types.FloatType) *ir.Func {
	return r.memcpyAdjointHelper(t, false)
}

// memcpyAdjointAtomic is memcpyAdjoint adding into src' with atomics: the
// source may be read by other threads too (atomics.go).
func (r *reverseGen) memcpyAdjointAtomic(t *types.FloatType) *ir.Func {
	return r.memcpyAdjointHelper(t, true)
}

func (r *reverseGen) memcpyAdjointHelper(t *types.FloatType, atomic bool) *ir.Func {
	name := "__gozyme_memcpy_adjoint_" + rules.TypeSuffix(t)
	if atomic || r.d.gpu {
		atomic = true
		name = "__gozyme_memcpy_adjoint_atomic_" + rules.TypeSuffix(t)
	}
	for _, f := range r.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	dst, src, n := ir.NewParam("dst", types.I8Ptr), ir.NewParam("src", types.I8Ptr), ir.NewParam("n", types.I64)
	f := r.m.NewFunc(name, types.Void, dst, src, n)
	f.Linkage = enum.LinkageInternal
	entry, loop, body, done := f.NewBlock("entry"), f.NewBlock("loop"), f.NewBlock("body"), f.NewBlock("done")
	pt := types.NewPointer(t)
	d := entry.NewBitCast(dst, pt)
	s := entry.NewBitCast(src, pt)
	count := entry.NewUDiv(n, sizeOf(t))
	hasSrc := entry.NewICmp(enum.IPredNE, src, constant.NewNull(types.I8Ptr))
	entry.NewBr(loop)
	i := loop.NewPhi(ir.NewIncoming(constant.NewInt(types.I64, 0), entry))
	more := loop.NewICmp(enum.IPredULT, i, count)
	loop.NewCondBr(more, body, done)
	dp := body.NewGetElementPtr(t, d, i)
	dv := body.NewLoad(t, dp)
	body.NewStore(constant.NewFloat(t, 0), dp)
	sp := body.NewGetElementPtr(t, s, i)
	sv := body.NewSelect(hasSrc, sp, d) // with no source shadow, add into the cleared slot: a no-op
	if atomic {
		body.NewAtomicRMW(enum.AtomicOpFAdd, sv, body.NewSelect(hasSrc, dv, constant.NewFloat(t, 0)), enum.AtomicOrderingMonotonic)
		next := body.NewAdd(i, constant.NewInt(types.I64, 1))
		i.Incs = append(i.Incs, ir.NewIncoming(next, body))
		body.NewBr(loop)
		done.NewRet(nil)
		return f
	}
	old := body.NewLoad(t, sv)
	sum := body.NewFAdd(old, dv)
	keep := body.NewSelect(hasSrc, sum, constant.NewFloat(t, 0))
	body.NewStore(keep, sv)
	next := body.NewAdd(i, constant.NewInt(types.I64, 1))
	i.Incs = append(i.Incs, ir.NewIncoming(next, body))
	body.NewBr(loop)
	done.NewRet(nil)
	return f
}

// callMallocZeroed emits malloc(sizeof(t) * count) + memset 0, returning the
// typed pointer; instructions go to out. Where align (the alloca's, or
// t's own) is more than malloc's 16 bytes (an __m256d array: 32), it
// calls aligned_alloc with the size rounded up to a multiple of it: the
// derivative's copies of the primal's aligned vector loads and stores
// (vmovapd) fault on the shadow otherwise.
func callMallocZeroed(m *ir.Module, out *[]ir.Instruction, t types.Type, count value.Value, align ir.Align) ir.Instruction {
	size := byteSize(out, t, count)
	a := int64(align)
	if ta := irutil.Align(t); ta > a {
		a = ta
	}
	var raw *ir.InstCall
	if a > 16 {
		up := ir.NewAdd(size, constant.NewInt(types.I64, a-1))
		size = ir.NewAnd(up, constant.NewInt(types.I64, -a))
		*out = append(*out, up, size.(ir.Instruction))
		raw = ir.NewCall(rules.Declare(m, "aligned_alloc", types.I8Ptr, types.I64, types.I64), constant.NewInt(types.I64, a), size)
	} else {
		raw = ir.NewCall(rules.Declare(m, "malloc", types.I8Ptr, types.I64), size)
	}
	*out = append(*out, raw)
	*out = append(*out, memsetZero(m, raw, size)...)
	return ir.NewBitCast(raw, types.NewPointer(t))
}

// zeroFill returns instructions that zero count elements of type t at p.
func zeroFill(m *ir.Module, p value.Value, t types.Type, count value.Value) []ir.Instruction {
	var out []ir.Instruction
	size := byteSize(&out, t, count)
	cast := ir.NewBitCast(p, types.I8Ptr)
	out = append(out, cast)
	return append(out, memsetZero(m, cast, size)...)
}

// bitCastTo returns pointer v as type t, appending a bitcast to out when
// its type differs.
func bitCastTo(out *[]ir.Instruction, v value.Value, t types.Type) value.Value {
	if types.Equal(v.Type(), t) {
		return v
	}
	c := ir.NewBitCast(v, t)
	*out = append(*out, c)
	return c
}

// zextI64 returns integer v as an i64, appending a zext to out when it is
// narrower.
func zextI64(out *[]ir.Instruction, v value.Value) value.Value {
	if types.Equal(v.Type(), types.I64) {
		return v
	}
	z := ir.NewZExt(v, types.I64)
	*out = append(*out, z)
	return z
}

// byteSize is the i64 byte size of count elements of type t (one when count
// is nil), appending its computation to out.
func byteSize(out *[]ir.Instruction, t types.Type, count value.Value) value.Value {
	size := value.Value(sizeOf(t))
	if count == nil {
		return size
	}
	m := ir.NewMul(zextI64(out, count), size)
	*out = append(*out, m)
	return m
}

// memsetZero returns a call zeroing size bytes at p.
func memsetZero(m *ir.Module, p value.Value, size value.Value) []ir.Instruction {
	var out []ir.Instruction
	p, size = bitCastTo(&out, p, types.I8Ptr), zextI64(&out, size)
	ms := rules.Declare(m, "llvm.memset.p0i8.i64", types.Void, types.I8Ptr, types.I8, types.I64, types.I1)
	return append(out, ir.NewCall(ms, p, constant.NewInt(types.I8, 0), size, constant.False))
}

// allocSizeArg is the argument of an allocation call that gives its byte
// size (calloc's is its count of elements: calloc zeroes its memory
// itself).
func allocSizeArg(c *ir.InstCall) value.Value {
	if f, ok := calleeFunc(c); ok {
		if n, err := strconv.Atoi(irfacts.FuncAttr(f, attrAllocator)); err == nil && n < len(c.Args) {
			return irfacts.Unwrap(c.Args[n])
		}
	}
	switch irfacts.CalleeName(c) {
	case "aligned_alloc":
		return irfacts.Unwrap(c.Args[1])
	}
	return irfacts.Unwrap(c.Args[0])
}

func isFree(c *ir.InstCall) bool {
	switch irfacts.CalleeName(c) {
	case "free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t":
		return true
	}
	return false
}

func isVectorOfFloat(t types.Type) bool {
	v, ok := t.(*types.VectorType)
	return ok && irfacts.IsFloat(v.ElemType)
}

// addAny adds two values of a float, vector or aggregate type.
func addAny(blk *ir.Block, x, y value.Value, t types.Type) value.Value {
	if irfacts.IsFloat(t) || isVectorOfFloat(t) {
		return blk.NewFAdd(x, y)
	}
	return addAggregate(blk, x, y, t, nil)
}

// pointee is the element type a (possibly cast) pointer was derived from:
// typed pointers carry the type analysis gozyme needs for bulk memory.
func pointee(v value.Value) types.Type {
	v = irfacts.Unwrap(v)
	for {
		var from value.Value
		switch x := v.(type) {
		case *ir.InstBitCast:
			from = x.From
		case *constant.ExprBitCast:
			from = x.From
		}
		if from == nil {
			break
		}
		if pt, ok := from.Type().(*types.PointerType); ok && !types.Equal(pt.ElemType, types.I8) {
			return pt.ElemType
		}
		v = from
	}
	if pt, ok := v.Type().(*types.PointerType); ok {
		return pt.ElemType
	}
	return nil
}

// floatElement returns the float type a memory region is made of, when it
// is made of one float type only (arrays, vectors and structs of it).
func floatElement(t types.Type) *types.FloatType {
	switch t := t.(type) {
	case *types.FloatType:
		return t
	case *types.ArrayType:
		return floatElement(t.ElemType)
	case *types.VectorType:
		return floatElement(t.ElemType)
	case *types.StructType:
		var e *types.FloatType
		for _, f := range t.Fields {
			fe := floatElement(f)
			if fe == nil || (e != nil && !types.Equal(fe, e)) {
				return nil
			}
			e = fe
		}
		return e
	}
	return nil
}
