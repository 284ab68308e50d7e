package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Huge pages for tapes: a tape of megabytes is written once by the forward
// and read back once by the reverse, a stream through memory in which,
// on 4 KiB pages, every 4 KiB is a TLB miss; under a hypervisor each miss
// is a two-dimensional page walk (a 2-core KVM guest: 30 MB written and
// read back in 8.3 ms on 4 KiB pages, 3.3 ms on 2 MiB pages). On Linux,
// where transparent huge pages are on for regions that ask (the default
// "madvise" setting), gozyme asks for them:
//
//   - the tape stack's chunks of 2 MiB and more are 2 MiB-aligned and
//     advised when made (tapestack.go);
//   - a loop's record buffer of 2 MiB or more from malloc or realloc
//     (growRecords, allocExact) is advised over the 2 MiB-aligned pages
//     inside it, by __gozyme_tape_advise, once per growth. Pages not yet
//     touched then come as huge pages; a combined gradient keeps its
//     buffer from one call to the next (retain.go), so later calls find
//     them mapped.
//
// The advice changes no byte of memory: __gozyme_tape_advise is listed
// with the library functions no derivative flows through, for a derivative
// differentiated again.

const (
	tapeAdviseName = "__gozyme_tape_advise"
	tapeHugePage   = 2 << 20
	madvHugePage   = 14 // MADV_HUGEPAGE in Linux's generic numbering
)

// hugePageAdvice reports whether gozyme advises tapes as huge pages on
// target triple t: Linux on the architectures whose MADV_HUGEPAGE is the
// generic 14.
func hugePageAdvice(t string) bool {
	if !strings.Contains(t, "-linux") {
		return false
	}
	for _, arch := range []string{"x86_64", "aarch64", "riscv64"} {
		if strings.HasPrefix(t, arch) {
			return true
		}
	}
	return false
}

// tapeAdvise defines (once per module) __gozyme_tape_advise(i8* p, i64 n):
// madvise(MADV_HUGEPAGE) over the 2 MiB-aligned pages in [p, p+n).
func (d *differ) tapeAdvise() *ir.Func {
	for _, f := range d.m.Funcs {
		if f.Name() == tapeAdviseName {
			return f
		}
	}
	i8p := types.I8Ptr
	i64 := func(n int64) *constant.Int { return constant.NewInt(types.I64, n) }
	f := d.m.NewFunc(tapeAdviseName, types.Void, ir.NewParam("p", i8p), ir.NewParam("n", types.I64))
	f.Linkage = enum.LinkageInternal
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoInline)
	p, n := f.Params[0], f.Params[1]
	entry, advise, done := f.NewBlock(""), f.NewBlock(""), f.NewBlock("")
	lo := entry.NewPtrToInt(p, types.I64)
	from := entry.NewAnd(entry.NewAdd(lo, i64(tapeHugePage-1)), i64(-tapeHugePage))
	to := entry.NewAnd(entry.NewAdd(lo, n), i64(-tapeHugePage))
	entry.NewCondBr(entry.NewICmp(enum.IPredUGT, to, from), advise, done)
	madvise := rules.Declare(d.m, "madvise", types.I32, i8p, types.I64, types.I32)
	advise.NewCall(madvise, advise.NewIntToPtr(from, i8p), advise.NewSub(to, from), constant.NewInt(types.I32, madvHugePage))
	advise.NewBr(done)
	done.NewRet(nil)
	return f
}

// adviseRecords ends block cur, where p (non-null) holds a record buffer of
// bytes bytes, with the advice when bytes is 2 MiB or more, and goes on at
// next.
func (r *reverseGen) adviseRecords(cur *ir.Block, p, bytes value.Value, next *ir.Block) {
	if r.d.gpu || !hugePageAdvice(r.m.TargetTriple) {
		cur.NewBr(next)
		return
	}
	advise := r.g.NewBlock("")
	cur.NewCondBr(cur.NewICmp(enum.IPredUGE, bytes, constant.NewInt(types.I64, tapeHugePage)), advise, next)
	advise.NewCall(r.d.tapeAdvise(), p, bytes)
	advise.NewBr(next)
}
