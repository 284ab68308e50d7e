package typeanalysis

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Tree is the tree of v (a copy), empty for values the analysis did not
// reach.
func (a *Analysis) Tree(v value.Value) *Tree { return a.get(v).Clone() }

// Known reports whether the analysis covered v (a value of an analyzed
// function, or a constant).
func (a *Analysis) Known(v value.Value) bool {
	v = unwrap(v)
	if a.tracked(v) {
		return true
	}
	_, isInst := v.(ir.Instruction)
	_, isParam := v.(*ir.Param)
	return !isInst && !isParam
}

// Same gives v, a value made after the analysis, the facts of like (which
// holds the same bits): the integer a retyped signature reads a float or
// pointer parameter back as stands for the parameter it replaces.
func (a *Analysis) Same(v, like value.Value) {
	like = unwrap(like)
	if t, ok := a.trees[like]; ok {
		a.trees[unwrap(v)] = t.Clone()
		a.pinned[unwrap(v)] = a.pinned[like]
	}
}

// Return is the return tree of an analyzed function (a copy).
func (a *Analysis) Return(f *ir.Func) *Tree { return a.rets[f].Clone() }

// FloatOf is the float type that v, of integer or integer-vector type,
// holds exactly: one float of the integer's (element's) width per element
// (i64 holding a double, <2 x i64> holding two, i32 holding a float). Nil
// otherwise: not known to be floats, or mixing floats with other data.
func (a *Analysis) FloatOf(v value.Value) *types.FloatType {
	size, lanes := intLanes(v.Type())
	if size == 0 {
		return nil
	}
	t := a.get(v)
	var found Concrete
	for k := int64(0); k < lanes; k++ {
		c := t.ScalarAt(k*size, size)
		if !c.IsFloat() || (found != Unknown && c != found) {
			return nil
		}
		found = c
	}
	return found.FloatType()
}

// PackedFloats is the float type and count of the floats that v holds
// side by side in every one of its bytes, when they are not its lanes: a
// scalar integer holding narrower floats (an i64 copying a struct of two
// floats, an i128 two doubles or four floats), or a vector of integers
// holding floats wider than its lanes (Eigen's packet of two doubles
// loaded as <4 x i32>). Nil otherwise, and for integers FloatOf
// describes.
func (a *Analysis) PackedFloats(v value.Value) (*types.FloatType, int64) {
	lane, lanes := intLanes(v.Type())
	if lane == 0 {
		return nil, 0
	}
	size := lane * lanes
	_, vec := v.Type().(*types.VectorType)
	t := a.get(v)
next:
	for _, c := range []Concrete{Float, Double} {
		w := c.Size()
		if size%w != 0 || !vec && size <= w || vec && (w <= lane || w%lane != 0) {
			continue
		}
		for off := int64(0); off < size; off += w {
			if t.ScalarAt(off, w) != c {
				continue next
			}
		}
		return c.FloatType(), size / w
	}
	return nil, 0
}

// IsPointerBits reports an integer (or vector of integers of pointer
// size) that holds pointers in every element.
func (a *Analysis) IsPointerBits(v value.Value) bool {
	size, lanes := intLanes(v.Type())
	if size != 8 {
		return false
	}
	t := a.get(v)
	for k := int64(0); k < lanes; k++ {
		if t.ScalarAt(k*size, size) != Pointer {
			return false
		}
	}
	return true
}

// Mixed reports an integer-typed value that holds a float in some of its
// bytes together with other data, or conflicting facts (which may be a
// float used as an integer): nothing one IR type describes.
func (a *Analysis) Mixed(v value.Value) bool {
	size, _ := intLanes(v.Type())
	if size == 0 {
		return false
	}
	bytes := a.get(v).Bytes(irutil.StoreSize(v.Type()))
	hasFloat := false
	for _, b := range bytes {
		if b.IsFloat() || b == Anything {
			hasFloat = true
		}
	}
	return hasFloat && a.FloatOf(v) == nil
}

// intLanes is the byte size of an integer type's elements and how many
// there are (1 for a scalar); 0 for other types.
func intLanes(t types.Type) (size, lanes int64) {
	switch t := t.(type) {
	case *types.IntType:
		if t.BitSize%8 != 0 {
			return 0, 0
		}
		return int64(t.BitSize / 8), 1
	case *types.VectorType:
		it, ok := t.ElemType.(*types.IntType)
		if !ok || it.BitSize%8 != 0 {
			return 0, 0
		}
		return int64(it.BitSize / 8), int64(t.Len)
	}
	return 0, 0
}

// Field is a float or pointer in memory: its byte offset and type.
type Field struct {
	Offset int64
	Type   Concrete
}

// Layout is what the n bytes of memory at pointer p hold: its float and
// pointer fields in order, and whether every byte is accounted for
// (complete: each byte is part of exactly one float or pointer, or an
// integer). Not complete when a byte is unknown or holds conflicting
// facts.
func (a *Analysis) Layout(p value.Value, n int64) (fields []Field, complete bool) {
	if n <= 0 || n > MaxOffset {
		return nil, false
	}
	w := a.get(p).Data(0).Window(0, n)
	complete = true
	for o := int64(0); o < n; {
		c := w.ScalarAt(o, 1)
		if s := w.m[encode([]int64{o})]; s.IsFloat() || s == Pointer {
			if w.ScalarAt(o, s.Size()) != s {
				return fields, false
			}
			fields = append(fields, Field{o, s})
			o += s.Size()
			continue
		}
		if c != Integer {
			complete = false
		}
		o++
	}
	return fields, complete
}

// Repeating is the one type the memory at p holds at every offset (an
// array of it: double* p indexed by a variable), Unknown when the memory
// is not known to be such an array, Anything when its facts conflict.
func (a *Analysis) Repeating(p value.Value) Concrete {
	mem := a.get(p).Data(0)
	rep := Unknown
	for _, e := range mem.Entries() {
		if len(e.Path) != 1 {
			continue
		}
		if e.Path[0] != -1 {
			continue
		}
		rep = rep.Join(e.Type)
	}
	if rep == Unknown {
		return Unknown
	}
	// Facts at particular offsets must agree with the repeated type.
	for _, e := range mem.Entries() {
		if len(e.Path) == 1 && e.Path[0] >= 0 {
			if e.Type != rep || e.Path[0]%rep.Size() != 0 {
				return Anything
			}
		}
	}
	return rep
}

// Print lists f's parameters and instructions with their trees, as
// Enzyme's -print-type-analysis does (for tests and debugging).
func (a *Analysis) Print(f *ir.Func) string {
	var b strings.Builder
	for _, p := range f.Params {
		fmt.Fprintf(&b, "%s: %s\n", p.Ident(), a.get(p))
	}
	for _, blk := range f.Blocks {
		for _, inst := range blk.Insts {
			if v, ok := inst.(value.Named); ok && !types.Equal(v.Type(), types.Void) {
				fmt.Fprintf(&b, "%s: %s\n", v.Ident(), a.get(v))
			}
		}
		if inv, ok := blk.Term.(*ir.TermInvoke); ok && !types.Equal(inv.Typ, types.Void) {
			fmt.Fprintf(&b, "%s: %s\n", inv.Ident(), a.get(inv))
		}
	}
	fmt.Fprintf(&b, "return: %s\n", a.rets[f])
	return b.String()
}

// Prefix is, for memory at p whose known contents are floats (or
// pointers) of one type packed from offset 0 and nothing else, that type
// and how many bytes of it are known: a copy of at most that many bytes
// copies only them. Unknown and 0 otherwise.
func (a *Analysis) Prefix(p value.Value) (Concrete, int64) {
	mem := a.get(p).Data(0)
	var c Concrete
	offsets := map[int64]bool{}
	for _, e := range mem.Entries() {
		if len(e.Path) != 1 {
			continue
		}
		if e.Path[0] < 0 || (c != Unknown && e.Type != c) || !(e.Type.IsFloat() || e.Type == Pointer) {
			return Unknown, 0
		}
		c = e.Type
		offsets[e.Path[0]] = true
	}
	if c == Unknown {
		return Unknown, 0
	}
	n := int64(0)
	for offsets[n] {
		n += c.Size()
	}
	if int64(len(offsets))*c.Size() != n {
		return Unknown, 0 // holes
	}
	return c, n
}

// LargestFloat is the size of the largest float the memory at p is known
// to hold at some offset (0 when none).
func (a *Analysis) LargestFloat(p value.Value) int64 {
	n := int64(0)
	for _, e := range a.get(p).Data(0).Entries() {
		if len(e.Path) == 1 && e.Type.IsFloat() && e.Type.Size() > n {
			n = e.Type.Size()
		}
	}
	return n
}

// UnknownBits reports an integer value of a float's width (i32, i64, or a
// vector of them) that the analysis covered without telling what some
// element holds: it may be a float's bits.
func (a *Analysis) UnknownBits(v value.Value) bool {
	size, lanes := intLanes(v.Type())
	if (size != 4 && size != 8) || !a.tracked(unwrap(v)) {
		return false
	}
	t := a.get(v)
	for k := int64(0); k < lanes; k++ {
		if t.ScalarAt(k*size, size) == Unknown {
			return true
		}
	}
	return false
}

// HoldsPointer reports an integer-typed value (a scalar, a vector of
// integers or an aggregate) some 8 aligned bytes of which the analysis
// found to hold a pointer.
func (a *Analysis) HoldsPointer(v value.Value) bool {
	if !a.tracked(unwrap(v)) {
		return false
	}
	t := a.get(v)
	n := irutil.StoreSize(v.Type())
	for o := int64(0); o+8 <= n && o <= MaxOffset; o += 8 {
		if t.ScalarAt(o, 8) == Pointer {
			return true
		}
	}
	return false
}

// IntegersAndPointers reports an integer-typed value each 8 bytes of
// which the analysis found to hold an integer or a pointer, at least one
// a pointer (no float, nothing unknown).
func (a *Analysis) IntegersAndPointers(v value.Value) bool {
	if !a.tracked(unwrap(v)) {
		return false
	}
	t := a.get(v)
	n := irutil.StoreSize(v.Type())
	if n%8 != 0 || n == 0 {
		return false
	}
	pointer := false
	for o := int64(0); o < n && o <= MaxOffset; o += 8 {
		switch t.ScalarAt(o, 8) {
		case Pointer:
			pointer = true
		case Integer:
		default:
			return false
		}
	}
	return pointer
}

// FloatsInDouble reports a double (or vector of doubles) that holds a
// float in the high half of an element: two floats moved as a double (a
// union of __m128 and floats passed by value).
func (a *Analysis) FloatsInDouble(v value.Value) bool {
	t := v.Type()
	lanes := int64(1)
	if vt, ok := t.(*types.VectorType); ok {
		t, lanes = vt.ElemType, int64(vt.Len)
	}
	if ft, ok := t.(*types.FloatType); !ok || ft.Kind != types.FloatKindDouble {
		return false
	}
	facts := a.get(v)
	if facts == nil {
		return false
	}
	for k := int64(0); k < lanes; k++ {
		// The fact that starts there (ScalarAt would see the double's
		// fact reaching into it, and answer Anything).
		c := facts.m[encode([]int64{8*k + 4})]
		if ft := c.FloatType(); c.IsFloat() && ft != nil && ft.Kind == types.FloatKindFloat {
			return true
		}
	}
	return false
}
