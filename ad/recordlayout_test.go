package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// TestFieldAddrAfterLayout: a record requested as {i8, i32, double} is laid
// out {double, i32, i8}; addresses of its fields made before recordLayout
// are renumbered, and those made after it address the moved fields too
// (each index names a field of the accessed value's type).
func TestFieldAddrAfterLayout(t *testing.T) {
	elems := []types.Type{types.I8, types.I32, types.Double}
	lc := &loopCache{rec: types.NewStruct(), fields: map[value.Value]*loopBuf{}}
	var bufs []*loopBuf
	for i, e := range elems {
		b := &loopBuf{field: i, elem: e}
		lc.rec.Fields = append(lc.rec.Fields, e)
		lc.fields[ir.NewParam("", e)] = b
		bufs = append(bufs, b)
	}
	r := &reverseGen{}
	base := ir.NewParam("base", types.NewPointer(lc.rec))
	idx := constant.NewInt(types.I64, 3)
	check := func(when string, b *loopBuf, gep *ir.InstGetElementPtr) {
		t.Helper()
		k := gep.Indices[1].(*constant.Int).X.Int64()
		if got := lc.rec.Fields[k]; !got.Equal(b.elem) {
			t.Errorf("%s: the %s field is addressed at index %d, a %s in %s", when, b.elem, k, got, lc.rec)
		}
	}
	before := make([]*ir.InstGetElementPtr, len(bufs))
	for i, b := range bufs {
		before[i] = r.fieldAddr(lc, base, idx, b)
	}
	recordLayout(lc)
	if !lc.rec.Fields[0].Equal(types.Double) || !lc.rec.Fields[2].Equal(types.I8) {
		t.Fatalf("layout %s, want the double first and the i8 last", lc.rec)
	}
	for i, b := range bufs {
		check("made before layout", b, before[i])
		check("made after layout", b, r.fieldAddr(lc, base, idx, b))
	}
}

// TestSharedRecordLayout: owner o has an i8 field, its sharer n (as
// recordField joins them) an i32 and a double. After recordLayout(o), n's
// fields name their new indices, not only the owner's.
func TestSharedRecordLayout(t *testing.T) {
	o := &loopCache{rec: types.NewStruct(), fields: map[value.Value]*loopBuf{}}
	n := &loopCache{owner: o, rec: o.rec, fields: map[value.Value]*loopBuf{}}
	o.sharers = []*loopCache{n}
	add := func(lc *loopCache, e types.Type) *loopBuf {
		b := &loopBuf{field: len(o.rec.Fields), elem: e}
		o.rec.Fields = append(o.rec.Fields, e)
		lc.fields[ir.NewParam("", e)] = b
		return b
	}
	add(o, types.I8)
	bi := add(n, types.I32)
	bd := add(n, types.Double)
	r := &reverseGen{}
	base := ir.NewParam("base", types.NewPointer(o.rec))
	idx := constant.NewInt(types.I64, 3)
	recordLayout(o)
	recordLayout(n)
	for _, b := range []*loopBuf{bi, bd} {
		gep := r.fieldAddr(n, base, idx, b)
		k := gep.Indices[1].(*constant.Int).X.Int64()
		if got := o.rec.Fields[k]; !got.Equal(b.elem) {
			t.Errorf("non-owner's %s field addressed after layout at %d, a %s in %s", b.elem, k, got, o.rec)
		}
	}
}
