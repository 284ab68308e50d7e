package typeanalysis

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// FloatOverlap is the size of the largest float wider than size bytes
// that a size-byte access through x may read part of (0 when none): the
// floats the memory x's source points to is known to hold, at offsets the
// access meets for some value of x's variable indices (x's constant
// offset plus multiples of the gcd of their strides). A 1-byte field at
// byte 24 of 32-byte elements whose doubles are at bytes 0, 8 and 16
// meets none. A float at every offset, a conflict (Anything) the access
// meets, or a getelementptr the offsets cannot be followed through counts
// as the largest float the memory holds anywhere.
func (a *Analysis) FloatOverlap(x *ir.InstGetElementPtr, size int64) int64 {
	big := a.LargestFloat(x.Src)
	if big <= size {
		return 0
	}
	var off, g int64
	if !walkGEP(x, func(d int64, v value.Value, s int64) {
		if v == nil {
			off += d
		} else {
			g = gcd(g, s)
		}
	}) {
		return big
	}
	n := int64(0)
	for _, e := range a.get(x.Src).Data(0).Entries() {
		if len(e.Path) != 1 {
			continue
		}
		o := e.Path[0]
		switch {
		case e.Type == Anything:
			if o == -1 || meets(off, g, size, o, 1) {
				return big
			}
		case e.Type.IsFloat() && e.Type.Size() > size:
			if (o == -1 || meets(off, g, size, o, e.Type.Size())) && e.Type.Size() > n {
				n = e.Type.Size()
			}
		}
	}
	return n
}

// meets reports whether the n bytes at off + j*g, for some integer j (only
// j = 0 when g is 0), overlap the s bytes at o.
func meets(off, g, n, o, s int64) bool {
	// Some start A in (o-n, o+s): the least A = off + j*g >= o-n+1.
	lo := o - n + 1
	if g == 0 {
		return off >= lo && off < o+s
	}
	first := off - floorDiv(off-lo, g)*g // in [lo, lo+g)
	return first < o+s
}
