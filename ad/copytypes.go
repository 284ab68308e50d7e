package ad

// What bulk copies (memcpy, memmove) move, for the engine's copy rules
// (memory.go, layout.go): what the copy's typed pointers point to, else
// what the type analysis found at either end, else the TBAA heuristics of
// tbaa.go.

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/typeanalysis"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// analyzedCopy is what the type analysis says the bytes of a bulk copy
// (memcpy, memmove) hold, as the engine's copy rules take it: nil when
// they hold neither floats nor pointers, a float type or i8* when they are
// all of it (for a variable length, when the memory is an array of it),
// else a packed struct of the floats, pointers and byte runs in order.
// known is false when the analysis did not cover the copy or left a byte
// unknown or in conflict.
func (d *differ) analyzedCopy(x *ir.InstCall) (t types.Type, known bool) {
	rt := d.bits
	if rt == nil || len(x.Args) < 3 {
		return nil, false
	}
	n, constant := intConstOf(x.Args[2])
	for _, p := range x.Args[:2] {
		if !rt.ta.Known(p) {
			continue
		}
		if !constant {
			switch c := rt.ta.Repeating(p); {
			case c == typeanalysis.Integer:
				return nil, true
			case c == typeanalysis.Pointer:
				return types.I8Ptr, true
			case c.IsFloat() && c != typeanalysis.X86FP80:
				return c.FloatType(), true
			}
			continue
		}
		fields, complete := rt.ta.Layout(p, n)
		if !complete || hasLongDouble(fields) {
			continue
		}
		return layoutType(fields, n), true
	}
	return nil, false
}

// layoutType is the type of n bytes holding fields (floats and pointers at
// their offsets, integers between): nil for none, the one float type or
// i8* when they fill the bytes alone, else a packed struct with byte
// arrays for the integers.
func layoutType(fields []typeanalysis.Field, n int64) types.Type {
	if len(fields) == 0 {
		return nil
	}
	uniform := true
	for i, f := range fields {
		if f.Type != fields[0].Type || f.Offset != int64(i)*f.Type.Size() || f.Type == typeanalysis.X86FP80 {
			uniform = false
		}
	}
	scalar := func(c typeanalysis.Concrete) types.Type {
		if c == typeanalysis.Pointer {
			return types.I8Ptr
		}
		return c.FloatType()
	}
	if uniform && int64(len(fields))*fields[0].Type.Size() == n {
		return scalar(fields[0].Type)
	}
	var elems []types.Type
	cur := int64(0)
	for _, f := range fields {
		if f.Offset > cur {
			elems = append(elems, types.NewArray(uint64(f.Offset-cur), types.I8))
		}
		elems = append(elems, scalar(f.Type))
		cur = f.Offset + irutil.StoreSize(scalar(f.Type))
	}
	if cur < n {
		elems = append(elems, types.NewArray(uint64(n-cur), types.I8))
	}
	st := types.NewStruct(elems...)
	st.Packed = true
	return st
}

// hasLongDouble reports an x86_fp80 field (10 bytes of data in 16 of
// memory: not laid out by layoutType).
func hasLongDouble(fields []typeanalysis.Field) bool {
	for _, f := range fields {
		if f.Type == typeanalysis.X86FP80 {
			return true
		}
	}
	return false
}

// copyLayout is the element type of a bulk copy: what its typed pointers
// point to, else what the type analysis found, else its !tbaa.struct.
// A pointee of integers only is no proof: memory declared as integers may
// hold a float's bytes (`int t; memcpy(&t, &f, 4)` swapping floats at
// -O0); where the type analysis covered the copy, what it found wins.
func (d *differ) copyLayout(x *ir.InstCall) types.Type {
	if !irfacts.IsMemTransfer(x) || len(x.Args) < 3 {
		return nil
	}
	// Pointers whose IR types disagree on holding floats: one of them is
	// a pass's guess (a copy into a std::map node through a pointer typed
	// as the node's links). A local variable typed as holding floats says
	// what it holds; otherwise neither type is taken.
	t0, t1 := copyPointee(x, 0), copyPointee(x, 1)
	typed := func(t types.Type) bool { return t != nil && !types.Equal(t, types.I8) }
	var ints types.Type // an integer pointee
	if typed(t0) && typed(t1) && irfacts.CarriesFloat(t0) != irfacts.CarriesFloat(t1) {
		for i, t := range []types.Type{t0, t1} {
			if a, ok := irutil.StripCasts(x.Args[i]).(*ir.InstAlloca); ok && types.Equal(t, a.ElemType) && irfacts.CarriesFloat(t) {
				return t
			}
		}
	} else {
		for _, t := range []types.Type{t0, t1} {
			if !typed(t) {
				continue
			}
			if irfacts.CarriesFloat(t) || irfacts.ContainsPointer(t) {
				return t
			}
			if ints == nil {
				ints = t
			}
		}
	}
	if t, known := d.analyzedCopy(x); known {
		return t
	}
	if ints != nil {
		return ints
	}
	return tbaaStructLayout(x)
}

// untypedCopy is what the bytes of a copy between untyped (i8*) pointers
// hold: by the type analysis where it knows (i64 for integers), else by
// the copy's TBAA tag or the casts of its pointers (tbaa.go).
func (d *differ) untypedCopy(f *ir.Func, x *ir.InstCall) types.Type {
	if t, known := d.analyzedCopy(x); known {
		if t == nil {
			return types.I64
		}
		if _, mixed := t.(*types.StructType); mixed {
			return nil
		}
		return t
	}
	return untypedCopy(f, x)
}

// untypedPointers reports a copy of untyped bytes that are pointers (their
// shadows are copied with them).
func (d *differ) untypedPointers(f *ir.Func, x *ir.InstCall) bool {
	t := copyPointee(x, 1)
	return (t == nil || types.Equal(t, types.I8)) && types.IsPointer(d.untypedCopy(f, x))
}

// copyPointee is what argument i of bulk copy x points to, as the copy's
// rules may take it: pointee, except i8 (untyped bytes) for a type of
// integers only (no float, no pointer) that the copy may run past: a
// variable length, or a constant one not a multiple of its size. C code
// keeps a header of counts with its data after it in one allocation (a
// spline's degree and sizes, then its control points) and copies the
// whole block, or the data through &header[1], by a byte count, through
// the header's struct type or an int *: that type says nothing of the
// bytes after it, and taking them as integers silently dropped the
// derivatives they carry. The untyped copy asks the type analysis what
// the bytes hold (an int array's copy stays an integer copy).
func copyPointee(x *ir.InstCall, i int) types.Type {
	t := pointee(x.Args[i])
	if t == nil || len(x.Args) < 3 || irfacts.CarriesFloat(t) || irfacts.ContainsPointer(t) {
		return t
	}
	size := irutil.StoreSize(t)
	if n, constant := intConstOf(x.Args[2]); constant && size > 0 && n%size == 0 {
		return t
	}
	return types.I8
}
