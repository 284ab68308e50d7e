package typeanalysis

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
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
		a.add(x, a.get(x.Cmp).Truncate(StoreSize(t)))
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
			a.part(x, x.X, off, AllocSize(t))
		}
	case *ir.InstInsertValue:
		off, t := aggregateOffset(x.X.Type(), x.Indices)
		if t != nil {
			a.insert(x, x.X, x.Elem, off, AllocSize(t))
		}
	case *ir.InstExtractElement:
		a.extractElement(x)
	case *ir.InstInsertElement:
		a.insertElement(x)
	case *ir.InstShuffleVector:
		a.shuffle(x)
	case *ir.InstTrunc:
		a.allIntegers(x, x.From)
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
		a.allIntegers(x, x.X, x.Y)
	case *ir.InstLShr:
		a.allIntegers(x, x.X, x.Y)
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
	a.add(x, a.get(y))
	a.add(y, a.get(x))
}

// choice relates a phi or select and one of its incoming values: the
// result holds what each incoming holds; back to the incomings go only
// the facts about the value's own bytes (an i64 phi used as a double makes
// its incomings doubles). Memory facts do not flow back: pointers into
// different fields of one object, chosen by a phi, would otherwise equate
// the fields at every distance between them, and facts would smear across
// the object.
func (a *Analysis) choice(r, x value.Value) {
	a.add(r, a.get(x))
	a.add(x, a.get(r).own())
}

// own is the part of a value tree about the value's own bytes.
func (v *Tree) own() *Tree {
	out := NewTree()
	for k, c := range v.m {
		if p := decode(k); len(p) == 1 {
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
	n := StoreSize(t)
	a.add(v, a.get(p).Data(0).Window(0, n))
	a.add(p, a.get(v).Place(0, n).Under(0))
}

// gep relates a getelementptr's result and source: their memory facts are
// the same, shifted by the constant byte offset. With a variable index
// (an offset the analysis does not know), only the facts holding at every
// offset carry over, and an element fully typed by one float or pointer
// whose size is the variable index's stride (double* p; p[i]) makes both
// pointers point to arrays of it.
func (a *Analysis) gep(x *ir.InstGetElementPtr) {
	if _, vec := x.Typ.(*types.VectorType); vec {
		return
	}
	off, variable, stride, after := int64(0), false, int64(0), int64(0)
	t := x.ElemType
	for i, idx := range x.Indices {
		var d, size int64
		var next types.Type
		if i == 0 {
			size, next = AllocSize(x.ElemType), x.ElemType
		} else {
			switch tt := t.(type) {
			case *types.StructType:
				k, ok := intConst(idx)
				if !ok {
					return
				}
				d, next = ElementOffset(tt, k)
				if next == nil {
					return
				}
			case *types.ArrayType:
				size, next = AllocSize(tt.ElemType), tt.ElemType
			case *types.VectorType:
				size, next = StoreSize(tt.ElemType), tt.ElemType
			default:
				return
			}
		}
		if size != 0 {
			if k, ok := intConst(idx); ok {
				d = k * size
			} else {
				a.add(idx, integers(idx.Type()))
				variable, stride, after = true, size, 0
			}
		}
		off += d
		if variable {
			after += d
		}
		t = next
	}
	src, dst := a.get(x.Src).Data(0), a.get(x).Data(0)
	if !variable {
		a.add(x, src.ShiftMemory(-off).Under(0))
		a.add(x.Src, dst.ShiftMemory(off).Under(0))
		return
	}
	a.add(x, src.Repeating().Under(0))
	a.add(x.Src, dst.Repeating().Under(0))
	if after != 0 || (off-after)%stride != 0 {
		return
	}
	if c := dst.Window(0, stride).ScalarAt(0, stride); (c.IsFloat() || c == Pointer) && c.Size() == stride {
		rep := NewTree()
		for _, e := range dst.Entries() {
			if e.Path[0] == 0 {
				e.Path[0] = -1
				rep.put(e.Path, e.Type)
			}
		}
		a.add(x, rep.Under(0))
		a.add(x.Src, rep.Under(0))
	}
}

// part relates an extracted part of an aggregate (bytes [off, off+n)) to
// the aggregate, both ways.
func (a *Analysis) part(v, agg value.Value, off, n int64) {
	a.add(v, a.get(agg).Window(off, n))
	a.add(agg, a.get(v).Place(off, n))
}

// insert relates insertvalue's (insertelement's) result, the aggregate it
// starts from (outside the inserted bytes) and the inserted element.
func (a *Analysis) insert(r, agg, elem value.Value, off, n int64) {
	a.part(elem, r, off, n)
	a.add(r, a.get(agg).without(off, n))
	a.add(agg, a.get(r).without(off, n))
}

// without is a value tree less the facts overlapping bytes [off, off+n).
func (v *Tree) without(off, n int64) *Tree {
	out := NewTree()
	for k, c := range v.m {
		p := decode(k)
		if p[0] < off+n && p[0]+c.Size() > off {
			continue
		}
		out.put(p, c)
	}
	return out
}

// aggregateOffset is the byte offset and type of an extractvalue or
// insertvalue's element.
func aggregateOffset(t types.Type, indices []uint64) (int64, types.Type) {
	off := int64(0)
	for _, i := range indices {
		d, et := ElementOffset(t, int64(i))
		if et == nil {
			return 0, nil
		}
		off += d
		t = et
	}
	return off, t
}

func (a *Analysis) extractElement(x *ir.InstExtractElement) {
	vt, ok := x.X.Type().(*types.VectorType)
	if !ok {
		return
	}
	s := StoreSize(vt.ElemType)
	if k, ok := intConst(x.Index); ok {
		a.part(x, x.X, k*s, s)
		return
	}
	a.add(x.Index, integers(x.Index.Type()))
	for k := int64(0); k < int64(vt.Len); k++ {
		a.part(x, x.X, k*s, s)
	}
}

func (a *Analysis) insertElement(x *ir.InstInsertElement) {
	vt, ok := x.X.Type().(*types.VectorType)
	if !ok {
		return
	}
	s := StoreSize(vt.ElemType)
	if k, ok := intConst(x.Index); ok {
		a.insert(x, x.X, x.Elem, k*s, s)
		return
	}
	a.add(x.Index, integers(x.Index.Type()))
	for k := int64(0); k < int64(vt.Len); k++ {
		a.add(x, a.get(x.Elem).Place(k*s, s))
	}
}

// shuffle relates each lane of a shufflevector's result to the lane of the
// operand its constant mask picks.
func (a *Analysis) shuffle(x *ir.InstShuffleVector) {
	xt, ok := x.X.Type().(*types.VectorType)
	if !ok {
		return
	}
	s := StoreSize(xt.ElemType)
	var mask []constant.Constant
	switch m := x.Mask.(type) {
	case *constant.Vector:
		mask = m.Elems
	case *constant.ZeroInitializer:
		for i := uint64(0); i < x.Typ.Len; i++ {
			mask = append(mask, constant.NewInt(types.I32, 0))
		}
	default:
		return
	}
	for i, m := range mask {
		k, ok := intConst(m)
		if !ok || k < 0 {
			continue
		}
		src := x.X
		if k >= int64(xt.Len) {
			src, k = x.Y, k-int64(xt.Len)
		}
		lane := a.get(src).Window(k*s, s)
		a.add(x, lane.Place(int64(i)*s, s))
		a.add(src, a.get(x).Window(int64(i)*s, s).Place(k*s, s))
	}
}

// allIntegers makes the result and operands of an integer operation
// (arithmetic other than add and sub, shifts, extensions) integers.
func (a *Analysis) allIntegers(r value.Value, ops ...value.Value) {
	a.add(r, integers(r.Type()))
	for _, op := range ops {
		a.add(op, integers(op.Type()))
	}
}

// addSub: pointer arithmetic done on integers is common (ptrtoint, add,
// inttoptr), so operands get no facts; the result is a pointer when one
// operand is a pointer and the other an integer (pointer minus pointer is
// an integer), and an integer when both operands are.
func (a *Analysis) addSub(r, x, y value.Value, sub bool) {
	size := StoreSize(r.Type())
	if _, vec := r.Type().(*types.VectorType); vec {
		a.bothIntegers(r, x, y)
		return
	}
	cx, cy := a.kind(x, size), a.kind(y, size)
	switch {
	case cx == Pointer && cy == Integer, cx == Integer && cy == Pointer && !sub:
		a.add(r, Of(Pointer, 0))
	case cx == Pointer && cy == Pointer && sub, cx == Integer && cy == Integer:
		a.add(r, integers(r.Type()))
	}
}

// kind is the single type of an integer operand's bytes; constants count
// as integers.
func (a *Analysis) kind(v value.Value, size int64) Concrete {
	if _, ok := unwrap(v).(*constant.Int); ok {
		return Integer
	}
	return a.get(v).ScalarAt(0, size)
}

// bothIntegers makes r an integer when both operands are.
func (a *Analysis) bothIntegers(r, x, y value.Value) {
	size := StoreSize(r.Type())
	if a.kind(x, size) == Integer && a.kind(y, size) == Integer {
		a.add(r, integers(r.Type()))
	}
}

// signMask tells which masks of the sign bit a bitwise operation keeps a
// float a float with: and with everything but the sign bit (fabs), or and
// xor with the sign bit alone (-fabs, fneg).
type signMask int

const (
	signAnd signMask = iota
	signOr
)

// bitwise: and, or and xor give no facts (sign-bit tricks on float bits
// are common), except that masking a float's sign bit leaves a float of
// the same type (fabs, fneg, copysign by bits), a pointer masked with a
// constant stays a pointer (alignment), and integers stay integers.
func (a *Analysis) bitwise(r, x, y value.Value, kind signMask) {
	for _, pair := range [][2]value.Value{{x, y}, {y, x}} {
		v, mask := pair[0], pair[1]
		if isSignMask(mask, r.Type(), kind) {
			a.same(r, v)
			return
		}
	}
	size := StoreSize(r.Type())
	if _, vec := r.Type().(*types.VectorType); !vec {
		_, cx := unwrap(x).(*constant.Int)
		_, cy := unwrap(y).(*constant.Int)
		if (a.kind(x, size) == Pointer && cy) || (a.kind(y, size) == Pointer && cx) {
			a.add(r, Of(Pointer, 0))
			return
		}
	}
	a.bothIntegers(r, x, y)
}

// isSignMask reports a constant (scalar or splat) that is, per element of
// t, the sign-bit mask of the kind.
func isSignMask(mask value.Value, t types.Type, kind signMask) bool {
	bits := uint64(0)
	switch tt := t.(type) {
	case *types.IntType:
		bits = tt.BitSize
	case *types.VectorType:
		it, ok := tt.ElemType.(*types.IntType)
		if !ok {
			return false
		}
		bits = it.BitSize
	}
	if bits != 16 && bits != 32 && bits != 64 {
		return false
	}
	var c *constant.Int
	switch m := unwrap(mask).(type) {
	case *constant.Int:
		c = m
	case *constant.Vector:
		for _, e := range m.Elems {
			ei, ok := e.(*constant.Int)
			if !ok || (c != nil && ei.X.Cmp(c.X) != 0) {
				return false
			}
			c = ei
		}
	}
	if c == nil {
		return false
	}
	u := c.X.Uint64()
	if c.X.Sign() < 0 {
		u = uint64(c.X.Int64())
	}
	if bits < 64 {
		u &= 1<<bits - 1
	}
	sign := uint64(1) << (bits - 1)
	if kind == signAnd {
		return u == sign-1
	}
	return u == sign
}

// ret relates a returned value and its function's return tree.
func (a *Analysis) ret(x *ir.TermRet) {
	if x.X == nil {
		return
	}
	f := a.funcOfRet(x)
	if f == nil {
		return
	}
	a.addRet(f, a.get(x.X))
	a.add(x.X, a.rets[f])
}

func (a *Analysis) funcOfRet(x *ir.TermRet) *ir.Func { return a.retOwner[x] }
