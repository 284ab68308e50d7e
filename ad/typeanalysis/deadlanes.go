package typeanalysis

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// Lanes of a vector load no user reads. LLVM widens loads of neighbouring
// fields into one vector load and drops the lanes it does not need (a
// <2 x double> load of a struct's double and the int after it, whose
// second lane an insertelement replaces at once). The load's IR type
// would make the dropped lane's bytes a double in memory: a false fact,
// which makes an int stored there look like an integer over part of a
// float. A lane no user reads says nothing about its bytes, so its
// certain facts go.

// dropUnreadLanes removes the certain facts of the lanes of f's vector
// loads that no user reads (after index has recorded f's users).
func (a *Analysis) dropUnreadLanes(f *ir.Func) {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			ld, ok := inst.(*ir.InstLoad)
			if !ok {
				continue
			}
			vt, ok := ld.ElemType.(*types.VectorType)
			if !ok {
				continue
			}
			read := a.readLanes(ld, int(vt.Len))
			if read == nil {
				continue
			}
			t, pins := NewTree(), map[key]bool{}
			size := irutil.StoreSize(vt.ElemType)
			for _, e := range certain(vt).Entries() {
				if len(e.Path) == 0 || e.Path[0] < 0 || !read[e.Path[0]/size] {
					continue
				}
				t.Insert(e.Type, e.Path...)
				pins[encode(e.Path)] = true
			}
			a.trees[ld] = t
			a.pinned[ld] = pins
		}
	}
}

// readLanes is the set of ld's lanes (of n) its users read, or nil where
// some user may read them all.
func (a *Analysis) readLanes(ld *ir.InstLoad, n int) map[int64]bool {
	read := map[int64]bool{}
	for _, u := range a.users[ld] {
		switch x := u.(type) {
		case *ir.InstExtractElement:
			i, ok := intConst(x.Index)
			if !ok {
				return nil
			}
			read[i] = true
		case *ir.InstInsertElement:
			if unwrap(x.Elem) == ld {
				return nil
			}
			i, ok := intConst(x.Index)
			if !ok {
				return nil
			}
			// The result keeps every lane but i (its users may read them).
			for l := int64(0); l < int64(n); l++ {
				if l != i {
					read[l] = true
				}
			}
		case *ir.InstShuffleVector:
			mask, ok := shuffleMask(x)
			if !ok {
				return nil
			}
			for _, m := range mask {
				switch {
				case m < 0:
				case unwrap(x.X) == ld && m < int64(n):
					read[m] = true
				case unwrap(x.Y) == ld && m >= int64(n):
					read[m-int64(n)] = true
				}
			}
		default:
			return nil
		}
	}
	if len(read) == n {
		return nil
	}
	return read
}

// shuffleMask is x's constant mask (irutil.ShuffleMask); ok is false for
// an undef or poison mask too, of which the rules read no lanes.
func shuffleMask(x *ir.InstShuffleVector) ([]int64, bool) {
	switch x.Mask.(type) {
	case *constant.Undef, *constant.Poison:
		return nil, false
	}
	return irutil.ShuffleMask(x)
}
