package ad

import (
	"fmt"
	"hash/fnv"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Bulk copies of memory that mixes floats, integers and pointers (structs
// such as {double *p; double w; int n;} and arrays of them): the typed
// pointers of the copy say what each byte holds, field by field (offsets
// come from getelementptr, so no data layout is needed). Float fields get
// adjoint accumulation in the reverse sweep; pointer fields copy their
// shadow pointer in the forward sweep; integer fields get nothing.

// leaf is one scalar field of a type: its getelementptr indices below the
// element and its type (a float, a vector of floats, or a pointer).
type leaf struct {
	path []value.Value
	typ  types.Type
}

// maxLeaves bounds the fields a copy is unrolled into.
const maxLeaves = 256

// layoutLeaves lists the float and pointer fields of t in order; ok is
// false when t has too many fields to unroll.
func layoutLeaves(t types.Type) (leaves []leaf, ok bool) {
	var walk func(t types.Type, path []value.Value) bool
	walk = func(t types.Type, path []value.Value) bool {
		if len(leaves) > maxLeaves {
			return false
		}
		switch x := t.(type) {
		case *types.FloatType, *types.PointerType:
			leaves = append(leaves, leaf{append([]value.Value(nil), path...), t})
		case *types.VectorType:
			if irfacts.IsFloat(x.ElemType) || types.IsPointer(x.ElemType) {
				leaves = append(leaves, leaf{append([]value.Value(nil), path...), t})
			}
		case *types.StructType:
			for i, f := range x.Fields {
				if !walk(f, append(path, constant.NewInt(types.I32, int64(i)))) {
					return false
				}
			}
		case *types.ArrayType:
			for i := uint64(0); i < x.Len; i++ {
				if !walk(x.ElemType, append(path, constant.NewInt(types.I64, int64(i)))) {
					return false
				}
			}
		}
		return true
	}
	ok = walk(t, nil)
	return leaves, ok && len(leaves) <= maxLeaves
}

// mixedLayout reports whether t is an aggregate whose fields mix floats
// with other data (the copies layout.go handles).
func mixedLayout(t types.Type) bool {
	switch t.(type) {
	case *types.StructType, *types.ArrayType:
		return floatElement(t) == nil && (irfacts.CarriesFloat(t) || irfacts.ContainsPointer(t))
	}
	return false
}

// layoutCopyHelper returns (creating once per module and type) a function
// over n bytes of elements of type t at dst and src:
//   - reverse: for every float field, src' += dst' (when src is not null)
//     and dst' = 0;
//   - forward: for every pointer field, dst' = src'.
//
// A byte count that ends inside an element covers that element's fields
// lying wholly before its end: C++ copies an object's data members, not its
// tail (a class of two pointers and an empty member is 24 bytes with
// padding, and its copy moves 16). A count that cuts a float or pointer
// field traps.
func (r *reverseGen) layoutCopyHelper(t types.Type, reverse bool) (*ir.Func, error) {
	h := fnv.New64a()
	h.Write([]byte(t.LLString()))
	kind := "ptrs"
	if reverse {
		kind = "adjoint"
	}
	name := fmt.Sprintf("__gozyme_memcpy_%s_%x", kind, h.Sum64())
	for _, f := range r.m.Funcs {
		if f.Name() == name {
			return f, nil
		}
	}
	leaves, ok := layoutLeaves(t)
	if !ok {
		return nil, fmt.Errorf("%s has more than %d fields", t, maxLeaves)
	}
	dst, src, n := ir.NewParam("dst", types.I8Ptr), ir.NewParam("src", types.I8Ptr), ir.NewParam("n", types.I64)
	f := r.m.NewFunc(name, types.Void, dst, src, n)
	f.Linkage = enum.LinkageInternal
	entry, loop, body, tail, done := f.NewBlock("entry"), f.NewBlock("loop"), f.NewBlock("body"), f.NewBlock("tail"), f.NewBlock("done")
	pt := types.NewPointer(t)
	d := entry.NewBitCast(dst, pt)
	s := entry.NewBitCast(src, pt)
	count := entry.NewUDiv(n, sizeOf(t))
	rem := entry.NewURem(n, sizeOf(t))
	hasSrc := entry.NewICmp(enum.IPredNE, src, constant.NewNull(types.I8Ptr))
	entry.NewBr(loop)
	// copyLeaf emits into blk the copy of leaf lf of element i.
	copyLeaf := func(blk *ir.Block, i value.Value, lf leaf) {
		idx := append([]value.Value{i}, lf.path...)
		dp := blk.NewGetElementPtr(t, d, idx...)
		sp := blk.NewGetElementPtr(t, s, idx...)
		switch {
		case reverse && irfacts.CarriesFloat(lf.typ):
			dv := blk.NewLoad(lf.typ, dp)
			blk.NewStore(rules.ZeroOf(lf.typ), dp)
			target := blk.NewSelect(hasSrc, sp, dp) // no source shadow: add into the cleared field
			if ft := floatElement(lf.typ); r.d.gpu && ft != nil && types.Equal(ft, lf.typ) {
				// Other threads may read the same source (gpuaccum.go).
				blk.NewAtomicRMW(enum.AtomicOpFAdd, target, blk.NewSelect(hasSrc, dv, rules.ZeroOf(lf.typ)), enum.AtomicOrderingMonotonic)
			} else {
				sum := blk.NewFAdd(blk.NewLoad(lf.typ, target), dv)
				blk.NewStore(blk.NewSelect(hasSrc, sum, rules.ZeroOf(lf.typ)), target)
			}
		case !reverse && !irfacts.CarriesFloat(lf.typ):
			blk.NewStore(blk.NewLoad(lf.typ, sp), dp)
		}
	}
	i := loop.NewPhi(ir.NewIncoming(constant.NewInt(types.I64, 0), entry))
	more := loop.NewICmp(enum.IPredULT, i, count)
	loop.NewCondBr(more, body, tail)
	for _, lf := range leaves {
		copyLeaf(body, i, lf)
	}
	next := body.NewAdd(i, constant.NewInt(types.I64, 1))
	i.Incs = append(i.Incs, ir.NewIncoming(next, body))
	body.NewBr(loop)
	// The element the count ends in, its first rem bytes: the fields
	// ending by rem are copied, a field cut by rem traps.
	var cut value.Value = constant.False
	for _, lf := range leaves {
		start, end := leafBytes(t, lf)
		cut = tail.NewOr(cut, tail.NewAnd(tail.NewICmp(enum.IPredULT, start, rem), tail.NewICmp(enum.IPredULT, rem, end)))
	}
	trap, cur := f.NewBlock("partial"), f.NewBlock("")
	tail.NewCondBr(cut, trap, cur)
	trap.NewCall(rules.Declare(r.m, "llvm.trap", types.Void))
	trap.NewUnreachable()
	for _, lf := range leaves {
		if (reverse && !irfacts.CarriesFloat(lf.typ)) || (!reverse && irfacts.CarriesFloat(lf.typ)) {
			continue
		}
		_, end := leafBytes(t, lf)
		do, after := f.NewBlock(""), f.NewBlock("")
		cur.NewCondBr(cur.NewICmp(enum.IPredULE, end, rem), do, after)
		copyLeaf(do, count, lf)
		do.NewBr(after)
		cur = after
	}
	cur.NewBr(done)
	done.NewRet(nil)
	return f, nil
}

// leafBytes returns the byte range of leaf lf within an element of type t,
// as constant expressions (getelementptr from null: no data layout needed).
func leafBytes(t types.Type, lf leaf) (start, end constant.Constant) {
	idx := []constant.Constant{constant.NewInt(types.I64, 0)}
	for _, v := range lf.path {
		idx = append(idx, v.(constant.Constant))
	}
	at := constant.NewGetElementPtr(t, constant.NewNull(types.NewPointer(t)), idx...)
	past := constant.NewGetElementPtr(lf.typ, at, constant.NewInt(types.I64, 1))
	return constant.NewPtrToInt(at, types.I64), constant.NewPtrToInt(past, types.I64)
}
