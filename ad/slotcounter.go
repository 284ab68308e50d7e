package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Counters in memory. A loop's reverse keeps its iteration counter in a
// slot (reverse.go, loopCache.counter): the reverse of the header tests
// the counter, loaded, against the count at the loop's entry (a value or
// another slot's load), and the edge back into the reverse of the latch
// stores the counter less one. versionLoop picks a reverse loop's version
// by the counter's value at the loop's entry less that bound, both read
// in the preheader: a load of an alloca never traps, and a value read
// there that is off only picks the other version.

// slotCounter reports whether counter, an operand of l's exit test, is a
// load in l of an i64 alloca that l stores only that alloca's load less one
// into; and bound, the test's other operand, a value from outside l
// (returned as is) or a load in l of an alloca l does not store into
// (returned as boundSlot).
func slotCounter(f *ir.Func, l *irutil.Loop, counter, bound value.Value, defined map[value.Value]bool) (slot *ir.InstAlloca, b value.Value, boundSlot *ir.InstAlloca, ok bool) {
	ld, isLoad := counter.(*ir.InstLoad)
	if !isLoad || !defined[ld] || !types.Equal(ld.Type(), types.I64) {
		return nil, nil, nil, false
	}
	slot, isAlloca := ld.Src.(*ir.InstAlloca)
	if !isAlloca {
		return nil, nil, nil, false
	}
	if !defined[bound] {
		if _, isInt := bound.Type().(*types.IntType); !isInt {
			return nil, nil, nil, false
		}
		b = bound
	} else {
		bl, isLoad := bound.(*ir.InstLoad)
		if !isLoad {
			return nil, nil, nil, false
		}
		bs, isAlloca := bl.Src.(*ir.InstAlloca)
		if !isAlloca || bs == slot || !types.Equal(bl.Type(), types.I64) {
			return nil, nil, nil, false
		}
		boundSlot = bs
	}
	steps := 0
	for _, blk := range f.Blocks {
		if !l.Contains(blk) {
			continue
		}
		for _, inst := range blk.Insts {
			st, isStore := inst.(*ir.InstStore)
			if !isStore {
				continue
			}
			switch st.Dst {
			case value.Value(boundSlot):
				return nil, nil, nil, false
			case value.Value(slot):
				if !decrementOf(st.Src, slot) {
					return nil, nil, nil, false
				}
				steps++
			}
		}
	}
	if steps == 0 {
		return nil, nil, nil, false
	}
	return slot, b, boundSlot, true
}

// decrementOf reports whether v is a load of slot less one.
func decrementOf(v value.Value, slot *ir.InstAlloca) bool {
	var x value.Value
	switch d := v.(type) {
	case *ir.InstSub:
		if k, ok := intConstOf(d.Y); !ok || k != 1 {
			return false
		}
		x = d.X
	case *ir.InstAdd:
		if k, ok := intConstOf(d.Y); !ok || k != -1 {
			return false
		}
		x = d.X
	default:
		return false
	}
	ld, ok := x.(*ir.InstLoad)
	return ok && ld.Src == value.Value(slot)
}

// slotCount reads, at the end of s's preheader, the counter's slot and the
// bound (its slot where it has one), and returns their difference with the
// instructions made.
func slotCount(s loopShape) (value.Value, []ir.Instruction) {
	start := ir.NewLoad(types.I64, s.slot)
	made := []ir.Instruction{start}
	bound := s.bound
	if s.boundSlot != nil {
		b := ir.NewLoad(types.I64, s.boundSlot)
		made = append(made, b)
		bound = b
	}
	if !types.Equal(bound.Type(), types.I64) {
		return start, made
	}
	sub := ir.NewSub(start, bound)
	count := ir.NewAdd(sub, constant.NewInt(types.I64, 1))
	return count, append(made, sub, count)
}

// carriesFloatSum reports whether l may carry a floating-point sum from
// one iteration to the next through a slot: an alloca of a floating-point
// type that l loads and that a block of l leaves holding a computed value
// (a store of a non-constant, no constant stored after it in the block).
// The vectorizer does not reorder such a sum (no fast-math): a reverse loop
// adding into the adjoint of a value from outside it stays scalar, and its
// two versions would cost the count test for nothing.
func carriesFloatSum(f *ir.Func, l *irutil.Loop) bool {
	loaded := map[*ir.InstAlloca]bool{}
	left := map[*ir.InstAlloca]bool{}
	for _, b := range f.Blocks {
		if !l.Contains(b) {
			continue
		}
		last := map[*ir.InstAlloca]bool{}
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				if a, ok := x.Src.(*ir.InstAlloca); ok && types.IsFloat(a.ElemType) {
					loaded[a] = true
				}
			case *ir.InstStore:
				if a, ok := x.Dst.(*ir.InstAlloca); ok && types.IsFloat(a.ElemType) {
					_, isConst := x.Src.(constant.Constant)
					last[a] = !isConst
				}
			}
		}
		for a, computed := range last {
			if computed {
				left[a] = true
			}
		}
	}
	for a := range left {
		if loaded[a] {
			return true
		}
	}
	return false
}
