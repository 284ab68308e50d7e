package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Integers told by how they are used, beyond the operations that only
// integers undergo (mul, div, shifts, extensions, indices, sizes: rules.go):
//   - add and sub backwards: a result that is an integer with one operand
//     an integer makes the other an integer: pointer plus or minus an
//     integer is a pointer, so the other operand is not one, and a float's
//     bits moved by integer arithmetic are integers already to the rules
//     (as mul makes them);
//   - a comparison with an integer (a loop's exit test i == n against its
//     induction variable), or an ordering one (<, <=, >, >=, signed or
//     unsigned) with a constant other than the sign tests (0 and -1) and
//     smaller than the bit patterns of normal floats: a counter checked
//     against a bound (R_end - R_start > 1). A float's bits are compared
//     as integers in sign tests (x < 0, x > -1), for equality with
//     constants (0, the patterns of infinity), and in classifications
//     against the patterns of infinity, NaN or the smallest normal
//     (0x7ff0..., 0x0010...: large constants); a pointer, as i64, against
//     another pointer (which is no integer) or null.
// Both hold of the value itself on every path: SSA values have one
// definition, and the use says what the operation needs of it.

// maxCountConst bounds the constants an ordering comparison makes its
// other operand an integer by: below the smallest normal float's bit
// pattern (0x00800000), far above trip counts and sizes in source.
const maxCountConst = 1 << 20

// addSubBack makes x an integer where r = x + y or x - y (or y - x when
// swapped) is an integer and y is one.
func (a *Analysis) addSubBack(r, x, y value.Value) {
	if _, vec := r.Type().(*types.VectorType); vec {
		return
	}
	size := irutil.StoreSize(r.Type())
	if a.get(r).ScalarAt(0, size) != Integer {
		return
	}
	if a.kind(y, size) == Integer && a.kind(x, size) == Unknown {
		a.add(x, integers(x.Type()))
	}
}

// compareOrder: a comparison of an integer-typed value with an integer,
// or an ordering one with a small constant, makes the value an integer.
func (a *Analysis) compareOrder(x *ir.InstICmp) {
	equality := x.Pred == enum.IPredEQ || x.Pred == enum.IPredNE
	it, ok := x.X.Type().(*types.IntType)
	if !ok || it.BitSize < 8 {
		return
	}
	size := irutil.StoreSize(it)
	for _, pair := range [][2]value.Value{{x.X, x.Y}, {x.Y, x.X}} {
		v, other := pair[0], pair[1]
		if _, isConst := unwrap(v).(constant.Constant); isConst {
			continue
		}
		if a.get(v).ScalarAt(0, size) != Unknown {
			continue
		}
		if k, ok := intConst(other); ok {
			if !equality && k != 0 && k != -1 && k > -maxCountConst && k < maxCountConst {
				a.add(v, integers(v.Type()))
			}
			continue
		}
		if _, isConst := unwrap(other).(constant.Constant); !isConst && a.get(other).ScalarAt(0, size) == Integer {
			a.add(v, integers(v.Type()))
		}
	}
}
