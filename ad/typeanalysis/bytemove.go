package typeanalysis

// Integer operations that move bytes: trunc, and shifts by whole bytes.
// Compilers split a float vector's bits this way (a <4 x float> loaded as
// <2 x i64>, each lane's high float taken with lshr 32 and trunc), so the
// bytes keep their facts, both ways, instead of becoming integers: the
// floats there stay floats, for the retype or the checks to see.

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// laneBytes is the byte size and count of an integer or integer vector's
// elements (0, 0 for others or sizes not a whole number of bytes).
func laneBytes(t types.Type) (size, lanes int64) { return intLanes(t) }

// truncBytes: each lane of r is the low bytes of x's lane.
func (a *Analysis) truncBytes(r, x value.Value) bool {
	rs, rl := laneBytes(r.Type())
	xs, xl := laneBytes(x.Type())
	if rs == 0 || xs == 0 || rl != xl {
		return false
	}
	a.moveLanes(r, x, rl, rs, xs, 0)
	return true
}

// shiftBytes: lshr (right) or shl by a constant whole number of bytes
// moves x's bytes within each lane; the bytes shifted in are zeros.
func (a *Analysis) shiftBytes(r, x, by value.Value, right bool) bool {
	size, lanes := laneBytes(r.Type())
	k, ok := constShift(by)
	if size == 0 || !ok || k%8 != 0 || k/8 >= size || k < 0 {
		return false
	}
	k /= 8
	xt, rt := a.get(x), a.get(r)
	for j := int64(0); j < lanes; j++ {
		base := j * size
		if right {
			// r's bytes [base, base+size-k) are x's [base+k, base+size).
			a.add(r, xt.Window(base+k, size-k).Place(base, size-k))
			a.add(x, rt.Window(base, size-k).Place(base+k, size-k))
		} else {
			a.add(r, xt.Window(base, size-k).Place(base+k, size-k))
			a.add(x, rt.Window(base+k, size-k).Place(base, size-k))
		}
	}
	a.add(by, integers(by.Type()))
	return true
}

// moveLanes joins, for each of n lanes, x's bytes [j*xs+off, +rs) into
// r's lane j and back.
func (a *Analysis) moveLanes(r, x value.Value, n, rs, xs, off int64) {
	xt, rt := a.get(x), a.get(r)
	for j := int64(0); j < n; j++ {
		a.add(r, xt.Window(j*xs+off, rs).Place(j*rs, rs))
		a.add(x, rt.Window(j*rs, rs).Place(j*xs+off, rs))
	}
}

// constShift is a shift amount that is a constant (a splat for vectors).
func constShift(v value.Value) (int64, bool) {
	switch c := unwrap(v).(type) {
	case *constant.Int:
		if c.X.IsInt64() {
			return c.X.Int64(), true
		}
	case *constant.Vector:
		if len(c.Elems) == 0 {
			return 0, false
		}
		k, ok := constShift(c.Elems[0])
		for _, e := range c.Elems[1:] {
			if k2, ok2 := constShift(e); !ok2 || k2 != k {
				return 0, false
			}
		}
		return k, ok
	}
	return 0, false
}
