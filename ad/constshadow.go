package ad

import (
	"fmt"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Shadows of constant pointers: pointers the optimizer or the program
// makes out of constants, which meet shadowed pointers in phis, selects and
// stores (a `static const double c[4]` chosen instead of an active array;
// `&p->next` of a p that is null on some path, folded to
// `inttoptr (i64 40 ...)`).
//
// Addresses in the first page (null, null plus a constant offset below
// nullPage, the same as an integer constant) are never dereferenced by a
// defined execution: their shadow is the same constant. Shadow accesses
// mirror primal ones, so the shadow is dereferenced only where the primal
// already faulted.
//
// A constant global G (read-only memory: the program never writes it) gets
// a shadow global of the same type, created once per module and mode, whose
// pointer fields are the shadows of the constant pointers G's initializer
// holds and whose other bytes are zero:
//   - forward mode reads tangents from it: constant data has tangent zero.
//     It is itself constant (G_fwd): tangents are only ever stored where the
//     primal stores, and nothing stores into G.
//   - reverse mode accumulates adjoints into it (G_rev, writable): the
//     reverse of a load from G adds there, the reverse of a copy out of G
//     adds back there. It is a sink: shadow floats are read only by the
//     reverse of a write to the same memory (a store, the destination of a
//     copy, a realloc), and the program writes no constant global; the
//     forward sweep reads shadow memory only for shadow pointers (loads of
//     pointers, copies of pointer data), and adjoints never go to pointer
//     bytes. So what accumulates in G_rev, across calls too, is never read.
//
// The two are separate globals because forward mode reads floats: were it
// to share G_rev, it would read adjoints some reverse sweep left there.
//
// A pointer field of G's initializer to a writable global that may hold
// floats or pointers has no shadow to put there (those globals get none):
// an error, not a null shadow. Writable globals without either are their
// own shadow (no adjoint ever goes to their bytes).
const nullPage = 4096

type constShadowKey struct {
	g       *ir.Global
	forward bool
}

// constShadowed reports a pointer constant with a shadow of its own: an
// address in the null page, or one into a constant global (where a null
// shadow would lose what is read through it).
func constShadowed(c constant.Constant) bool {
	if addr, ok := absoluteAddress(c); ok {
		return addr >= 0 && addr < nullPage
	}
	g, ok := irfacts.ConstantBase(c).(*ir.Global)
	return ok && ((g.Immutable && g.Init != nil && !irfacts.Interposable(g.Linkage)) || irfacts.IsSharedGlobal(g))
}

// constantShadow returns the shadow (forward: the tangent) of pointer
// constant c, or of constant aggregate c holding pointers, with ok false
// where c is none this file handles (the caller's own rule applies).
// strict makes a pointer to a writable global holding floats or pointers
// an error rather than not handled; the initializers of shadow globals are
// always strict (their pointers are read through the shadow).
func (d *differ) constantShadow(c constant.Constant, forward, strict bool) (s constant.Constant, ok bool, err error) {
	switch t := c.Type().(type) {
	case *types.PointerType:
		return d.pointerShadow(c, forward, strict)
	case *types.StructType, *types.ArrayType:
		if !irfacts.ContainsPointer(t) {
			return nil, false, nil
		}
		s, err := d.shadowInit(c, forward, strict)
		if err != nil {
			if strict {
				return nil, false, err
			}
			return nil, false, nil
		}
		return s, true, nil
	}
	return nil, false, nil
}

// pointerShadow is constantShadow for a pointer constant.
func (d *differ) pointerShadow(c constant.Constant, forward, strict bool) (constant.Constant, bool, error) {
	if addr, ok := absoluteAddress(c); ok {
		return c, addr >= 0 && addr < nullPage, nil
	}
	switch x := c.(type) {
	case *constant.Undef, *constant.Poison:
		return c, true, nil
	case *constant.ExprBitCast:
		s, ok, err := d.pointerShadow(x.From, forward, strict)
		if !ok || s == x.From {
			return c, ok, err
		}
		return constant.NewBitCast(s, x.To), true, nil
	case *constant.ExprAddrSpaceCast:
		s, ok, err := d.pointerShadow(x.From, forward, strict)
		if !ok || s == x.From {
			return c, ok, err
		}
		return constant.NewAddrSpaceCast(s, x.To), true, nil
	case *constant.ExprGetElementPtr:
		s, ok, err := d.pointerShadow(x.Src, forward, strict)
		if !ok || s == x.Src {
			return c, ok, err
		}
		g := constant.NewGetElementPtr(x.ElemType, s, x.Indices...)
		g.InBounds = x.InBounds
		return g, true, nil
	case *ir.Func:
		return c, true, nil // calls go to the function itself
	case *ir.Global:
		if irfacts.IsSharedGlobal(x) {
			if dynamicShared(x) {
				return nil, false, fmt.Errorf("%s is dynamic shared memory (extern __shared__, sized at launch), which has no room for its shadow: use a __shared__ array of fixed size", x.Ident())
			}
			return d.sharedShadow(x), true, nil // gpu.go
		}
		if x.Immutable && x.Init != nil && !irfacts.Interposable(x.Linkage) {
			g, err := d.constGlobalShadow(x, forward)
			if err != nil {
				return nil, false, err
			}
			return g, true, nil
		}
		if !irfacts.ContainsFloatBytes(x.ContentType) && !irfacts.ContainsPointer(x.ContentType) {
			return c, true, nil // no adjoint ever goes to its bytes
		}
		if strict {
			return nil, false, fmt.Errorf("%s points to %s, a writable global that may hold floating point or pointers, which has no shadow", c.Ident(), x.Ident())
		}
	}
	return nil, false, nil
}

// absoluteAddress evaluates a pointer constant made of null or an integer
// (inttoptr), casts and getelementptrs with constant indices; ok is false
// for other constants (globals, functions) and what it cannot evaluate.
func absoluteAddress(c constant.Constant) (int64, bool) {
	switch x := c.(type) {
	case *constant.Null:
		return 0, true
	case *constant.ExprIntToPtr:
		if n, isInt := x.From.(*constant.Int); isInt && n.X.IsInt64() {
			return n.X.Int64(), true
		}
	case *constant.ExprBitCast:
		return absoluteAddress(x.From)
	case *constant.ExprAddrSpaceCast:
		return absoluteAddress(x.From)
	case *constant.ExprGetElementPtr:
		base, ok := absoluteAddress(x.Src)
		if !ok {
			return 0, false
		}
		indices := make([]value.Value, len(x.Indices))
		for i, e := range x.Indices {
			indices[i] = e
		}
		idx, ok := constantIndices(indices)
		if !ok {
			return 0, false
		}
		off, ok := gepByteOffset(x.ElemType, idx)
		return base + off, ok
	}
	return 0, false
}

// gepByteOffset is the byte offset of a getelementptr with constant
// indices over elem.
func gepByteOffset(elem types.Type, idx []int64) (int64, bool) {
	if len(idx) == 0 {
		return 0, true
	}
	size, _, ok := abiLayout(elem)
	if !ok {
		return 0, false
	}
	off := idx[0] * size
	t := elem
	for _, i := range idx[1:] {
		switch x := t.(type) {
		case *types.StructType:
			if i < 0 || i >= int64(len(x.Fields)) {
				return 0, false
			}
			fo, ok := fieldOffset(x, int(i))
			if !ok {
				return 0, false
			}
			off, t = off+fo, x.Fields[i]
		case *types.ArrayType:
			s, _, ok := abiLayout(x.ElemType)
			if !ok {
				return 0, false
			}
			off, t = off+i*s, x.ElemType
		default:
			return 0, false
		}
	}
	return off, true
}

// constGlobalShadow returns (creating once per module) the forward or
// reverse shadow global of constant global g.
func (d *differ) constGlobalShadow(g *ir.Global, forward bool) (*ir.Global, error) {
	key := constShadowKey{g, forward}
	if s, ok := d.constShadows[key]; ok {
		return s, nil
	}
	suffix := ".gozyme_rev_shadow"
	if forward {
		suffix = ".gozyme_fwd_shadow"
	}
	s := ir.NewGlobalDef(g.Name()+suffix, constant.NewZeroInitializer(g.ContentType))
	s.Immutable = forward
	s.Linkage = enum.LinkageInternal
	s.Align = g.Align
	d.constShadows[key] = s // before its initializer: tables may point to each other
	d.m.Globals = append(d.m.Globals, s)
	init, err := d.shadowInit(g.Init, forward, true)
	if err != nil {
		return nil, fmt.Errorf("the shadow of constant %s: %v", g.Ident(), err)
	}
	s.Init = init
	return s, nil
}

// shadowInit is the shadow of constant data c: the shadows of its pointers
// in place, zeros elsewhere.
func (d *differ) shadowInit(c constant.Constant, forward, strict bool) (constant.Constant, error) {
	t := c.Type()
	if !irfacts.ContainsPointer(t) {
		return constant.NewZeroInitializer(t), nil
	}
	switch x := c.(type) {
	case *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		return constant.NewZeroInitializer(t), nil
	case *constant.Struct:
		fields := make([]constant.Constant, len(x.Fields))
		for i, f := range x.Fields {
			s, err := d.shadowInit(f, forward, strict)
			if err != nil {
				return nil, err
			}
			fields[i] = s
		}
		out := constant.NewStruct(t.(*types.StructType), fields...)
		return out, nil
	case *constant.Array:
		elems := make([]constant.Constant, len(x.Elems))
		for i, e := range x.Elems {
			s, err := d.shadowInit(e, forward, strict)
			if err != nil {
				return nil, err
			}
			elems[i] = s
		}
		out := constant.NewArray(t.(*types.ArrayType), elems...)
		return out, nil
	case *constant.Vector:
		elems := make([]constant.Constant, len(x.Elems))
		for i, e := range x.Elems {
			s, err := d.shadowInit(e, forward, strict)
			if err != nil {
				return nil, err
			}
			elems[i] = s
		}
		return constant.NewVector(t.(*types.VectorType), elems...), nil
	}
	if types.IsPointer(t) {
		s, ok, err := d.pointerShadow(c, forward, strict)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("no shadow for the pointer %s", c.Ident())
		}
		return s, nil
	}
	return nil, fmt.Errorf("no shadow for %s", c.Ident())
}
