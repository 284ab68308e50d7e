package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// x86 SIMD intrinsics that only move, add or compare floats, written as
// the plain IR they compute, bit for bit, before AD: the engine then
// differentiates shuffles, fadds and selects it knows. Clang emits them
// where code uses <immintrin.h> (cglm, HandmadeMath with SSE/AVX): at -O0
// always, at higher levels where an index vector is not a constant.
//   - vpermilvar (_mm_permutevar_ps, _mm256_permutevar_ps and the pd
//     forms) and avx2.permps (_mm256_permutevar8x32_ps): lane picks, a
//     shufflevector for constant indices, extract/insert for others;
//   - hadd/hsub (sse3, avx): a shuffle of the even and odd lanes, added;
//   - dpps/dppd (_mm_dp_ps, SSE4.1; _mm256_dp_ps): the masked products
//     summed in the instruction's order, in the lanes the mask names;
//   - min/max of whole vectors (sse, sse2, avx): select(a < b, a, b), the
//     instruction's own rule (b when either is NaN or both are zeros);
//   - packed double-to-float conversions (cvtpd2ps, avx cvt.pd2.ps):
//     fptrunc, rounding to nearest as the IR assumes.
// Other llvm.x86 intrinsics stay, and stop the link by name.

// lowerX86Vector rewrites the intrinsics above in f.
func lowerX86Vector(f *ir.Func) {
	repl := map[value.Value]value.Value{}
	for _, b := range f.Blocks {
		var out []ir.Instruction
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if ok && strings.HasPrefix(irfacts.CalleeName(c), "llvm.x86.") {
				emit := func(insts ...ir.Instruction) { out = append(out, insts...) }
				if r := lowerX86Call(c, emit); r != nil {
					repl[c] = r
					continue
				}
			}
			out = append(out, inst)
		}
		b.Insts = out
	}
	if len(repl) > 0 {
		remapFunc(f, func(v value.Value) value.Value {
			if n, ok := repl[v]; ok {
				return n
			}
			return v
		})
	}
}

// lowerX86Call emits the plain IR of intrinsic call c and returns its
// result, nil when c is not one lowerX86Vector knows.
func lowerX86Call(c *ir.InstCall, emit func(...ir.Instruction)) value.Value {
	name := irfacts.CalleeName(c)
	if r := lowerX86Convert(c, name, emit); r != nil {
		return r
	}
	vt, ok := c.Typ.(*types.VectorType)
	if !ok || len(c.Args) < 2 || !irfacts.IsFloat(vt.ElemType) {
		return nil
	}
	a, b := c.Args[0], c.Args[1]
	n := int(vt.Len)
	switch name {
	case "llvm.x86.sse41.dpps", "llvm.x86.sse41.dppd", "llvm.x86.avx.dp.ps.256":
		imm, ok := intConstOf(c.Args[2])
		if len(c.Args) != 3 || !ok {
			return nil
		}
		return dotProduct(a, b, vt, uint64(imm), emit)
	}
	if len(c.Args) != 2 {
		return nil
	}
	switch name {
	case "llvm.x86.avx.vpermilvar.ps", "llvm.x86.avx.vpermilvar.ps.256":
		// Within each 128-bit half: lane i takes a[half + idx[i]&3].
		return permute(a, b, n, func(i int) (int, uint64, uint64) { return i &^ 3, 3, 0 }, emit)
	case "llvm.x86.avx.vpermilvar.pd", "llvm.x86.avx.vpermilvar.pd.256":
		// Bit 1 of each 64-bit index picks the lane within its half.
		return permute(a, b, n, func(i int) (int, uint64, uint64) { return i &^ 1, 1, 1 }, emit)
	case "llvm.x86.avx2.permps":
		return permute(a, b, n, func(int) (int, uint64, uint64) { return 0, 7, 0 }, emit)
	case "llvm.x86.sse3.hadd.ps", "llvm.x86.sse3.hadd.pd", "llvm.x86.avx.hadd.ps.256", "llvm.x86.avx.hadd.pd.256",
		"llvm.x86.sse3.hsub.ps", "llvm.x86.sse3.hsub.pd", "llvm.x86.avx.hsub.ps.256", "llvm.x86.avx.hsub.pd.256":
		// Per 128-bit half of k lanes: a's pairs, then b's.
		k := 16 / int(irutil.StoreSize(vt.ElemType))
		var even, odd []constant.Constant
		for h := 0; h < n; h += k {
			for _, src := range []int{0, n} {
				for j := 0; j < k; j += 2 {
					even = append(even, constant.NewInt(types.I32, int64(src+h+j)))
					odd = append(odd, constant.NewInt(types.I32, int64(src+h+j+1)))
				}
			}
		}
		mt := types.NewVector(uint64(n), types.I32)
		e := ir.NewShuffleVector(a, b, constant.NewVector(mt, even...))
		o := ir.NewShuffleVector(a, b, constant.NewVector(mt, odd...))
		var r ir.Instruction
		if strings.Contains(name, "hadd") {
			r = ir.NewFAdd(e, o)
		} else {
			r = ir.NewFSub(e, o)
		}
		emit(e, o, r)
		return r.(value.Value)
	case "llvm.x86.sse.min.ps", "llvm.x86.sse2.min.pd", "llvm.x86.avx.min.ps.256", "llvm.x86.avx.min.pd.256":
		cmp := ir.NewFCmp(enum.FPredOLT, a, b)
		s := ir.NewSelect(cmp, a, b)
		emit(cmp, s)
		return s
	case "llvm.x86.sse.max.ps", "llvm.x86.sse2.max.pd", "llvm.x86.avx.max.ps.256", "llvm.x86.avx.max.pd.256":
		cmp := ir.NewFCmp(enum.FPredOGT, a, b)
		s := ir.NewSelect(cmp, a, b)
		emit(cmp, s)
		return s
	}
	return nil
}

// lowerX86Convert emits the packed double-to-float conversions
// (_mm256_cvtpd_ps, _mm_cvtpd_ps) as the fptrunc they are in the default
// floating-point environment (rounding to nearest, as the IR assumes
// everywhere), the SSE2 form's upper two lanes zero; nil for other calls.
func lowerX86Convert(c *ir.InstCall, name string, emit func(...ir.Instruction)) value.Value {
	if len(c.Args) != 1 {
		return nil
	}
	switch name {
	case "llvm.x86.avx.cvt.pd2.ps.256":
		t := ir.NewFPTrunc(c.Args[0], c.Typ)
		emit(t)
		return t
	case "llvm.x86.sse2.cvtpd2ps":
		t := ir.NewFPTrunc(c.Args[0], types.NewVector(2, types.Float))
		mt := types.NewVector(4, types.I32)
		idx := make([]constant.Constant, 4)
		for i := range idx {
			idx[i] = constant.NewInt(types.I32, int64(i))
		}
		s := ir.NewShuffleVector(t, constant.NewZeroInitializer(t.Type()), constant.NewVector(mt, idx...))
		emit(t, s)
		return s
	}
	return nil
}

// permute is the vector whose lane i is a's lane base(i) + (idx[i] >>
// shift) & mask: a shufflevector when the indices are constants, else
// lane by lane.
func permute(a, idx value.Value, n int, lane func(i int) (base int, mask, shift uint64), emit func(...ir.Instruction)) value.Value {
	budget := 64
	if l, ok := constLanes(idx, &budget); ok && len(l) == n {
		m := make([]constant.Constant, n)
		for i := range m {
			base, mask, shift := lane(i)
			m[i] = constant.NewInt(types.I32, int64(base)+int64((l[i]>>shift)&mask))
		}
		s := ir.NewShuffleVector(a, constant.NewUndef(a.Type()), constant.NewVector(types.NewVector(uint64(n), types.I32), m...))
		emit(s)
		return s
	}
	it := idx.Type().(*types.VectorType).ElemType.(*types.IntType)
	var r value.Value = constant.NewUndef(a.Type())
	for i := 0; i < n; i++ {
		base, mask, shift := lane(i)
		k := ir.NewExtractElement(idx, constant.NewInt(types.I32, int64(i)))
		emit(k)
		var j value.Value = k
		if shift > 0 {
			sh := ir.NewLShr(j, constant.NewInt(it, int64(shift)))
			emit(sh)
			j = sh
		}
		and := ir.NewAnd(j, constant.NewInt(it, int64(mask)))
		emit(and)
		j = and
		if base > 0 {
			add := ir.NewAdd(j, constant.NewInt(it, int64(base)))
			emit(add)
			j = add
		}
		e := ir.NewExtractElement(a, j)
		ins := ir.NewInsertElement(r, e, constant.NewInt(types.I32, int64(i)))
		emit(e, ins)
		r = ins
	}
	return r
}

// dotProduct is DPPS/DPPD with mask imm on each 128-bit half of a and b:
// the products of the lanes selected by imm's high bits (the others +0),
// summed pairwise ((t0+t1)+(t2+t3)), in the lanes imm's low bits select,
// +0 in the others.
func dotProduct(a, b value.Value, vt *types.VectorType, imm uint64, emit func(...ir.Instruction)) value.Value {
	ft := vt.ElemType.(*types.FloatType)
	zero := constant.NewFloat(ft, 0)
	k := 16 / int(irutil.StoreSize(ft))
	var r value.Value = constant.NewUndef(vt)
	for h := 0; h < int(vt.Len); h += k {
		terms := make([]value.Value, k)
		for i := 0; i < k; i++ {
			terms[i] = zero
			if imm&(1<<(4+uint(i))) == 0 {
				continue
			}
			idx := constant.NewInt(types.I32, int64(h+i))
			x, y := ir.NewExtractElement(a, idx), ir.NewExtractElement(b, idx)
			m := ir.NewFMul(x, y)
			emit(x, y, m)
			terms[i] = m
		}
		for len(terms) > 1 {
			var next []value.Value
			for i := 0; i < len(terms); i += 2 {
				s := ir.NewFAdd(terms[i], terms[i+1])
				emit(s)
				next = append(next, s)
			}
			terms = next
		}
		for i := 0; i < k; i++ {
			var e value.Value = zero
			if imm&(1<<uint(i)) != 0 {
				e = terms[0]
			}
			ins := ir.NewInsertElement(r, e, constant.NewInt(types.I32, int64(h+i)))
			emit(ins)
			r = ins
		}
	}
	return r
}
