package ad

import (
	"math"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// constLanes is the bits of each element of v (an integer or float
// scalar or vector) when v is a constant, or is computed from constants
// by insertelement, shufflevector and bitcasts between vectors of the same
// lane width: unoptimized SSE code builds its sign masks that way
// (_mm_set_epi32 of -0.f's bits, cast to a float vector and shuffled).
// budget bounds the instructions followed, all paths together.
func constLanes(v value.Value, budget *int) ([]uint64, bool) {
	switch k := irfacts.Unwrap(v).(type) {
	case *constant.Int:
		u := k.X.Uint64()
		if k.X.Sign() < 0 {
			u = uint64(k.X.Int64())
		}
		return []uint64{u}, true
	case *constant.Float:
		if k.NaN {
			return nil, false
		}
		f, _ := k.X.Float64()
		switch k.Typ.Kind {
		case types.FloatKindFloat:
			return []uint64{uint64(math.Float32bits(float32(f)))}, true
		case types.FloatKindDouble:
			return []uint64{math.Float64bits(f)}, true
		}
		return nil, false
	case *constant.ZeroInitializer:
		n := uint64(1)
		if vt, ok := k.Typ.(*types.VectorType); ok {
			n = vt.Len
		}
		return make([]uint64, n), true
	case *constant.Vector:
		out := make([]uint64, 0, len(k.Elems))
		for _, e := range k.Elems {
			l, ok := constLanes(e, budget)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	case ir.Instruction:
		if *budget--; *budget < 0 {
			return nil, false
		}
		return instLanes(k, budget)
	}
	return nil, false
}

// instLanes is constLanes of an instruction.
func instLanes(inst ir.Instruction, budget *int) ([]uint64, bool) {
	switch k := inst.(type) {
	case *ir.InstInsertElement:
		vec, ok := constLanes(k.X, budget)
		if !ok {
			return nil, false
		}
		e, ok := constLanes(k.Elem, budget)
		idx, iok := intConstOf(k.Index)
		if !ok || !iok || len(e) != 1 || idx < 0 || idx >= int64(len(vec)) {
			return nil, false
		}
		out := append([]uint64(nil), vec...)
		out[idx] = e[0]
		return out, true
	case *ir.InstShuffleVector:
		x, ok := constLanes(k.X, budget)
		if !ok {
			return nil, false
		}
		y, ok := constLanes(k.Y, budget)
		if !ok {
			return nil, false
		}
		mask, ok := constLanes(k.Mask, budget)
		if !ok {
			return nil, false
		}
		out := make([]uint64, len(mask))
		for i, m := range mask {
			switch {
			case m < uint64(len(x)):
				out[i] = x[m]
			case m < uint64(len(x)+len(y)):
				out[i] = y[m-uint64(len(x))]
			default:
				return nil, false // undefined lanes
			}
		}
		return out, true
	case *ir.InstXor, *ir.InstAnd, *ir.InstOr:
		// _mm_andnot_ps's complement of a mask.
		ops := inst.(interface{ Operands() []*value.Value }).Operands()
		x, ok := constLanes(*ops[0], budget)
		if !ok {
			return nil, false
		}
		y, ok := constLanes(*ops[1], budget)
		if !ok || len(x) != len(y) {
			return nil, false
		}
		out := make([]uint64, len(x))
		for i := range x {
			switch inst.(type) {
			case *ir.InstXor:
				out[i] = x[i] ^ y[i]
			case *ir.InstAnd:
				out[i] = x[i] & y[i]
			default:
				out[i] = x[i] | y[i]
			}
		}
		return out, true
	case *ir.InstBitCast:
		from, to := laneBits(k.From.Type()), laneBits(k.To)
		if from == 0 || to == 0 {
			return nil, false
		}
		l, ok := constLanes(k.From, budget)
		if !ok {
			return nil, false
		}
		return repackLanes(l, from, to)
	}
	return nil, false
}

// repackLanes is lanes of from bits each as lanes of to bits (32 or 64),
// little-endian, as a bitcast between vectors reads them.
func repackLanes(l []uint64, from, to uint64) ([]uint64, bool) {
	switch {
	case from == to:
		return l, true
	case from == 32 && to == 64 && len(l)%2 == 0:
		out := make([]uint64, len(l)/2)
		for i := range out {
			out[i] = l[2*i]&0xffffffff | l[2*i+1]<<32
		}
		return out, true
	case from == 64 && to == 32:
		out := make([]uint64, 0, 2*len(l))
		for _, u := range l {
			out = append(out, u&0xffffffff, u>>32)
		}
		return out, true
	}
	return nil, false
}

// laneBits is the width of an integer or float scalar's or vector's
// elements (0 for other types).
func laneBits(t types.Type) uint64 {
	if vt, ok := t.(*types.VectorType); ok {
		t = vt.ElemType
	}
	switch e := t.(type) {
	case *types.IntType:
		return e.BitSize
	case *types.FloatType:
		switch e.Kind {
		case types.FloatKindFloat:
			return 32
		case types.FloatKindDouble:
			return 64
		}
	}
	return 0
}
