package typeanalysis

// Aggregates and vectors in registers: their elements at the byte offsets
// of the data layout.

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

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
		if f := k.first(); f < off+n && f+c.Size() > off {
			continue
		}
		out.m[k] = c
	}
	return out
}

// aggregateOffset is the byte offset and type of an extractvalue or
// insertvalue's element.
func aggregateOffset(t types.Type, indices []uint64) (int64, types.Type) {
	off := int64(0)
	for _, i := range indices {
		d, et := irutil.ElementOffset(t, int64(i))
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
	s := irutil.StoreSize(vt.ElemType)
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
	s := irutil.StoreSize(vt.ElemType)
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
	s := irutil.StoreSize(xt.ElemType)
	mask, ok := shuffleMask(x)
	if !ok {
		return
	}
	for i, k := range mask {
		if k < 0 {
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
