package irutil

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
)

// ShuffleMask is x's constant mask, one entry per result lane: the lane
// index it picks (across both operands), -1 for an undefined lane (every
// lane of an undef or poison mask); ok is false for a mask of another form.
func ShuffleMask(x *ir.InstShuffleVector) (mask []int64, ok bool) {
	out := make([]int64, x.Typ.Len)
	switch m := x.Mask.(type) {
	case *constant.Vector:
		for i, e := range m.Elems {
			c, ok := e.(*constant.Int)
			if !ok {
				out[i] = -1
				continue
			}
			out[i] = c.X.Int64()
		}
	case *constant.ZeroInitializer:
	case *constant.Undef, *constant.Poison:
		for i := range out {
			out[i] = -1
		}
	default:
		return nil, false
	}
	return out, true
}
