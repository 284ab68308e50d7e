package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Indirect calls whose callee is known: a table of function pointers
// indexed by a constant (`table[1](x)`), which -O1 and above fold but -O0
// leaves as a load and an indirect call. resolveTableCalls makes such a
// call direct where the loaded pointer is provably one function:
//   - a load from a constant global (not one another definition may
//     replace at link time) at a constant index path: the function is the
//     initializer's element there;
//   - a load from a local array or struct (an alloca) at a constant index
//     path, where nothing but this function's own writes reach the alloca
//     (its address is only loaded from, stored to and copied from, never
//     passed on or stored anywhere) and every write to the element puts the
//     same function there: stores of that function's address, or one
//     memcpy of the whole alloca from a constant global of the same type
//     (clang's `@__const.f.local` for an initializer list).
//
// A load that runs before any write reads an undefined pointer, which no
// defined execution calls, so the write need not dominate the load. Where
// the proof fails the call stays indirect and is refused if it carries
// derivatives.
func resolveTableCalls(f *ir.Func) {
	var locals map[*ir.InstAlloca]*localTable
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok {
				continue
			}
			if _, direct := irutil.StripCasts(c.Callee).(*ir.Func); direct {
				continue
			}
			if locals == nil {
				locals = localTables(f)
			}
			fn := tableCallee(c.Callee, locals)
			if fn != nil && types.Equal(fn.Type(), c.Callee.Type()) {
				c.Callee = fn
			}
		}
	}
}

// tableCallee is the one function callee v can be (see resolveTableCalls),
// or nil.
func tableCallee(v value.Value, locals map[*ir.InstAlloca]*localTable) *ir.Func {
	ld, ok := irutil.StripCasts(v).(*ir.InstLoad)
	if !ok {
		return nil
	}
	base, path, ok := constantPath(ld.Src)
	if !ok {
		return nil
	}
	var elem constant.Constant
	switch b := base.(type) {
	case *ir.Global:
		if !b.Immutable || b.Init == nil || irfacts.Interposable(b.Linkage) {
			return nil
		}
		elem = initElement(b.Init, path)
	case *ir.InstAlloca:
		if t := locals[b]; t != nil {
			elem = t.element(path)
		}
	}
	if elem == nil || !types.Equal(elem.Type(), ld.ElemType) {
		return nil
	}
	fn, _ := irutil.StripCasts(elem).(*ir.Func)
	return fn
}

// constantPath returns the base object p points into (a global or an
// alloca) and the getelementptr index path to the element, its first index
// 0 and all constant; ok is false for anything else (casts changing the
// type included).
func constantPath(p value.Value) (base value.Value, path []int64, ok bool) {
	p = irfacts.Unwrap(p)
	var src value.Value
	var indices []value.Value
	switch g := p.(type) {
	case *ir.InstGetElementPtr:
		src, indices = g.Src, g.Indices
	case *constant.ExprGetElementPtr:
		src = g.Src
		for _, i := range g.Indices {
			indices = append(indices, i)
		}
	case *ir.Global, *ir.InstAlloca:
		return p, nil, true
	default:
		return nil, nil, false
	}
	switch src.(type) {
	case *ir.Global, *ir.InstAlloca:
	default:
		return nil, nil, false
	}
	idx, ok := constantIndices(indices)
	if !ok || len(idx) == 0 || idx[0] != 0 {
		return nil, nil, false
	}
	return src, idx[1:], true
}

// initElement is the element of constant c at index path, or nil.
func initElement(c constant.Constant, path []int64) constant.Constant {
	for _, i := range path {
		switch x := c.(type) {
		case *constant.Array:
			if i < 0 || i >= int64(len(x.Elems)) {
				return nil
			}
			c = x.Elems[i]
		case *constant.Struct:
			if i < 0 || i >= int64(len(x.Fields)) {
				return nil
			}
			c = x.Fields[i]
		case *constant.ZeroInitializer:
			return nil // null pointers: no callee
		default:
			return nil
		}
	}
	return c
}

// localTable is what an alloca's writes put into it: a constant global
// copied over the whole of it, or constants stored at index paths.
type localTable struct {
	copied *ir.Global
	stored map[string]constant.Constant // by index path; nil value: written differently twice
}

func (t *localTable) element(path []int64) constant.Constant {
	if t.copied != nil {
		return initElement(t.copied.Init, path)
	}
	return t.stored[pathKey(path)]
}

func pathKey(path []int64) string {
	b := make([]byte, 0, 8*len(path))
	for _, i := range path {
		for k := 0; k < 8; k++ {
			b = append(b, byte(i>>(8*k)))
		}
	}
	return string(b)
}

// localTables lists the allocas of f whose contents are known (see
// resolveTableCalls).
func localTables(f *ir.Func) map[*ir.InstAlloca]*localTable {
	tables := map[*ir.InstAlloca]*localTable{}
	bad := map[*ir.InstAlloca]bool{}
	// derived maps pointers into an alloca (casts, getelementptrs) to it.
	derived := map[value.Value]*ir.InstAlloca{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if a, ok := inst.(*ir.InstAlloca); ok {
				derived[a] = a
				tables[a] = &localTable{stored: map[string]constant.Constant{}}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				var src value.Value
				switch x := inst.(type) {
				case *ir.InstBitCast:
					src = x.From
				case *ir.InstGetElementPtr:
					src = x.Src
				default:
					continue
				}
				v := inst.(value.Value)
				if a := derived[src]; a != nil && derived[v] == nil {
					derived[v] = a
					changed = true
				}
			}
		}
	}
	owner := func(v value.Value) *ir.InstAlloca { return derived[irfacts.Unwrap(v)] }
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstBitCast, *ir.InstGetElementPtr:
				// followed above
			case *ir.InstLoad:
			case *ir.InstStore:
				if a := owner(x.Src); a != nil {
					bad[a] = true // its address escapes
				}
				if a := owner(x.Dst); a != nil {
					tables[a].store(x)
				}
			case *ir.InstCall:
				for i, arg := range x.Args {
					a := owner(arg)
					if a == nil {
						continue
					}
					switch {
					case irfacts.IsMemTransfer(x) && i == 1, nonEscapingIntrinsic(x) && !irfacts.IsMemSet(x):
					case irfacts.IsMemTransfer(x) && i == 0 && tables[a].copy(a, x):
					default:
						bad[a] = true
					}
				}
				if a := owner(x.Callee); a != nil {
					bad[a] = true
				}
			default:
				if u, ok := inst.(interface{ Operands() []*value.Value }); ok {
					for _, op := range u.Operands() {
						if a := owner(*op); a != nil {
							bad[a] = true
						}
					}
				}
			}
		}
		if u, ok := b.Term.(interface{ Operands() []*value.Value }); ok {
			for _, op := range u.Operands() {
				if a := owner(*op); a != nil {
					bad[a] = true
				}
			}
		}
	}
	for a, t := range tables {
		if bad[a] || t.bad() {
			delete(tables, a)
		}
	}
	return tables
}

// store records a store into the table: a constant at a constant index
// path, or else a write nothing can be told of.
func (t *localTable) store(x *ir.InstStore) {
	c, isConst := x.Src.(constant.Constant)
	_, path, ok := constantPath(x.Dst)
	if !isConst || !ok || !types.Equal(x.Src.Type(), typeAt(x.Dst)) {
		t.stored = nil
		return
	}
	if t.stored == nil {
		return
	}
	k := pathKey(path)
	if old, seen := t.stored[k]; seen && (old == nil || !irutil.SameValue(old, c)) {
		c = nil
	}
	t.stored[k] = c
}

// typeAt is the type p points to.
func typeAt(p value.Value) types.Type {
	if pt, ok := p.Type().(*types.PointerType); ok {
		return pt.ElemType
	}
	return nil
}

// copy records a memcpy into the table and reports whether it is one
// whose contents are known: the whole of alloca a from a constant global
// of a's type.
func (t *localTable) copy(a *ir.InstAlloca, x *ir.InstCall) bool {
	g, ok := irutil.StripCasts(irfacts.Unwrap(x.Args[1])).(*ir.Global)
	n, isConst := irfacts.Unwrap(x.Args[2]).(*constant.Int)
	size, _, known := abiLayout(a.ElemType)
	whole := irutil.StripCasts(irfacts.Unwrap(x.Args[0])) == value.Value(a)
	if !ok || !isConst || !known || !whole || t.copied != nil || !g.Immutable || g.Init == nil ||
		irfacts.Interposable(g.Linkage) || !types.Equal(g.ContentType, a.ElemType) || n.X.Int64() != size {
		return false
	}
	t.copied = g
	return true
}

// bad reports a table whose writes mix a copy with stores, store what
// cannot be told, or store to overlapping paths (a whole struct and one of
// its fields).
func (t *localTable) bad() bool {
	if t.stored == nil || (t.copied != nil && len(t.stored) > 0) {
		return true
	}
	for k := range t.stored {
		for l := range t.stored {
			if k != l && strings.HasPrefix(l, k) {
				return true
			}
		}
	}
	return false
}
