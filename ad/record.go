package ad

import (
	"sort"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Iteration records: a loop caches the values of one iteration in one
// record, a struct with a field per cached value, and keeps one growable
// buffer of records indexed by the iteration. One buffer per loop instead
// of one per value: the loop's growth check reallocates once, and the
// gradient carries one buffer pointer per loop through the loop nest
// (the optimizer after AD turns each into a phi in every loop around it;
// one per value made dozens, spilled around the small loops of a nest).
// The forward sweep writes a field where its value is defined and the
// reverse reads it on the same path, so fields of blocks an iteration did
// not run stay unwritten and unread, as elements of separate buffers did.
//
// Fields are added while the reverse sweep is generated (each first
// lookup of a cached value), so the struct type grows in place; once all
// are known, recordLayout orders them by alignment, largest first, which
// leaves padding only at the record's end.

// loopBuf is one field of a loop's iteration record.
type loopBuf struct {
	field int        // index in the record (renumbered by recordLayout)
	elem  types.Type // the cached value's type
}

// recordField returns the field of loop cache lc caching forward value fv
// (defined in primal block def), creating it with its forward store, at
// slot idx (a forward value of def's loop header), on first use.
func (r *reverseGen) recordField(lc *loopCache, fv value.Value, def *ir.Block, idx value.Value) *loopBuf {
	if b, ok := lc.fields[fv]; ok {
		return b
	}
	b := r.recordSlot(lc, fv, fv.Type())
	// Forward: rec[idx].field = fv, before the defining block's terminator.
	tail := r.fwdTail[def]
	base := ir.NewLoad(lc.slot.ElemType, lc.slot)
	gep := r.fieldAddr(lc, base, idx, b)
	st := ir.NewStore(fv, gep)
	r.markCacheAccess(st)
	tail.Insts = append(tail.Insts, base, gep, st)
	return b
}

// recordSlot returns the field of loop cache lc's record that key names,
// adding one of type t on first use (creating the record and its buffer's
// slot with the first field); the caller writes it.
func (r *reverseGen) recordSlot(lc *loopCache, key value.Value, t types.Type) *loopBuf {
	if b, ok := lc.fields[key]; ok {
		return b
	}
	if lc.rec == nil {
		if o := r.recordOwner(lc); o != nil {
			// Its fields join o's record, in o's buffer (sharedrec.go).
			lc.owner, lc.rec, lc.slot, lc.cap = o, o.rec, o.slot, o.cap
			o.sharers = append(o.sharers, lc)
		} else {
			lc.rec = types.NewStruct()
			pt := types.NewPointer(lc.rec)
			lc.slot = r.newCacheSlot(pt, constant.NewNull(pt))
			r.frees = append(r.frees, lc.slot)
		}
		lc.fields = map[value.Value]*loopBuf{}
	}
	b := &loopBuf{field: len(lc.rec.Fields), elem: t}
	lc.rec.Fields = append(lc.rec.Fields, t)
	lc.fields[key] = b
	return b
}

// fieldAddr returns a getelementptr (not inserted) to field b of record
// idx of the buffer at base, recorded for recordLayout.
func (r *reverseGen) fieldAddr(lc *loopCache, base, idx value.Value, b *loopBuf) *ir.InstGetElementPtr {
	gep := ir.NewGetElementPtr(lc.rec, base, idx, constant.NewInt(types.I32, int64(b.field)))
	gep.Typ = types.NewPointer(b.elem) // fixed, whatever index recordLayout gives the field
	if lc.owner != nil {
		lc = lc.owner // its recordLayout renumbers the shared record
	}
	lc.geps = append(lc.geps, gep)
	return gep
}

// readField emits into blk the load of field b of record idx.
func (r *reverseGen) readField(blk *ir.Block, lc *loopCache, b *loopBuf, idx value.Value) value.Value {
	base := blk.NewLoad(lc.slot.ElemType, lc.slot)
	gep := r.fieldAddr(lc, base, idx, b)
	blk.Insts = append(blk.Insts, gep)
	ld := blk.NewLoad(b.elem, gep)
	r.markCacheAccess(ld)
	return ld
}

// recordLayout fixes the field order of lc's record: by alignment, then
// size, largest first (stable), renumbering the field accesses made so far
// and the fields themselves, its sharers' too (for accesses made after).
func recordLayout(lc *loopCache) {
	if lc.rec == nil || lc.owner != nil {
		return // no record, or its owner's
	}
	n := len(lc.rec.Fields)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	layout := func(t types.Type) (int64, int64) {
		s, a, ok := abiLayout(t)
		if !ok {
			return 8, 8
		}
		return s, a
	}
	sort.SliceStable(order, func(i, j int) bool {
		si, ai := layout(lc.rec.Fields[order[i]])
		sj, aj := layout(lc.rec.Fields[order[j]])
		if ai != aj {
			return ai > aj
		}
		return si > sj
	})
	newIndex := make([]int64, n)
	fields := make([]types.Type, n)
	for k, old := range order {
		newIndex[old] = int64(k)
		fields[k] = lc.rec.Fields[old]
	}
	lc.rec.Fields = fields
	for _, c := range append([]*loopCache{lc}, lc.sharers...) {
		for _, b := range c.fields {
			b.field = int(newIndex[b.field]) // later accesses address the new index
		}
	}
	for _, gep := range lc.geps {
		old := gep.Indices[1].(*constant.Int).X.Int64()
		gep.Indices[1] = constant.NewInt(types.I32, newIndex[old])
	}
	lc.geps = nil
}
