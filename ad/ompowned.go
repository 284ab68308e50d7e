package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/value"
)

// Elements an iteration owns. In the reverse of a parallel region, a
// load's adjoint may be added into its shadow plainly (no atomic) where no
// other thread reads that element in the primal: then no other thread adds
// into it in the reverse (a thread writing it would race with the load in
// the primal). Proven here in one shape, the common one: every load of
// shared memory holding derivatives in the region reads base[i], the same
// base, where i is the iteration variable of the region's one worksharing
// loop with the default static schedule (kmp_sch_static, one contiguous
// chunk per thread, __kmpc_for_static_init called once per thread, outside
// any loop), counting up by one from the chunk's lower bound: each i runs
// on one thread once, so base[i] is read by that thread alone. No call
// may take shadowed memory (a callee could read any element). Loads of a
// forking function's private stack slots (shared scalars, which no other
// pointer reaches) do not count.

// ownedLoads lists the loads of r.f whose adjoints go into elements their
// iteration owns: all of the function's loads of shared shadowed memory,
// or none.
func (r *reverseGen) ownedLoads() map[*ir.InstLoad]bool {
	if r.owned != nil {
		return r.owned
	}
	r.owned = map[*ir.InstLoad]bool{}
	var loads []*ir.InstLoad
	var base value.Value
	var iv *ir.InstPhi
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if !r.act.HasShadow(x.Src) || !irfacts.CarriesFloat(x.ElemType) || r.threadPrivate(x.Src) {
					continue
				}
				if p, ok := stripPointerCasts(x.Src).(*ir.Param); ok && r.d.omp.distinctParams[p] {
					continue // a shared scalar no other pointer reaches
				}
				bs, p, ok := r.iterationElement(x.Src)
				if !ok || (base != nil && (bs != base || p != iv)) {
					return r.owned
				}
				base, iv = bs, p
				loads = append(loads, x)
			case *ir.InstCall:
				if !r.callLeavesShadowsAlone(x) {
					return r.owned
				}
			case *ir.InstAtomicRMW, *ir.InstCmpXchg:
				return r.owned
			}
		}
	}
	for _, ld := range loads {
		r.owned[ld] = true
	}
	return r.owned
}

// callLeavesShadowsAlone reports a call that reads no shared shadowed
// memory: one taking no shadowed pointer but thread-private ones, or a
// bookkeeping intrinsic or OpenMP runtime call.
func (r *reverseGen) callLeavesShadowsAlone(c *ir.InstCall) bool {
	name := irfacts.CalleeName(c)
	if strings.HasPrefix(name, "llvm.lifetime.") || strings.HasPrefix(name, "llvm.dbg.") || isOMPRuntime(name) {
		return true
	}
	for _, a := range c.Args {
		if holdsPointers(a.Type()) && r.act.HasShadow(a) && !r.threadPrivate(a) {
			return false
		}
	}
	return true
}

// iterationElement reads pointer p as base[i]: a GEP of one index, i the
// iteration variable of a worksharing loop (ompIterationVar), base defined
// outside that loop.
func (r *reverseGen) iterationElement(p value.Value) (value.Value, *ir.InstPhi, bool) {
	p = stripPointerCasts(p)
	gep, ok := p.(*ir.InstGetElementPtr)
	if !ok || len(gep.Indices) != 1 {
		return nil, nil, false
	}
	iv, ok := r.ompIterationVar(gep.Indices[0])
	if !ok {
		return nil, nil, false
	}
	base := irfacts.Unwrap(gep.Src)
	if k, ok := r.slotOf(base, map[value.Value]bool{}); ok {
		// Loaded (in the loop or not) from a slot (a shared variable's)
		// the function only reads: the same base in every iteration.
		return k, iv, true
	}
	if def, isInst := r.blockOf[base]; isInst && r.cfg.LoopOf[r.blockOf[iv]].Contains(def) {
		return nil, nil, false
	}
	return base, iv, true
}

// slotOf reports v as the value of a slot the function only reads: a
// load of it, or a phi of such loads of the one slot.
func (r *reverseGen) slotOf(v value.Value, seen map[value.Value]bool) (slotKey, bool) {
	v = stripPointerCasts(v)
	switch x := v.(type) {
	case *ir.InstLoad:
		if r.onlyRead(x.Src) {
			return slotKey{irfacts.Unwrap(x.Src)}, true
		}
	case *ir.InstPhi:
		if seen[x] {
			return slotKey{}, true // around a loop: the other incomings decide
		}
		seen[x] = true
		var k slotKey
		for _, in := range x.Incs {
			ik, ok := r.slotOf(in.X, seen)
			if !ok || (ik.Value != nil && k.Value != nil && ik != k) {
				return slotKey{}, false
			}
			if ik.Value != nil {
				k = ik
			}
		}
		return k, k.Value != nil
	}
	return slotKey{}, false
}

// slotKey stands for the value loaded from a slot nothing writes: every
// load of it is the same base.
type slotKey struct{ value.Value }

// onlyRead reports a parameter of r.f that the function uses only as the
// address of loads.
func (r *reverseGen) onlyRead(p value.Value) bool {
	p = irfacts.Unwrap(p)
	if _, ok := p.(*ir.Param); !ok {
		return false
	}
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range unwrappedOperands(inst) {
				if op != p {
					continue
				}
				if ld, ok := inst.(*ir.InstLoad); !ok || irfacts.Unwrap(ld.Src) != p {
					return false
				}
			}
		}
	}
	return true
}

// ompIterationVar reports v (through integer extensions) as the iteration
// variable of an outermost loop of r.f that counts up by one from the
// lower bound __kmpc_for_static_init gave the thread with the default
// static schedule, the call made outside every loop.
func (r *reverseGen) ompIterationVar(v value.Value) (*ir.InstPhi, bool) {
	v = stripIntExt(v)
	phi, ok := v.(*ir.InstPhi)
	if !ok || r.blockOf[phi] == nil {
		return nil, false
	}
	h := r.blockOf[phi]
	l := r.cfg.LoopOf[h]
	if l == nil || l.Header != h || l.Parent != nil || len(phi.Incs) != 2 {
		return nil, false
	}
	var start value.Value
	for _, in := range phi.Incs {
		x := irfacts.Unwrap(in.X)
		if l.Contains(in.Pred.(*ir.Block)) {
			add, ok := x.(*ir.InstAdd)
			if !ok || irfacts.Unwrap(add.X) != phi || !isConstOne(add.Y) {
				return nil, false
			}
			continue
		}
		start = x
	}
	ld, ok := stripIntExt(start).(*ir.InstLoad)
	if !ok {
		return nil, false
	}
	lb := irfacts.Unwrap(ld.Src)
	for _, b := range r.f.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok || !strings.HasPrefix(irfacts.CalleeName(c), "__kmpc_for_static_init_") || len(c.Args) != 9 || irfacts.Unwrap(c.Args[4]) != lb {
				continue
			}
			sched, ok := irfacts.Unwrap(c.Args[2]).(*constant.Int)
			return phi, ok && sched.X.Int64() == 34 && r.cfg.LoopOf[b] == nil
		}
	}
	return nil, false
}

// stripIntExt follows sext and zext back.
func stripIntExt(v value.Value) value.Value {
	for {
		switch x := irfacts.Unwrap(v).(type) {
		case *ir.InstSExt:
			v = x.From
		case *ir.InstZExt:
			v = x.From
		default:
			return irfacts.Unwrap(v)
		}
	}
}

func isConstOne(v value.Value) bool {
	c, ok := irfacts.Unwrap(v).(*constant.Int)
	return ok && c.X.IsInt64() && c.X.Int64() == 1
}
