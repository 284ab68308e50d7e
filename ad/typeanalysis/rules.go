package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// visit runs the rule of one instruction or terminator: it reads the
// trees of the values involved and joins into each what the others imply.
func (a *Analysis) visit(n node) {
	switch x := n.(type) {
	case *ir.InstLoad:
		a.access(x, x.Src, x.ElemType)
	case *ir.InstStore:
		a.access(x.Src, x.Dst, x.Src.Type())
	case *ir.InstAtomicRMW:
		a.access(x, x.Dst, x.X.Type())
		a.access(x.X, x.Dst, x.X.Type())
	case *ir.InstCmpXchg:
		t := x.Cmp.Type()
		a.access(x.Cmp, x.Ptr, t)
		a.access(x.New, x.Ptr, t)
		a.add(x, a.get(x.Cmp).Truncate(irutil.StoreSize(t)))
	case *ir.InstGetElementPtr:
		a.gep(x)
	case *ir.InstBitCast:
		a.same(x, x.From)
	case *ir.InstAddrSpaceCast:
		a.same(x, x.From)
	case *ir.InstPtrToInt:
		a.same(x, x.From)
	case *ir.InstIntToPtr:
		a.same(x, x.From)
	case *ir.InstFreeze:
		a.same(x, x.X)
	case *ir.InstPhi:
		for _, in := range x.Incs {
			a.choice(x, in.X)
		}
	case *ir.InstSelect:
		a.choice(x, x.ValueTrue)
		a.choice(x, x.ValueFalse)
		a.add(x.Cond, integers(x.Cond.Type()))
	case *ir.InstExtractValue:
		off, t := aggregateOffset(x.X.Type(), x.Indices)
		if t != nil {
			a.part(x, x.X, off, irutil.AllocSize(t))
		}
	case *ir.InstInsertValue:
		off, t := aggregateOffset(x.X.Type(), x.Indices)
		if t != nil {
			a.insert(x, x.X, x.Elem, off, irutil.AllocSize(t))
		}
	case *ir.InstExtractElement:
		a.extractElement(x)
	case *ir.InstInsertElement:
		a.insertElement(x)
	case *ir.InstShuffleVector:
		a.shuffle(x)
	case *ir.InstTrunc:
		if !a.truncBytes(x, x.From) { // bytemove.go
			a.allIntegers(x, x.From)
		}
	case *ir.InstZExt:
		a.allIntegers(x, x.From)
	case *ir.InstSExt:
		a.allIntegers(x, x.From)
	case *ir.InstFPToSI:
		a.add(x, integers(x.To))
	case *ir.InstFPToUI:
		a.add(x, integers(x.To))
	case *ir.InstSIToFP:
		a.add(x.From, integers(x.From.Type()))
	case *ir.InstUIToFP:
		a.add(x.From, integers(x.From.Type()))
	case *ir.InstICmp:
		a.add(x, integers(x.Typ))
		a.compareOrder(x) // intuse.go
	case *ir.InstFCmp:
		a.add(x, integers(x.Typ))
	case *ir.InstAdd:
		a.addSub(x, x.X, x.Y, false)
	case *ir.InstSub:
		a.addSub(x, x.X, x.Y, true)
	case *ir.InstMul:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstUDiv:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstSDiv:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstURem:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstSRem:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstShl:
		if !a.shiftBytes(x, x.X, x.Y, false) {
			a.allIntegers(x, x.X, x.Y)
		}
	case *ir.InstLShr:
		if !a.shiftBytes(x, x.X, x.Y, true) {
			a.allIntegers(x, x.X, x.Y)
		}
	case *ir.InstAShr:
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstAnd:
		a.bitwise(x, x.X, x.Y, signAnd)
	case *ir.InstOr:
		a.bitwise(x, x.X, x.Y, signOr)
	case *ir.InstXor:
		a.bitwise(x, x.X, x.Y, signOr)
	case *ir.InstAlloca:
		if x.NElems != nil {
			a.add(x.NElems, integers(x.NElems.Type()))
		}
	case *ir.InstCall:
		a.call(x, x.Callee, x.Args)
	case *ir.TermInvoke:
		a.call(x, x.Invokee, x.Args)
	case *ir.TermRet:
		a.ret(x)
	case *ir.TermSwitch:
		a.add(x.X, integers(x.X.Type()))
	}
}

// same makes two values that hold the same bits (casts, phis and their
// incomings) hold the same facts.
func (a *Analysis) same(x, y value.Value) {
	a.flowTree(x, y, flowSame)
	a.flowTree(y, x, flowSame)
}

// choice relates a phi or select and one of its incoming values: the
// result holds what each incoming holds; back to the incomings go only
// the facts about the value's own bytes (an i64 phi used as a double makes
// its incomings doubles). Memory facts do not flow back: pointers into
// different fields of one object, chosen by a phi, would otherwise equate
// the fields at every distance between them, and facts would smear across
// the object.
func (a *Analysis) choice(r, x value.Value) {
	a.flowTree(r, x, flowSame)
	a.flowTree(x, r, flowOwn)
}

// own is the part of a value tree about the value's own bytes.
func (v *Tree) own() *Tree {
	out := NewTree()
	for k, c := range v.m {
		if k.len() == 1 {
			out.m[k] = c
		}
	}
	return out
}

// access relates a value read or written through a pointer and the memory
// there: for n = the store size of t, the bytes [0, n) at p hold what v
// holds, both ways. An integer-typed access asserts nothing by itself (the
// fact that its value is an integer comes from how it is used, if at all).
func (a *Analysis) access(v, p value.Value, t types.Type) {
	n := irutil.StoreSize(t)
	v, p = unwrap(v), unwrap(p)
	if a.stale(flow{p, v, flowWindow, n}) {
		a.up = a.get(p).appendPointeeWindow(a.up[:0], n)
		a.addFacts(v, a.up)
	}
	if a.stale(flow{v, p, flowPlaced, n}) {
		a.down = a.get(v).appendPlacedUnder(a.down[:0], n)
		a.addFacts(p, a.down)
	}
}

// gep relates a getelementptr's result and source: their memory facts are
// the same, shifted by the constant byte offset. With a variable index
// (an offset the analysis does not know), only the facts holding at every
// offset carry over, and an element fully typed by one float or pointer
// whose size is the variable index's stride (double* p; p[i]), or
// integers in all its bytes, makes both pointers point to arrays of it
// (elementRep).
func (a *Analysis) gep(x *ir.InstGetElementPtr) {
	off, variable, stride, after, g := int64(0), false, int64(0), int64(0), int64(0)
	followed := walkGEP(x, func(d int64, idx value.Value, size int64) {
		if idx != nil {
			if size == 0 {
				return
			}
			a.add(idx, integers(idx.Type()))
			variable, stride, after, d, g = true, size, 0, 0, gcd(g, size)
		}
		off += d
		if variable {
			after += d
		}
	})
	if !followed {
		return
	}
	// Both sides are read before either is joined into.
	srcT, dstT := a.get(x.Src), a.get(x)
	if !variable {
		// Both flows read their trees (stale records the versions)
		// before either joins.
		a.up, a.down = a.up[:0], a.down[:0]
		if a.stale(flow{unwrap(x.Src), x, flowShift, -off}) {
			a.up = srcT.appendShiftedPointee(a.up, -off)
		}
		if a.stale(flow{x, unwrap(x.Src), flowShift, off}) {
			a.down = dstT.appendShiftedPointee(a.down, off)
		}
		a.addFacts(x, a.up)
		a.addFacts(x.Src, a.down)
		return
	}
	up, down := srcT.repeatingPointee(), dstT.repeatingPointee()
	ds := positions(x.Src, off, g)
	if lo, size, n, ok := fieldArrayWindow(x); ok {
		a.boundedGEP(x, srcT, dstT, up, inWindow(ds, lo, size, n), size)
		return
	}
	var rep *Tree
	if after == 0 && (off-after)%stride == 0 {
		// Read before the joins. Where the elements are known (ds), integers
		// stored in one say nothing of the others (the double array that
		// one element of is overwritten by integers).
		rep = a.elementRep(dstT, stride, ds == nil)
	}
	if ds != nil {
		a.addAtPositions(x, srcT, dstT, ds) // strided.go
	}
	a.add(x, up)
	a.add(x.Src, down)
	if rep != nil {
		a.add(x, rep)
		a.add(x.Src, rep)
	}
}

// elementRep: the element at byte 0 of the memory t's pointer points to,
// of stride bytes, reached by a variable index, is one float or pointer
// of that size, or integers in every byte (long *p; p[i]): every element
// of the array holds the same (the tree of a pointer to such an array).
// Nil otherwise, and for integers unless ints. It uses a's scratch lists: ScalarAt reads value-level
// facts only, those of the window's paths of one offset.
func (a *Analysis) elementRep(t *Tree, stride int64, ints bool) *Tree {
	a.up = t.appendPointeeWindow(a.up[:0], stride)
	win := a.down[:0]
	for _, f := range a.up {
		if f.k.len() == 1 {
			win = append(win, f)
		}
	}
	a.down = win
	// Integers must fill the element: integers in part of it (a struct's
	// int field) say nothing of the rest (its double).
	wt := treeOf(win)
	c := wt.ScalarAt(0, stride)
	if c == Integer {
		if !ints {
			return nil
		}
		for _, b := range wt.Bytes(stride) {
			if b != Integer {
				return nil
			}
		}
	}
	if !((c.IsFloat() || c == Pointer) && c.Size() == stride || c == Integer) {
		return nil
	}
	// The element at offset 0, at every offset.
	rep := NewTree()
	var buf [MaxDepth]int64
	for k, c := range t.m {
		if k.len() >= 2 && k.first() == 0 && k>>level1&offMask == 1 {
			p := k.appendPath(buf[:0])[1:]
			p[0] = -1
			rep.put(p, c)
		}
	}
	return rep.Under(0)
}

// ret relates a returned value and its function's return tree.
func (a *Analysis) ret(x *ir.TermRet) {
	if x.X == nil {
		return
	}
	f := a.retOwner[x]
	if f == nil {
		return
	}
	a.addRet(f, a.get(x.X))
	a.add(x.X, a.rets[f])
}

// walkGEP calls step for each index of getelementptr x, in order: with the
// constant byte offset it adds (v nil), or with the index v that is not
// constant and the size of what it steps over. False, after the indices
// before it, at a form the rules do not follow (a vector of pointers, a
// struct field that is no constant or out of range, an index into a
// scalar).
func walkGEP(x *ir.InstGetElementPtr, step func(d int64, v value.Value, size int64)) bool {
	if _, vec := x.Typ.(*types.VectorType); vec {
		return false
	}
	t := x.ElemType
	for i, ix := range x.Indices {
		var size int64
		var next types.Type
		if i == 0 {
			size, next = irutil.AllocSize(x.ElemType), x.ElemType
		} else {
			switch tt := t.(type) {
			case *types.StructType:
				k, ok := intConst(ix)
				if !ok {
					return false
				}
				d, nt := irutil.ElementOffset(tt, k)
				if nt == nil {
					return false
				}
				step(d, nil, 0)
				t = nt
				continue
			case *types.ArrayType:
				size, next = irutil.AllocSize(tt.ElemType), tt.ElemType
			case *types.VectorType:
				size, next = irutil.StoreSize(tt.ElemType), tt.ElemType
			default:
				return false
			}
		}
		if k, ok := intConst(ix); ok {
			step(k*size, nil, size)
		} else {
			step(0, ix, size)
		}
		t = next
	}
	return true
}
