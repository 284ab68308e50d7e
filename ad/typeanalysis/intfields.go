package typeanalysis

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Integers at variable indices. An integer stored into one element of an
// array of structs (v[i].tag = 3, v[n].fp = w) says nothing of the
// others in general: the element may be a union's whose float it
// overwrites, and the integer joined with the floats stored at the other
// elements would leave a conflict that no longer says the floats' size.
// It holds at every element where two things agree: the source's own
// declaration says the byte is an integer field (a scalar integer inside
// a named struct of the object's type, clang's layout of a struct, not
// the storage SROA or a char buffer gives), and no float or conflict is
// known at the byte. A union whose integer member is the one its IR type
// names (union {int i; float f;}) can still get a conflict when the
// integer comes first; that is a stop, never a float taken for an
// integer.

// The spread runs as the analysis's last phase, when every float the
// other rules find is known (and blocks it); should a float still come
// where an integer spread, spreadConflicts tells, and the analysis is run
// again without the spread.

// spreadMark is a byte of the memory src points to an integer spread to.
type spreadMark struct {
	src value.Value
	m   int64
}

// spreadConflicts reports a spread byte that ended up holding part of a
// float or a conflict.
func (a *Analysis) spreadConflicts() bool {
	mem := map[value.Value][]Entry{}
	for s := range a.spread {
		es, ok := mem[s.src]
		if !ok {
			es = a.get(s.src).Data(0).Entries()
			mem[s.src] = es
		}
		for _, e := range es {
			if len(e.Path) != 1 || !(e.Type.IsFloat() || e.Type == Anything) {
				continue
			}
			if o := e.Path[0]; o == -1 || (s.m >= o && s.m < o+e.Type.Size()) {
				return true
			}
		}
	}
	return false
}

// intSpread tells, for a memory offset m of the memory src points to,
// whether an integer fact at m may be joined there from a variable index
// (see above); nil when none may.
func (a *Analysis) intSpread(src value.Value) func(m int64) bool {
	at, _, ok := objectSpan(src)
	if !ok {
		return nil
	}
	t := objectType(src)
	if t == nil {
		return nil
	}
	type span struct{ lo, hi int64 }
	var taken []span
	for _, e := range a.get(src).Data(0).Entries() {
		if len(e.Path) != 1 || !(e.Type.IsFloat() || e.Type == Anything) {
			continue
		}
		if e.Path[0] == -1 {
			return nil
		}
		taken = append(taken, span{e.Path[0], e.Path[0] + e.Type.Size()})
	}
	return func(m int64) bool {
		for _, s := range taken {
			if m >= s.lo && m < s.hi {
				return false
			}
		}
		return declaredInt(t, at+m, false)
	}
}

// objectType is the type of the alloca or global p points into.
func objectType(p value.Value) types.Type {
	base, _, _, ok := splitPointer(p)
	if !ok {
		return nil
	}
	if g, _, ok := globalBase(unwrap(base)); ok {
		base = g
	}
	switch b := base.(type) {
	case *ir.InstAlloca:
		if b.NElems != nil {
			n, ok := intConst(b.NElems)
			if !ok || n <= 0 {
				return nil
			}
			return types.NewArray(uint64(n), b.ElemType)
		}
		return b.ElemType
	case *ir.Global:
		return b.ContentType
	}
	return nil
}

// declaredInt reports that byte b of t lies in a scalar integer field of
// a named struct (inStruct: one encloses t already); arrays of i8 (char
// buffers, padding) do not count.
func declaredInt(t types.Type, b int64, inStruct bool) bool {
	if b < 0 || b >= irutil.AllocSize(t) {
		return false
	}
	switch t := t.(type) {
	case *types.IntType:
		return inStruct && b < irutil.StoreSize(t)
	case *types.ArrayType:
		if it, ok := t.ElemType.(*types.IntType); ok && it.BitSize == 8 {
			return false
		}
		size := irutil.AllocSize(t.ElemType)
		if size <= 0 {
			return false
		}
		return declaredInt(t.ElemType, b%size, inStruct)
	case *types.StructType:
		named := inStruct || isDeclaredStruct(t)
		for i := range t.Fields {
			d, ft := irutil.ElementOffset(t, int64(i))
			if ft != nil && b >= d && b < d+irutil.AllocSize(ft) {
				return declaredInt(ft, b-d, named)
			}
		}
	}
	return false
}

// isDeclaredStruct: clang names the types of the structs, classes and
// unions of the source %struct.X, %class.X, %union.X.
func isDeclaredStruct(t *types.StructType) bool {
	for _, p := range []string{"struct.", "class.", "union."} {
		if strings.HasPrefix(t.TypeName, p) {
			return true
		}
	}
	return false
}
