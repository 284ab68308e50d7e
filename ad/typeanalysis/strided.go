package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// Variable indices into objects of known size. A getelementptr with a
// variable index into an alloca or global (an array of structs filled in
// a loop: v[i].tag, v[i].d) reaches one of finitely many elements; the
// facts about the element it points to hold at each of them, field by
// field, in the object. The rule for other variable indices keeps only
// the facts holding at every offset, which lose the fields of an element
// that is not one scalar (an int and a double at offsets 0 and 8 of every
// 16 bytes).

// maxPositions bounds the elements a variable index is expanded over.
const maxPositions = 64

// positions are the byte offsets, relative to src, that a getelementptr
// from src with constant offset off and variable indices whose strides
// have gcd g may point to, inside the object src points into: nil when
// that object or its size is not known, or there are too many.
func positions(src value.Value, off, g int64) []int64 {
	at, size, ok := objectSpan(src)
	if !ok || g <= 0 || size > MaxOffset {
		return nil
	}
	// at + off + j*g in [0, size) for integers j.
	first := floorDiv(-at-off, g)*g + off
	if first+at < 0 {
		first += g
	}
	var out []int64
	for d := first; at+d < size; d += g {
		if len(out) == maxPositions {
			return nil
		}
		out = append(out, d)
	}
	return out
}

// objectSpan: p points at byte at of an alloca or global of size bytes.
func objectSpan(p value.Value) (at, size int64, ok bool) {
	base, off, stride, ok := splitPointer(p)
	if !ok || stride != 0 {
		return 0, 0, false
	}
	if g, goff, ok := globalBase(unwrap(base)); ok {
		base, off = g, off+goff
	}
	switch b := base.(type) {
	case *ir.InstAlloca:
		n := int64(1)
		if b.NElems != nil {
			k, ok := intConst(b.NElems)
			if !ok {
				return 0, 0, false
			}
			n = k
		}
		size = n * irutil.AllocSize(b.ElemType)
	case *ir.Global:
		size = irutil.AllocSize(b.ContentType)
	default:
		return 0, 0, false
	}
	if size <= 0 || off < 0 || off >= size {
		return 0, 0, false
	}
	return off, size, true
}

// addAtPositions joins into src's tree the floats and pointers of the
// memory x points to, at each of the positions src + d. Not its integers:
// the element that integers were stored into may be one whose float they
// overwrite (a union's, a variant's), and an integer joined with the
// floats of the others would leave a conflict (Anything) that no longer
// says the floats' size.
func (a *Analysis) addAtPositions(x *ir.InstGetElementPtr, dstT *Tree, ds []int64) {
	a.down = a.down[:0]
	for _, d := range ds {
		a.down = dstT.appendShiftedPointee(a.down, d)
	}
	kept := a.down[:0]
	for _, f := range a.down {
		if f.k.len() > 2 || f.c.IsFloat() || f.c == Pointer {
			kept = append(kept, f)
		}
	}
	a.down = kept
	a.addFacts(x.Src, a.down)
}
