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
	base, off, stride, ok := splitPointer(p)
	if !ok {
		return 0, 0, false, false
	}
	type span struct{ at, size int64 }
	var fixed, vague []span
	repeat := int64(0)  // the size of floats at every aligned offset
	vagueAll := false   // Anything at every offset
	everywhere := false // some fact at every offset
	known := map[int64]bool{}
	maxOff, maxKnown := int64(0), int64(0)
	for _, e := range a.get(base).Data(0).Entries() {
		if len(e.Path) != 1 {
			continue
		}
		n := e.Type.Size()
		if e.Path[0] == -1 {
			everywhere = true
		} else {
			for b := e.Path[0]; b < e.Path[0]+n; b++ {
				known[b] = true
			}
			maxKnown = max(maxKnown, e.Path[0]+n)
		}
		if !e.Type.IsFloat() && e.Type != Anything {
			continue
		}
		switch {
		case e.Path[0] == -1 && e.Type == Anything:
			vagueAll = true
		case e.Path[0] == -1:
			repeat = n
		case e.Type == Anything:
			vague = append(vague, span{e.Path[0], n})
		default:
			fixed = append(fixed, span{e.Path[0], n})
		}
		if e.Path[0] >= 0 && e.Path[0]+n > maxOff {
			maxOff = e.Path[0] + n
		}
	}
	// floatAt reports a float the analysis knows covering byte b.
	floatAt := func(b int64) bool {
		if repeat > 0 {
			return true
		}
		for _, f := range fixed {
			if f.at <= b && b < f.at+f.size {
				return true
			}
		}
		return false
	}
	// window is the float window at offset s. Where the analysis found
	// floats and other data at the same bytes (Anything) and knows no
	// float there, a float may be overwritten whose size it does not know:
	// a store of whole aligned doubles covers any float it overlaps,
	// others cannot be delimited. Anything within a float it knows is that
	// float joined with the integers stored over it.
	window := func(s int64) (l, h int64, hit, ok bool) {
		l, h, ok = 0, size, true
		for _, f := range fixed {
			if f.at < s+size && s < f.at+f.size {
				hit = true
				l, h = min(l, f.at-s), max(h, f.at+f.size-s)
			}
		}
		if repeat > 0 {
			first := floorDiv(s, repeat) * repeat
			last := floorDiv(s+size-1, repeat)*repeat + repeat
			hit = true
			l, h = min(l, first-s), max(h, last-s)
		}
		vg := vagueAll
		for _, v := range vague {
			vg = vg || (v.at < s+size && s < v.at+v.size && !floatAt(v.at))
		}
		if vg {
			hit = true
			ok = size%8 == 0 && s%8 == 0
		}
		if stride != 0 && !everywhere {
			for b := s; b < s+size && !hit; b++ {
				hit = !known[b] // nothing known: what a float store writes
			}
		}
		return l, h, hit, ok
	}
	if stride == 0 {
		lo, hi, found, exact = window(off)
		return lo, hi, found, exact
	}
	if stride < 0 {
		stride = -stride
	}
	exact = true
	first := true
	start := off % stride
	if start < 0 {
		start += stride
	}
	limit := maxOff
	if !everywhere {
		// Every place with facts, and one past them (where nothing is known
		// unless the object ends there).
		limit = max(limit, maxKnown+stride)
		if _, end, ok := objectSpan(base); ok {
			limit = min(limit, end-size+1)
		}
	}
	for s := start; s < limit || first; s += stride {
		l, h, hit, ok := window(s)
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
		if s > MaxOffset {
			break
		}
	}
	return lo, hi, found, exact
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
