package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// TestSharedRecordLayout: owner o has an i8 field, its sharer n (as
// recordField joins them) an i32 and a double. After recordLayout(o), n's
// fields name their new indices (found by the final review: only the
// owner's were renumbered).
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
