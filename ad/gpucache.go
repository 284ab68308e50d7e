package ad

import (
	"fmt"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Caches on a GPU. Values the reverse sweep needs outside loops stay SSA
// values (registers, or local memory where they spill). A loop's iteration
// records (record.go) go to one array on the thread's stack (local
// memory), sized on entry to the gradient by the loop nest's trip counts,
// which must be constants: a per-thread heap buffer, grown as the loop
// runs (the CPU's way), would cost a device malloc per thread and launch,
// orders of magnitude slower (Enzyme, SC'21). A loop whose iteration count
// is known only at run time and whose values must be cached is an error
// naming the loop. The growth check stays as a check: should a loop run
// more iterations than its trip count said, the kernel traps rather than
// write past the array.

// maxCacheBytes is the most local memory a gradient caches per thread
// (CUDA allows 512 KiB of local memory per thread).
const maxCacheBytes = 512 << 10

// finishLoopsGPU is finishLoops for GPU code.
func (r *reverseGen) finishLoopsGPU() error {
	for _, l := range r.cfg.Loops {
		recordLayout(r.loops[l])
	}
	var total int64
	sizes := map[*loopCache]int64{}
	for _, l := range r.cfg.Loops {
		lc := r.loops[l]
		if lc.rec == nil {
			continue
		}
		n, err := r.staticRecords(l)
		if err != nil {
			return err
		}
		owner := lc
		if lc.owner != nil {
			owner = lc.owner
		}
		if n > sizes[owner] {
			sizes[owner] = n
		}
		cur, tail := r.fwdHead[l.Header], r.fwdTail[l.Header]
		cur.Term = nil
		trap := r.g.NewBlock("")
		cur.NewCondBr(cur.NewICmp(enum.IPredUGE, lc.fwdIdx, constant.NewInt(types.I64, n)), trap, tail)
		trap.NewCall(rules.Declare(r.m, "llvm.trap", types.Void))
		trap.NewUnreachable()
	}
	for _, l := range r.cfg.Loops {
		lc := r.loops[l]
		n := sizes[lc]
		if lc.rec == nil || lc.owner != nil || n == 0 {
			continue
		}
		size, align, ok := abiLayout(lc.rec)
		if !ok {
			size, align = 8*int64(len(lc.rec.Fields)), 8
		}
		total += n * size
		arr := ir.NewAlloca(types.NewArray(uint64(n), lc.rec))
		arr.Align = ir.Align(max64(align, 8))
		base := ir.NewBitCast(arr, lc.slot.ElemType)
		r.allocas.Insts = append(r.allocas.Insts, arr, base, ir.NewStore(base, lc.slot))
	}
	if total > maxCacheBytes {
		return errorAt(r.f, nil, "the gradient caches %d bytes per thread, more than the %d bytes of local memory a GPU thread has", total, maxCacheBytes)
	}
	r.cacheBytes = total
	return nil
}

// staticRecords returns how many iteration records loop l fills in one
// call: the product of the constant trip counts of l and of every loop
// around it (the outermost loop is entered once per call).
func (r *reverseGen) staticRecords(l *irutil.Loop) (int64, error) {
	top, chain := r.nestChain(l, nil, false)
	unknown := func() (int64, error) {
		if n := r.d.gpuLoopRecords; n > 0 {
			return n, nil // the capacity the user gave, checked as the loop runs
		}
		return 0, errorAt(r.f, loopLoc(l), "the gradient must cache values of this loop for every iteration, and on a GPU caches are per-thread arrays sized when the gradient starts, but the loop's iteration count (or an enclosing loop's) is not a compile-time constant: give the loop a constant trip count, make what it overwrites recomputable, or set GOZYME_GPU_LOOP_RECORDS=N to cache up to N iterations per thread (the kernel traps beyond)")
	}
	if top.Parent != nil || len(chain) == 0 {
		return unknown()
	}
	if _, ok := r.analyzeTripCount(l); !ok {
		return unknown()
	}
	n := int64(1)
	scratch := &ir.Block{}
	for _, f := range chain {
		if !f.tc.Every {
			return unknown()
		}
		c, ok := evalInt(emitFactor(scratch, f, func(v value.Value) value.Value { return irfacts.Unwrap(v) }, false))
		if !ok || c < 0 {
			return unknown()
		}
		if c == 0 {
			c = 1
		}
		if n > maxCacheBytes/c {
			return 0, fmt.Errorf("%s: the loop runs too many iterations to cache per thread", irutil.FuncLoc(r.f))
		}
		n *= c
	}
	return n, nil
}

// loopLoc is an instruction of loop l's header with a source location, for
// messages (or nil).
func loopLoc(l *irutil.Loop) interface{} {
	for _, inst := range l.Header.Insts {
		if irutil.DebugLoc(inst) != "" {
			return inst
		}
	}
	if irutil.DebugLoc(l.Header.Term) != "" {
		return l.Header.Term
	}
	return nil
}

// evalInt evaluates integer arithmetic on constants (as cacheplan.CountHeader emits
// it) to a 64-bit value.
func evalInt(v value.Value) (int64, bool) {
	v = irfacts.Unwrap(v)
	bin := func(x, y value.Value, op func(a, b int64) (int64, bool)) (int64, bool) {
		a, ok1 := evalInt(x)
		b, ok2 := evalInt(y)
		if !ok1 || !ok2 {
			return 0, false
		}
		return op(a, b)
	}
	switch x := v.(type) {
	case *constant.Int:
		if !x.X.IsInt64() {
			return 0, false
		}
		if x.Typ.BitSize == 1 {
			return x.X.Int64() & 1, true
		}
		return x.X.Int64(), true
	case *ir.InstAdd:
		return bin(x.X, x.Y, func(a, b int64) (int64, bool) { return a + b, true })
	case *ir.InstSub:
		return bin(x.X, x.Y, func(a, b int64) (int64, bool) { return a - b, true })
	case *ir.InstMul:
		return bin(x.X, x.Y, func(a, b int64) (int64, bool) { return a * b, true })
	case *ir.InstSDiv:
		return bin(x.X, x.Y, func(a, b int64) (int64, bool) { return a / b, b != 0 })
	case *ir.InstSExt:
		return evalInt(x.From)
	case *ir.InstZExt:
		a, ok := evalInt(x.From)
		if it, isInt := x.From.Type().(*types.IntType); ok && isInt && it.BitSize < 64 {
			a &= (1 << it.BitSize) - 1
		}
		return a, ok
	case *ir.InstTrunc:
		return evalInt(x.From)
	case *ir.InstSelect:
		c, ok := evalInt(x.Cond)
		if !ok {
			return 0, false
		}
		if c != 0 {
			return evalInt(x.ValueTrue)
		}
		return evalInt(x.ValueFalse)
	case *ir.InstICmp:
		return bin(x.X, x.Y, func(a, b int64) (int64, bool) {
			var r bool
			switch x.Pred {
			case enum.IPredEQ:
				r = a == b
			case enum.IPredNE:
				r = a != b
			case enum.IPredSLT:
				r = a < b
			case enum.IPredSLE:
				r = a <= b
			case enum.IPredSGT:
				r = a > b
			case enum.IPredSGE:
				r = a >= b
			case enum.IPredULT:
				r = uint64(a) < uint64(b)
			case enum.IPredULE:
				r = uint64(a) <= uint64(b)
			case enum.IPredUGT:
				r = uint64(a) > uint64(b)
			case enum.IPredUGE:
				r = uint64(a) >= uint64(b)
			default:
				return 0, false
			}
			if r {
				return 1, true
			}
			return 0, true
		})
	}
	return 0, false
}
