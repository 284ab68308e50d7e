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
// window covers the floats at each without reaching others.
//
// p is followed back through casts and getelementptrs to the pointer they
// start from, whose tree says what the object holds: the pointers between
// take the stored type from the store itself, and a variable index keeps
// only the facts true at every element.
func (a *Analysis) FloatsOverwritten(p value.Value, size int64) (lo, hi int64, found, exact bool) {
	base, off, stride, ok := splitPointer(p)
	if !ok {
		return 0, 0, false, false
	}
	type span struct{ at, size int64 }
	var fixed, vague []span
	repeat := int64(0) // the size of floats at every aligned offset
	vagueAll := false  // Anything at every offset
	maxOff := int64(0)
	for _, e := range a.get(base).Data(0).Entries() {
		if len(e.Path) != 1 || (!e.Type.IsFloat() && e.Type != Anything) {
			continue
		}
		n := int64(1)
		if e.Type.IsFloat() {
			n = e.Type.Size()
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
	// window is the float window at offset s. Where the analysis found
	// floats and other data at the same bytes (Anything), a float may be
	// overwritten whose size it does not know: a store of whole aligned
	// doubles covers any float it overlaps, others cannot be delimited.
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
			vg = vg || (v.at < s+size && s < v.at+v.size)
		}
		if vg {
			hit = true
			ok = size%8 == 0 && s%8 == 0
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
	for s := start; s < maxOff || first; s += stride {
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
