package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Shadows that exist in the reverse sweep only (issue 22). A block its
// own function allocates outside every loop and always frees
// (pairedfree.go), whose address goes only into loads and stores of float
// data, memsets, comparisons and its frees (through address computations
// and casts), has a shadow the forward sweep never touches: the forward
// side of such accesses leaves shadows alone (a float load's and store's
// shadow work is their reverse's; a memset's, its reverse's clearing; no
// pointer is stored into the block or read from it, none copied in bulk,
// none handed to a call), so the shadow is zero from its allocation until
// the reverse sweep reaches the block's free. The reverse of each free of
// the block allocates the shadow there instead, zeroed, into a slot of the
// reverse sweep, and the reverse of the allocation frees it: the forward
// sweep neither allocates it nor records it, and a helper called in a loop
// (a C++ temporary std::vector in split mode) holds one such shadow at a
// time rather than one per call from its forward sweep to its reverse.
//
// Every path from the allocation to a return frees the block first
// (alwaysFreed), and the allocation is in no loop: a reversed path meets
// the reverse of a free before the reverses of the block's accesses and of
// its allocation. The free must be in no loop either, so that it runs once.
//
// In the forward sweep the shadow is a stand-in no instruction may use;
// the reverse rebuilds the shadow of an address into the block from the
// slot, with the address's own indices (rebuildShadow). generate checks
// that no emitted instruction uses a stand-in (checkStandIns).

// reverseOnly reports whether allocation a's shadow is allocated in the
// reverse sweep (see above), memoized per allocation.
func (r *reverseGen) reverseOnly(a *ir.InstCall) bool {
	if v, ok := r.revOnly[a]; ok {
		return v
	}
	if r.revOnly == nil {
		r.revOnly = map[*ir.InstCall]bool{}
	}
	v := r.provesReverseOnly(a)
	r.revOnly[a] = v
	return v
}

func (r *reverseGen) provesReverseOnly(a *ir.InstCall) bool {
	switch irfacts.CalleeName(a) {
	case "_Znwm", "_Znam", "malloc", "calloc":
	default:
		return false
	}
	if f, ok := calleeFunc(a); !ok || irfacts.FuncAttr(f, attrAllocator) != "" {
		return false
	} else if _, custom := r.d.allocs[f]; custom {
		return false
	}
	b := r.blockOf[a]
	if b == nil || r.cfg.LoopOf[b] != nil || !r.tracksShadowLife() || !r.act.HasShadow(a) || r.d.mayAliasPrimal(a) {
		return false
	}
	if !r.alwaysFreed(a) {
		return false
	}
	if r.users == nil {
		r.users = usersOf(r.f)
	}
	return walkUses(r.users, a, func(v value.Value, u interface{}) useVerdict {
		switch x := u.(type) {
		case *ir.InstGetElementPtr:
			return followsIf(irfacts.Unwrap(x.Src) == v)
		case *ir.InstBitCast:
			return followsIf(types.IsPointer(x.To))
		case *ir.InstLoad:
			return staysIf(floatElement(x.ElemType) != nil && !r.act.HasShadow(x))
		case *ir.InstStore:
			return staysIf(irfacts.Unwrap(x.Src) != v && floatElement(x.Src.Type()) != nil)
		case *ir.InstICmp:
			return useStays
		case *ir.InstCall:
			for i, arg := range x.Args {
				if i > 0 && irfacts.Unwrap(arg) == v {
					return useFails
				}
			}
			switch {
			case isFree(x):
				fb := r.blockOf[x]
				return staysIf(fb != nil && r.cfg.LoopOf[fb] == nil)
			case irfacts.IsMemSet(x) && len(x.Args) > 0:
				return staysIf(irfacts.Unwrap(x.Args[0]) == v)
			}
		}
		return useFails
	})
}

// reverseOnlyStandIn returns the forward sweep's stand-in for the shadow
// of primal pointer v into a reverse-only block.
func (r *reverseGen) reverseOnlyStandIn(v value.Value) value.Value {
	s := ir.NewBitCast(constant.NewNull(types.I8Ptr), v.Type())
	s.SetName("gozyme.reverse.only.shadow")
	if r.standIns == nil {
		r.standIns = map[value.Value]bool{}
	}
	r.standIns[s] = true
	return s
}

// forwardStandIn reports whether the forward shadow of primal pointer p
// is a stand-in: p points into a reverse-only block.
func (r *reverseGen) forwardStandIn(p value.Value) bool {
	s, ok := r.shadow[irfacts.Unwrap(p)]
	return ok && r.standIns[s]
}

// reverseOnlySlot is the reverse sweep's slot holding the shadow of
// reverse-only allocation a (null before the reverse of its free).
func (r *reverseGen) reverseOnlySlot(a *ir.InstCall) *ir.InstAlloca {
	if s, ok := r.revOnlySlots[a]; ok {
		return s
	}
	if r.revOnlySlots == nil {
		r.revOnlySlots = map[*ir.InstCall]*ir.InstAlloca{}
	}
	t := a.Type().(*types.PointerType)
	s := r.newSlot(t, constant.NewNull(t))
	r.revOnlySlots[a] = s
	return s
}

// reverseOnlyFree emits, for the reverse of free x, the zeroed shadow of
// the reverse-only block it frees, if it frees one.
func (r *reverseGen) reverseOnlyFree(blk, at *ir.Block, x *ir.InstCall) {
	a := r.pairedAllocation(x)
	if a == nil || !r.reverseOnly(a) {
		return
	}
	args := make([]value.Value, len(a.Args))
	for i, arg := range a.Args {
		args[i] = r.lookup(blk, at, arg)
	}
	sc := blk.NewCall(a.Callee, args...)
	sc.Typ = a.Typ
	if irfacts.CalleeName(a) != "calloc" {
		blk.Insts = append(blk.Insts, memsetZero(r.m, sc, r.lookup(blk, at, allocSizeArg(a)))...)
	}
	blk.NewStore(sc, r.reverseOnlySlot(a))
}

// rebuildShadow emits, in the reverse sweep, the shadow of primal pointer
// p into a reverse-only block: the block's shadow from its slot, then p's
// own address computations on it.
func (r *reverseGen) rebuildShadow(blk, at *ir.Block, p value.Value) (value.Value, bool) {
	p = irfacts.Unwrap(p)
	if !r.forwardStandIn(p) {
		return nil, false
	}
	switch x := p.(type) {
	case *ir.InstCall:
		return blk.NewLoad(x.Typ, r.reverseOnlySlot(x)), true
	case *ir.InstGetElementPtr:
		src, ok := r.rebuildShadow(blk, at, x.Src)
		if !ok {
			return nil, false
		}
		idx := make([]value.Value, len(x.Indices))
		for i, v := range x.Indices {
			idx[i] = r.lookup(blk, at, v)
		}
		g := blk.NewGetElementPtr(x.ElemType, src, idx...)
		g.InBounds = x.InBounds
		g.Typ = x.Typ
		return g, true
	case *ir.InstBitCast:
		src, ok := r.rebuildShadow(blk, at, x.From)
		if !ok {
			return nil, false
		}
		return blk.NewBitCast(src, x.To), true
	}
	return nil, false
}

// checkStandIns reports an error where an instruction of g uses a
// stand-in: a use of a reverse-only shadow the analysis above missed.
func (r *reverseGen) checkStandIns(g *ir.Func) error {
	if len(r.standIns) == 0 {
		return nil
	}
	for _, b := range g.Blocks {
		insts := append([]interface{}{}, b.Term)
		for _, inst := range b.Insts {
			insts = append(insts, inst)
		}
		for _, inst := range insts {
			u, ok := inst.(interface{ Operands() []*value.Value })
			if !ok {
				continue
			}
			for _, op := range u.Operands() {
				if r.standIns[irfacts.Unwrap(*op)] {
					return errorAt(r.f, nil, "internal error: the generated code uses the shadow of a block whose shadow exists in the reverse sweep only (reverseonly.go)")
				}
			}
		}
	}
	return nil
}
