package ad

import (
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Exact-size record buffers: where a loop's buffer grows on entry to its
// nest (entrygrow.go) and the buffer is certainly empty there, the growth
// check becomes one allocation of the records the nest's counts allow (the
// records it writes, or more where a loop leaves early), with no capacity
// arithmetic and no realloc (a recursion's loop pays both once
// per call: det by minors, 260,650 calls).
//
// The buffer is empty on the edge into top when:
//   - top is in no loop: the CFG is reducible (irutil.NewCFG), so the edge
//     is taken at most once per call of the function, and the buffer's
//     slot still holds the null it was given on entry;
//   - the buffer is the loop's own (no sibling shares it, sharedrec.go);
//   - the gradient is a split pair's half: a combined gradient may take
//     over a buffer retained from its previous call (retain.go), which
//     then is not null.
//
// The count is the one growOnEntry computes (the counter plus the product
// of the nest's exact trip counts), so the proof that it covers every
// record is entryGrowth's; nothing here changes what is allocated, only
// that the allocation starts from nothing.

// freshOnEntry reports whether lc's buffer is null on the edge into top.
func (r *reverseGen) freshOnEntry(top *irutil.Loop, lc *loopCache) bool {
	return r.split && top.Parent == nil && lc.owner == nil && len(lc.sharers) == 0
}

// allocExact ends block cur with the allocation of lc's buffer for n
// records (none where n is 0) and goes on at next. An allocation that fails
// traps; a count beyond what an address space holds asks for SIZE_MAX
// bytes, which fails, as growRecords does.
func (r *reverseGen) allocExact(cur *ir.Block, lc *loopCache, n value.Value, next *ir.Block) {
	i64 := func(v int64) *constant.Int { return constant.NewInt(types.I64, v) }
	alloc, failed := r.g.NewBlock(""), r.g.NewBlock("")
	cur.NewCondBr(cur.NewICmp(enum.IPredNE, n, i64(0)), alloc, next)
	alloc.NewStore(n, lc.cap)
	huge := alloc.NewICmp(enum.IPredUGT, n, i64(1<<48))
	bytes := alloc.NewSelect(huge, i64(-1), alloc.NewMul(n, sizeOf(lc.rec)))
	p := alloc.NewCall(rules.Declare(r.m, "malloc", types.I8Ptr, types.I64), bytes)
	r.tapeMem = append(r.tapeMem, p)
	alloc.NewStore(alloc.NewBitCast(p, lc.slot.ElemType), lc.slot)
	got := r.g.NewBlock("")
	alloc.NewCondBr(alloc.NewICmp(enum.IPredEQ, p, constant.NewNull(types.I8Ptr)), failed, got)
	r.adviseRecords(got, p, bytes, next)
	failed.NewCall(rules.Declare(r.m, "llvm.trap", types.Void))
	failed.NewUnreachable()
}
