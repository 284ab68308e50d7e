package typeanalysis

import (
	"sort"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
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
// memory x points to, at each of the positions src + d, and its integers
// only where spreadable keeps them.
//
// What the memory holds at every position holds for x's too: a read
// through x reads one of them (v[i].fp where each element's fp is an
// integer).
func (a *Analysis) addAtPositions(x *ir.InstGetElementPtr, srcT, dstT *Tree, ds []int64) {
	a.addFacts(x, everyPosition(srcT, ds))
	a.down = a.down[:0]
	for _, d := range ds {
		a.down = dstT.appendShiftedPointee(a.down, d)
	}
	a.down = a.spreadable(x, a.down)
	a.addFacts(x.Src, a.down)
}

// fieldArrayWindow bounds a getelementptr whose one variable index steps
// through an array that is a struct's field, not its last (struct layer {
// double w[16]; int n; }: l.w[i], Fortran's l%w(i)): the source languages
// keep such an index inside the array, so x points at most elements - 1
// strides past lo bytes from its source, never into the fields after the
// array. A trailing array (a C flexible member declared [1]) may be
// indexed past its length and gets no bound; neither does more than one
// variable index.
func fieldArrayWindow(x *ir.InstGetElementPtr) (lo, stride, elems int64, ok bool) {
	t := x.ElemType
	var off int64
	found, stepped := false, false
	for i, ix := range x.Indices {
		k, isConst := intConst(ix)
		if i == 0 {
			if !isConst {
				return 0, 0, 0, false
			}
			off += k * irutil.AllocSize(x.ElemType)
			continue
		}
		switch tt := t.(type) {
		case *types.StructType:
			if !isConst {
				return 0, 0, 0, false
			}
			d, nt := irutil.ElementOffset(tt, k)
			if nt == nil {
				return 0, 0, 0, false
			}
			if at, ok := nt.(*types.ArrayType); ok && !found && i+1 < len(x.Indices) && int(k)+1 < len(tt.Fields) {
				if _, c := intConst(x.Indices[i+1]); !c && at.Len > 0 {
					lo, stride, elems, found = off+d, irutil.AllocSize(at.ElemType), int64(at.Len), true
				}
			}
			off += d
			t = nt
		case *types.ArrayType:
			size := irutil.AllocSize(tt.ElemType)
			if isConst {
				off += k * size
			} else if !found || stepped || off != lo {
				return 0, 0, 0, false // a variable index the window does not describe
			} else {
				stepped = true
			}
			t = tt.ElemType
		default:
			return 0, 0, 0, false
		}
	}
	if !found {
		return 0, 0, 0, false
	}
	// Constant offsets after the variable index shift every element alike.
	return off, stride, elems, true
}

// inWindow keeps the positions ds (offsets from the source) that the
// bounded index reaches: lo + j*stride for j in [0, elems).
func inWindow(ds []int64, lo, stride, elems int64) []int64 {
	var out []int64
	for _, d := range ds {
		if d >= lo && d < lo+elems*stride && (d-lo)%stride == 0 {
			out = append(out, d)
		}
	}
	return out
}

// boundedGEP relates x and its source for an index fieldArrayWindow
// bounds: the facts of x's element (stride bytes, what holds at every
// offset of x repeated over it) hold at each position ds it reaches, and
// nothing of x reaches the source's other fields; the source's facts
// holding at every offset (up) hold for x, and so does x's element
// repeated (a pointer into the array).
func (a *Analysis) boundedGEP(x *ir.InstGetElementPtr, srcT, dstT, up *Tree, ds []int64, stride int64) {
	a.addFacts(x, everyPosition(srcT, ds))
	rep := a.elementRep(dstT, stride, ds == nil)
	elem := dstT.pointeeWindow(stride).placedUnder(stride)
	a.down = a.down[:0]
	for _, d := range ds {
		a.down = elem.appendShiftedPointee(a.down, d)
	}
	a.down = a.spreadable(x, a.down)
	a.addFacts(x.Src, a.down)
	a.add(x, up)
	if rep != nil {
		a.add(x, rep)
	}
}

// spreadable keeps of fs, facts about the memory x's source points to
// joined from x's variable index, those every element may get: floats, pointers, what
// memory they point to holds, and integers where intSpread allows
// (intfields.go).
func (a *Analysis) spreadable(x *ir.InstGetElementPtr, fs []fact) []fact {
	src := x.Src
	var ok func(int64) bool
	kept := fs[:0]
	for i, f := range fs {
		if f.k.len() > 2 || f.c.IsFloat() || f.c == Pointer {
			kept = append(kept, f)
			continue
		}
		if f.c != Integer || f.k.len() != 2 || f.k>>level1&offMask == 0 {
			continue
		}
		if !a.spreadInts {
			if !a.toSpread1[x] {
				a.toSpread1[x] = true
				a.toSpread = append(a.toSpread, x)
			}
			continue
		}
		if ok == nil {
			if ok = a.intSpread(src); ok == nil {
				ok = func(int64) bool { return false }
			}
		}
		if m := int64(f.k>>level1&offMask) - 1; ok(m) {
			kept = append(kept, fs[i])
			a.spread[spreadMark{unwrap(src), m}] = true
		}
	}
	return kept
}

// everyPosition is the facts of the memory src's tree (srcT) says it
// points to that hold, alike, at each of the positions ds, as facts of
// the memory a pointer to one of them points to.
func everyPosition(srcT *Tree, ds []int64) []fact {
	if len(ds) == 0 {
		return nil
	}
	count := map[fact]int{}
	var buf []fact
	for _, d := range ds {
		buf = srcT.appendShiftedPointee(buf[:0], -d)
		for _, f := range buf {
			count[f]++
		}
	}
	var out []fact
	for f, n := range count {
		if n == len(ds) {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	return out
}
