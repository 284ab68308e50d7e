package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Atomic updates of floats: clang-14 emits #pragma omp atomic x += v on a
// double or float as a compare-exchange loop on the value's bits, which
// has no derivative; the copy AD differentiates has the atomicrmw fadd or
// fsub the loop implements (atomics.go differentiates those).

// rewriteAtomicLoops turns clang's compare-exchange loops for atomic float
// updates (#pragma omp atomic: x += v, x -= v) into atomicrmw fadd/fsub:
//
//	L: %old = phi iN [ load atomic P ], [ %prev, L ]
//	   %f = bitcast %old to F;  %g = fadd %f, %v;  %new = bitcast %g to iN
//	   %x = cmpxchg P, %old, %new;  %prev = extractvalue %x, 0
//	   br (extractvalue %x, 1), exit, L
//
// Other compare-exchange loops stay; on memory holding derivatives they
// are an error (atomics.go).
func rewriteAtomicLoops(f *ir.Func) {
	for _, b := range f.Blocks {
		m, ok := matchAtomicLoop(f, b)
		if !ok {
			continue
		}
		bc := ir.NewBitCast(m.ptr, types.NewPointer(m.v.Type()))
		b.Insts = append(append([]ir.Instruction(nil), m.keep...), bc)
		v := m.v
		if m.mul[1] != nil {
			mul := ir.NewFMul(m.mul[0], m.mul[1])
			b.Insts = append(b.Insts, mul)
			v = mul
		}
		b.Insts = append(b.Insts, ir.NewAtomicRMW(m.op, bc, v, m.ordering))
		b.NewBr(m.exit)
		for _, in := range m.phi.Incs {
			if ld, ok := irfacts.Unwrap(in.X).(*ir.InstLoad); ok && ld.Atomic && !usedIn(f, ld) {
				removeInst(f, ld)
			}
		}
	}
}

type atomicLoop struct {
	phi      *ir.InstPhi
	ptr, v   value.Value      // the update: x op= v
	mul      [2]value.Value   // or x += mul[0]·mul[1] (a contracted update)
	keep     []ir.Instruction // instructions of the loop the update's operand needs
	op       enum.AtomicOp
	ordering enum.AtomicOrdering
	exit     *ir.Block
}

// matchAtomicLoop recognizes block b as a compare-exchange loop of an
// atomic float update whose values nothing outside b uses. At -O0 the new
// value goes through a stack slot (stored as a float, reloaded as bits).
func matchAtomicLoop(f *ir.Func, b *ir.Block) (atomicLoop, bool) {
	var m atomicLoop
	var x *ir.InstCmpXchg
	var slotStores []*ir.InstStore
	for _, inst := range b.Insts {
		switch y := inst.(type) {
		case *ir.InstPhi:
			if m.phi != nil {
				return m, false
			}
			m.phi = y
		case *ir.InstCmpXchg:
			if x != nil {
				return m, false
			}
			x = y
		case *ir.InstStore:
			slotStores = append(slotStores, y)
		case *ir.InstBitCast, *ir.InstExtractValue, *ir.InstLoad, *ir.InstFAdd, *ir.InstFSub, *ir.InstFNeg, *ir.InstFMul,
			*ir.InstFPExt, *ir.InstFPTrunc, *ir.InstGetElementPtr:
		case *ir.InstCall:
			if n := irfacts.CalleeName(y); n != "llvm.fmuladd.f64" && n != "llvm.fmuladd.f32" && !isDebugIntrinsic(inst) {
				return m, false
			}
		default:
			return m, false
		}
	}
	br, ok := b.Term.(*ir.TermCondBr)
	if x == nil || m.phi == nil || !ok || br.TargetFalse != b || len(m.phi.Incs) != 2 || irfacts.Unwrap(x.Cmp) != m.phi {
		return m, false
	}
	m.exit = br.TargetTrue.(*ir.Block)
	ev1, ok := irfacts.Unwrap(br.Cond).(*ir.InstExtractValue)
	if !ok || irfacts.Unwrap(ev1.X) != x || len(ev1.Indices) != 1 || ev1.Indices[0] != 1 {
		return m, false
	}
	for _, in := range m.phi.Incs {
		if in.Pred == b {
			ev0, ok := irfacts.Unwrap(in.X).(*ir.InstExtractValue)
			if !ok || irfacts.Unwrap(ev0.X) != x || len(ev0.Indices) != 1 || ev0.Indices[0] != 0 {
				return m, false
			}
		}
	}
	// The new value: a float's bits, directly or through a stack slot.
	var g value.Value
	switch nv := irfacts.Unwrap(x.New).(type) {
	case *ir.InstBitCast:
		g = irfacts.Unwrap(nv.From)
	case *ir.InstLoad:
		if st := reachingStore(f, nv); st != nil {
			g = irfacts.Unwrap(st.Src)
		}
	}
	if g == nil || !irfacts.IsFloat(g.Type()) {
		return m, false
	}
	for _, st := range slotStores {
		objs, known := underlyingObjects(st.Dst)
		if !known || len(objs) != 1 || irfacts.Unwrap(st.Src) != g {
			return m, false
		}
		if _, ok := objs[0].(*ir.InstAlloca); !ok {
			return m, false
		}
	}
	isOld := func(v value.Value) bool {
		bc, ok := irfacts.Unwrap(v).(*ir.InstBitCast)
		return ok && irfacts.Unwrap(bc.From) == m.phi && instIn(b, bc)
	}
	switch y := g.(type) {
	case *ir.InstFAdd:
		m.op = enum.AtomicOpFAdd
		switch {
		case isOld(y.X):
			m.v = irfacts.Unwrap(y.Y)
		case isOld(y.Y):
			m.v = irfacts.Unwrap(y.X)
		}
	case *ir.InstFSub:
		m.op = enum.AtomicOpFSub
		if isOld(y.X) {
			m.v = irfacts.Unwrap(y.Y)
		}
	case *ir.InstCall:
		// fmuladd(p, q, old): old + p·q (x += p*q, or x -= p*q with -p).
		if n := irfacts.CalleeName(y); (n == "llvm.fmuladd.f64" || n == "llvm.fmuladd.f32") && isOld(y.Args[2]) {
			m.op = enum.AtomicOpFAdd
			m.mul = [2]value.Value{irfacts.Unwrap(y.Args[0]), irfacts.Unwrap(y.Args[1])}
			m.v = m.mul[0]
		}
	}
	if m.v == nil || !instIn(b, g.(ir.Instruction)) {
		return m, false
	}
	// What depends on the old value is the loop's own; the rest (the
	// update's operand, computed in the loop at -O0) stays.
	dep := map[value.Value]bool{m.phi: true}
	depStore := map[*ir.InstStore]bool{}
	for _, inst := range b.Insts {
		if st, ok := inst.(*ir.InstStore); ok {
			depStore[st] = dep[irfacts.Unwrap(st.Src)]
			continue
		}
		v, isValue := inst.(value.Value)
		for _, op := range unwrappedOperands(inst) {
			if dep[op] && isValue {
				dep[v] = true
			}
		}
	}
	for _, st := range slotStores {
		if !depStore[st] {
			return m, false
		}
	}
	for _, v := range []value.Value{m.v, m.mul[1]} {
		if dep[v] {
			return m, false
		}
	}
	m.keep = nil
	for _, inst := range b.Insts {
		v, isValue := inst.(value.Value)
		switch {
		case isValue && dep[v]:
			if usedOutside(f, v, b) {
				return m, false
			}
		case inst == ir.Instruction(x), !isValue:
			if st, ok := inst.(*ir.InstStore); ok && !depStore[st] {
				return m, false
			}
		default:
			if ld, ok := inst.(*ir.InstLoad); ok && irfacts.Unwrap(x.New) == ld {
				break // the new value's bits, reloaded
			}
			if isDebugIntrinsic(inst) {
				break // it may describe a value that goes
			}
			m.keep = append(m.keep, inst)
		}
	}
	m.ptr = irfacts.Unwrap(x.Ptr)
	m.ordering = x.SuccessOrdering
	return m, true
}

func instIn(b *ir.Block, inst ir.Instruction) bool {
	for _, i := range b.Insts {
		if i == inst {
			return true
		}
	}
	return false
}

// usedOutside reports a use of v in f outside block b.
func usedOutside(f *ir.Func, v value.Value, b *ir.Block) bool {
	for _, blk := range f.Blocks {
		if blk == b {
			continue
		}
		for _, inst := range blk.Insts {
			for _, op := range unwrappedOperands(inst) {
				if op == v {
					return true
				}
			}
		}
		if blk.Term != nil {
			for _, op := range unwrappedOperands(blk.Term) {
				if op == v {
					return true
				}
			}
		}
	}
	return false
}

// usedIn reports any use of v in f.
func usedIn(f *ir.Func, v value.Value) bool { return usedOutside(f, v, nil) }

// removeInst deletes inst from f.
func removeInst(f *ir.Func, inst ir.Instruction) {
	for _, b := range f.Blocks {
		for i, x := range b.Insts {
			if x == inst {
				b.Insts = append(b.Insts[:i], b.Insts[i+1:]...)
				return
			}
		}
	}
}
