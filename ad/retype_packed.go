package ad

// Floats packed in a wider integer: clang copies a struct of two floats
// as an i64 (kiss_fft's complex, std::complex<float>, a float2), and the
// optimizer takes a lane out again with a trunc, after an lshr for the
// upper one. The integer's carrier is a float vector (carrierType); a
// trunc of one lane is that lane's extractelement.

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// packedLane matches trunc x to one float lane of an integer holding
// packed floats: x is trunc(src) (lane 0) or trunc(lshr(src, k*width))
// (lane k), its result holds that lane's float (FloatOf), and src's
// carrier is a vector of such floats. It returns src and the lane.
func (w *bodyRewrite) packedLane(x *ir.InstTrunc) (src value.Value, lane int64, ok bool) {
	if _, scalar := x.To.(*types.IntType); !scalar {
		return nil, 0, false
	}
	ft := w.rt.ta.FloatOf(x)
	if ft == nil {
		return nil, 0, false
	}
	src = irfacts.Unwrap(x.From)
	width := int64(irutil.StoreSize(ft))
	if sh, isShift := src.(*ir.InstLShr); isShift {
		n, isConst := intConstOf(sh.Y)
		if !isConst || n%(8*width) != 0 {
			return nil, 0, false
		}
		src, lane = irfacts.Unwrap(sh.X), n/(8*width)
	}
	t := w.rt.carrierType(src)
	vt, isVec := t.(*types.VectorType)
	if !isVec || !packedCarrier(src, t) || !types.Equal(vt.ElemType, ft) || lane >= int64(vt.Len) {
		return nil, 0, false
	}
	return src, lane, true
}

// extractLane makes trunc x the extractelement of its lane from the float
// vector carrying its source; the integer result is the float's bits.
func (w *bodyRewrite) extractLane(x *ir.InstTrunc, emit func(...ir.Instruction)) {
	src, lane, _ := w.packedLane(x)
	vec := w.asCarrier(src, w.rt.carrierType(src), emit)
	e := ir.NewExtractElement(vec, constant.NewInt(types.I64, lane))
	e.Metadata = x.Metadata
	emit(e)
	w.twin[x] = e
	w.back[x] = backCast(e, x.To)
	emit(w.back[x].(ir.Instruction))
	w.repl[x] = w.back[x]
	w.changed = true
}

// floatLaneMask is the shuffle of float lanes that shuffle sh of integer
// lanes is, where its result's carrier t is a vector of floats: the
// operands' length in floats and the mask. Integer lanes as wide as the
// floats keep the mask. Narrower ones (k to a float: pshufd's i32 lanes
// moving doubles, _mm_shuffle_epi32(x, 0x44)) must move whole floats:
// each group of k result lanes takes k consecutive source lanes starting
// at a multiple of k (lanes left undefined take any), and the float mask
// picks those floats. ok is false for a shuffle that splits a float.
func floatLaneMask(sh *ir.InstShuffleVector, t types.Type) (inLen uint64, mask value.Value, ok bool) {
	ct, isVec := t.(*types.VectorType)
	srcLen := sh.X.Type().(*types.VectorType).Len
	if !isVec || !packedCarrier(sh, t) {
		return srcLen, sh.Mask, isVec && ct.Len == sh.Typ.Len
	}
	if sh.Typ.Len%ct.Len != 0 {
		return 0, nil, false
	}
	k := int64(sh.Typ.Len / ct.Len)
	if srcLen%uint64(k) != 0 {
		return 0, nil, false
	}
	m, ok := irutil.ShuffleMask(sh)
	if !ok {
		return 0, nil, false
	}
	elems := make([]constant.Constant, ct.Len)
	for g := range elems {
		base := int64(-1)
		for j := int64(0); j < k; j++ {
			e := m[int64(g)*k+j]
			if e < 0 {
				continue
			}
			if e%k != j || (base >= 0 && e-j != base) {
				return 0, nil, false
			}
			base = e - j
		}
		if base < 0 {
			elems[g] = constant.NewUndef(types.I32)
		} else {
			elems[g] = constant.NewInt(types.I32, base/k)
		}
	}
	return srcLen / uint64(k), constant.NewVector(types.NewVector(ct.Len, types.I32), elems...), true
}
