package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// FloatsOverwritten describes the floats that a store of size bytes
// through p overwrites, in the memory p points into: the window [lo, hi)
// relative to p that covers them all (lo <= 0, hi >= size; a store of an
// i32 over half a double widens to the whole double). found is false
// when no float is known there. exact is false when the places p may
// point to (a variable index) overlap floats differently, so that no one
// window covers the floats at each without reaching others, or when a
// float of a size the analysis lost may be there (a store of whole
// aligned doubles covers those).
//
// p is followed back through casts and getelementptrs to the pointer they
// start from, whose tree says what the object holds: the pointers between
// take the stored type from the store itself, and a variable index keeps
// only the facts true at every element (each element's, field by field,
// in an object of known size: strided.go). Where a variable index may
// reach bytes of which nothing is known (an array of structs on the heap),
// they may hold floats: the window is the bytes stored, which a float
// store there would write.
func (a *Analysis) FloatsOverwritten(p value.Value, size int64) (lo, hi int64, found, exact bool) {
	ff, ok := a.floatFacts(p)
	if !ok {
		return 0, 0, false, false
	}
	exact = true
	first := true
	ff.places(size, func(s int64) {
		l, h, hit, ok := ff.window(s, size)
		if !ok || (!first && (l != lo || h != hi)) {
			exact = false
		}
		if hit {
			found = true
		}
		if first || l < lo {
			lo = l
		}
		if first || h > hi {
			hi = h
		}
		first = false
	})
	return lo, hi, found, exact
}

// FloatTopOverwritten is the size of a float known in the memory p points
// into (0 when none) whose most significant byte, holding its sign and
// exponent, a store of size bytes through p may overwrite while leaving
// others of its bytes: the float it leaves is the old one's remaining
// bits scaled or signed anew (an ldexp writing the exponent, a sign bit
// cleared), a differentiable function of the old float that no integer
// store's derivative follows. A store over a float's low bytes only
// leaves it rounded: locally constant. [lo, hi), relative to p, covers
// such floats; same is false when they lie differently relative to p at
// the places p may point to (a variable index).
func (a *Analysis) FloatTopOverwritten(p value.Value, size int64) (big, lo, hi int64, same bool) {
	ff, ok := a.floatFacts(p)
	if !ok {
		return 0, 0, 0, false
	}
	same = true
	first := true
	ff.places(size, func(s int64) {
		l, h := int64(0), int64(0)
		partTop := func(at, n int64) {
			top := at + n - 1
			if s <= top && top < s+size && (at < s || at+n > s+size) {
				big = max(big, n)
				if l == h {
					l, h = at-s, at+n-s
				}
				l, h = min(l, at-s), max(h, at+n-s)
			}
		}
		for _, f := range ff.fixed {
			partTop(f.at, f.size)
		}
		if ff.repeat > 0 {
			for at := floorDiv(s, ff.repeat) * ff.repeat; at < s+size; at += ff.repeat {
				partTop(at, ff.repeat)
			}
		}
		if l == h {
			return
		}
		if !first && (l != lo || h != hi) {
			same = false
		}
		if first {
			lo, hi = l, h
		}
		lo, hi, first = min(lo, l), max(hi, h), false
	})
	return big, lo, hi, same
}

// AlignedWords is the window [lo, hi), relative to p, of the aligned
// 8-byte words a store of size bytes through p writes in part or whole,
// where its offset within a word is the same at every place p may point
// to (no variable index, or indices of multiples of 8 bytes), taking the
// object p points into as 8-aligned (as the whole-doubles window of
// FloatsOverwritten does). ok is false where that offset varies.
func AlignedWords(p value.Value, size int64) (lo, hi int64, ok bool) {
	_, off, stride, ok := splitPointer(p)
	if !ok || stride%8 != 0 {
		return 0, 0, false
	}
	m := off % 8
	if m < 0 {
		m += 8
	}
	return -m, (m+size+7)/8*8 - m, true
}

// ConstDelta is the byte offset of pointer q from pointer p where both are
// one pointer plus constant offsets (casts and getelementptrs of constant
// indices).
func ConstDelta(p, q value.Value) (int64, bool) {
	rp, op, ok1 := constRoot(p)
	rq, oq, ok2 := constRoot(q)
	if !ok1 || !ok2 || !sameComputation(rp, rq, 4) {
		return 0, false
	}
	return oq - op, true
}

// sameComputation reports whether a and b are one value, or instructions
// without side effects of the same kind and type computing it from the
// same operands, to depth levels (-O0 computes &a[k] anew at each use).
func sameComputation(a, b value.Value, depth int) bool {
	if a == b || irutil.SameValue(a, b) {
		return true
	}
	if depth == 0 || !a.Type().Equal(b.Type()) {
		return false
	}
	same := func(xs, ys []value.Value) bool {
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !sameComputation(xs[i], ys[i], depth-1) {
				return false
			}
		}
		return true
	}
	switch x := a.(type) {
	case *ir.InstGetElementPtr:
		y, ok := b.(*ir.InstGetElementPtr)
		return ok && x.ElemType.Equal(y.ElemType) && same(append([]value.Value{x.Src}, x.Indices...), append([]value.Value{y.Src}, y.Indices...))
	case *ir.InstBitCast:
		y, ok := b.(*ir.InstBitCast)
		return ok && same([]value.Value{x.From}, []value.Value{y.From})
	case *ir.InstSExt:
		y, ok := b.(*ir.InstSExt)
		return ok && same([]value.Value{x.From}, []value.Value{y.From})
	case *ir.InstZExt:
		y, ok := b.(*ir.InstZExt)
		return ok && same([]value.Value{x.From}, []value.Value{y.From})
	case *ir.InstTrunc:
		y, ok := b.(*ir.InstTrunc)
		return ok && same([]value.Value{x.From}, []value.Value{y.From})
	case *ir.InstAdd:
		y, ok := b.(*ir.InstAdd)
		return ok && same([]value.Value{x.X, x.Y}, []value.Value{y.X, y.Y})
	case *ir.InstMul:
		y, ok := b.(*ir.InstMul)
		return ok && same([]value.Value{x.X, x.Y}, []value.Value{y.X, y.Y})
	case *ir.InstShl:
		y, ok := b.(*ir.InstShl)
		return ok && same([]value.Value{x.X, x.Y}, []value.Value{y.X, y.Y})
	}
	return false
}

// constRoot follows p back through casts and getelementptrs of constant
// indices to the pointer they start from, and the bytes they add.
func constRoot(p value.Value) (value.Value, int64, bool) {
	off := int64(0)
	for {
		p = irutil.StripCasts(p)
		g, ok := p.(*ir.InstGetElementPtr)
		if !ok {
			return p, off, true
		}
		d, variable := int64(0), false
		if !walkGEP(g, func(k int64, v value.Value, _ int64) {
			if v != nil {
				variable = true
			}
			d += k
		}) {
			return nil, 0, false
		}
		if variable {
			return p, off, true
		}
		off += d
		p = g.Src
	}
}

// span is a float's place in an object: its offset and size.
type span struct{ at, size int64 }

// floatFacts is what the analysis knows of the floats in the object a
// pointer points into, for the questions about stores through it.
type floatFacts struct {
	base        value.Value
	off, stride int64 // the pointer is base+off plus multiples of stride
	fixed       []span
	vague       []span // Anything: floats and other data at the same bytes
	repeat      int64  // the size of floats at every aligned offset
	vagueAll    bool   // Anything at every offset
	everywhere  bool   // some fact at every offset
	known       map[int64]bool
	maxOff      int64 // the end of the last float or Anything
	maxKnown    int64 // the end of the last fact
}

// floatFacts gathers the facts of the object p points into.
func (a *Analysis) floatFacts(p value.Value) (*floatFacts, bool) {
	base, off, stride, ok := splitPointer(p)
	if !ok {
		return nil, false
	}
	ff := &floatFacts{base: base, off: off, stride: stride, known: map[int64]bool{}}
	for _, e := range a.get(base).Data(0).Entries() {
		if len(e.Path) != 1 {
			continue
		}
		n := e.Type.Size()
		if e.Path[0] == -1 {
			ff.everywhere = true
		} else {
			for b := e.Path[0]; b < e.Path[0]+n; b++ {
				ff.known[b] = true
			}
			ff.maxKnown = max(ff.maxKnown, e.Path[0]+n)
		}
		if !e.Type.IsFloat() && e.Type != Anything {
			continue
		}
		switch {
		case e.Path[0] == -1 && e.Type == Anything:
			ff.vagueAll = true
		case e.Path[0] == -1:
			ff.repeat = n
		case e.Type == Anything:
			ff.vague = append(ff.vague, span{e.Path[0], n})
		default:
			ff.fixed = append(ff.fixed, span{e.Path[0], n})
		}
		if e.Path[0] >= 0 && e.Path[0]+n > ff.maxOff {
			ff.maxOff = e.Path[0] + n
		}
	}
	return ff, true
}

// floatAt reports a float the analysis knows covering byte b.
func (ff *floatFacts) floatAt(b int64) bool {
	if ff.repeat > 0 {
		return true
	}
	for _, f := range ff.fixed {
		if f.at <= b && b < f.at+f.size {
			return true
		}
	}
	return false
}

// window is the float window of a store of size bytes at offset s.
// Where the analysis found floats and other data at the same bytes
// (Anything) and knows no float there, a float may be overwritten whose
// size it does not know: a store of whole aligned doubles covers any float
// it overlaps, others cannot be delimited. Anything within a float it
// knows is that float joined with the integers stored over it.
func (ff *floatFacts) window(s, size int64) (l, h int64, hit, ok bool) {
	l, h, ok = 0, size, true
	for _, f := range ff.fixed {
		if f.at < s+size && s < f.at+f.size {
			hit = true
			l, h = min(l, f.at-s), max(h, f.at+f.size-s)
		}
	}
	if ff.repeat > 0 {
		first := floorDiv(s, ff.repeat) * ff.repeat
		last := floorDiv(s+size-1, ff.repeat)*ff.repeat + ff.repeat
		hit = true
		l, h = min(l, first-s), max(h, last-s)
	}
	vg := ff.vagueAll
	for _, v := range ff.vague {
		vg = vg || (v.at < s+size && s < v.at+v.size && !ff.floatAt(v.at))
	}
	if vg {
		hit = true
		ok = size%8 == 0 && s%8 == 0
	}
	if ff.stride != 0 && !ff.everywhere {
		for b := s; b < s+size && !hit; b++ {
			hit = !ff.known[b] // nothing known: what a float store writes
		}
	}
	return l, h, hit, ok
}

// places calls visit with each offset a store of size bytes through the
// pointer may have in the object: its constant offset, or, with a
// variable index, each offset modulo the stride up to the last fact (and
// one past it, where nothing is known unless the object ends there).
func (ff *floatFacts) places(size int64, visit func(s int64)) {
	if ff.stride == 0 {
		visit(ff.off)
		return
	}
	stride := ff.stride
	if stride < 0 {
		stride = -stride
	}
	start := ff.off % stride
	if start < 0 {
		start += stride
	}
	limit := ff.maxOff
	if !ff.everywhere {
		limit = max(limit, ff.maxKnown+stride)
		if _, end, ok := objectSpan(ff.base); ok {
			limit = min(limit, end-size+1)
		}
	}
	for s := start; s < limit || s == start; s += stride {
		visit(s)
		if s > MaxOffset {
			break
		}
	}
}

// splitPointer follows p back through casts and getelementptrs to the
// pointer they start from: p is base plus off plus multiples of stride (0:
// no variable index; the gcd of the variable indices' strides).
func splitPointer(p value.Value) (base value.Value, off, stride int64, ok bool) {
	for {
		p = irutil.StripCasts(p)
		switch x := p.(type) {
		case *ir.InstGetElementPtr:
			ok := walkGEP(x, func(d int64, v value.Value, size int64) {
				if v == nil {
					off += d
				} else {
					stride = gcd(stride, size)
				}
			})
			if !ok {
				return nil, 0, 0, false
			}
			p = x.Src
		default:
			return p, off, stride, true
		}
	}
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
