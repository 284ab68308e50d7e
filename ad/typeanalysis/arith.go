package typeanalysis

// Integer arithmetic: what it says about its operands and result (integers,
// pointers moved as integers, the sign bit of floats masked).

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// allIntegers makes the result and operands of an integer operation
// (arithmetic other than add and sub, shifts, extensions) integers, but
// for an operand that is a pointer's bits by construction (ptrtoint): an
// alignment check's urem leaves the pointer a pointer (were its bits made
// integers too, the pointer would be both, nothing one type describes).
func (a *Analysis) allIntegers(r value.Value, ops ...value.Value) {
	a.add(r, integers(r.Type()))
	for _, op := range ops {
		switch unwrap(op).(type) {
		case *ir.InstPtrToInt, *constant.ExprPtrToInt:
			continue
		}
		a.add(op, integers(op.Type()))
	}
}

// addSub: pointer arithmetic done on integers is common (ptrtoint, add,
// inttoptr), so operands get no facts; the result is a pointer when one
// operand is a pointer and the other an integer (pointer minus pointer is
// an integer), and an integer when both operands are.
func (a *Analysis) addSub(r, x, y value.Value, sub bool) {
	size := irutil.StoreSize(r.Type())
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
	a.addSubBack(r, x, y) // intuse.go
	a.addSubBack(r, y, x)
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
	size := irutil.StoreSize(r.Type())
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
// constant stays a pointer (alignment, tags), but for an and keeping only
// its low bits (lowBitsMask: the offset from an alignment boundary, an
// integer), and integers stay integers.
func (a *Analysis) bitwise(r, x, y value.Value, kind signMask) {
	for _, pair := range [][2]value.Value{{x, y}, {y, x}} {
		v, mask := pair[0], pair[1]
		if isSignMask(mask, r.Type(), kind) {
			a.same(r, v)
			return
		}
	}
	size := irutil.StoreSize(r.Type())
	if _, vec := r.Type().(*types.VectorType); !vec {
		cx, _ := unwrap(x).(*constant.Int)
		cy, _ := unwrap(y).(*constant.Int)
		for _, pc := range []struct {
			p value.Value
			c *constant.Int
		}{{x, cy}, {y, cx}} {
			if pc.c == nil || a.kind(pc.p, size) != Pointer {
				continue
			}
			if kind == signAnd && lowBitsMask(pc.c) {
				a.add(r, integers(r.Type()))
			} else {
				a.add(r, Of(Pointer, 0))
			}
			return
		}
	}
	a.bothIntegers(r, x, y)
}

// lowBitsMask reports an and mask that keeps no more than a pointer's low
// 32 bits: what it leaves of a pointer is an offset, not an address.
func lowBitsMask(c *constant.Int) bool {
	return c.X.Sign() >= 0 && c.X.BitLen() <= 32
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
