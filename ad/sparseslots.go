package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Pointers of a dense view kept in memory (sparse.go). A gradient inlined
// where the view is made may cache an address derived from it: in a loop
// record (an array of structs grown with realloc, its pointer in an
// alloca) or in a stack slot, loaded back by the reverse sweep. A load
// from such memory is an address of the view too when the memory provably
// holds nothing else: it is private to the function (an alloca that does
// not escape, or fresh heap memory only reached through one), every store
// into it stores an address of this view, and nothing else writes it. The
// view lowers to null, so what such memory holds at run time is the byte
// offset, and the load gives it back. Memory that does not pass stays an
// error at the store.

// viewSlots is, for the addresses derived from one view, the stores of
// them into memory that holds only such addresses, and the loads from
// that memory (addresses of the view as well).
type viewSlots struct {
	stores map[*ir.InstStore]bool
	loads  []*ir.InstLoad
}

// findViewSlots looks at every store of a derived address into memory.
func findViewSlots(f *ir.Func, is func(value.Value) bool) viewSlots {
	out := viewSlots{stores: map[*ir.InstStore]bool{}}
	users := usersOf(f)
	seen := map[string]bool{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			st, ok := inst.(*ir.InstStore)
			if !ok || !is(st.Src) {
				continue
			}
			slot, ok := slotOf(f, st.Dst)
			if !ok || seen[slot.key()] {
				continue
			}
			seen[slot.key()] = true
			stores, loads, ok := slot.accesses(users)
			if !ok {
				continue
			}
			all := true
			for _, s := range stores {
				all = all && is(s.Src)
			}
			for _, l := range loads {
				all = all && types.IsPointer(l.ElemType)
			}
			if !all {
				continue
			}
			for _, s := range stores {
				out.stores[s] = true
			}
			out.loads = append(out.loads, loads...)
		}
	}
	return out
}

// memSlot is memory of a function: an alloca (record nil), or one field
// path of every element of the record array whose pointer the alloca
// holds.
type memSlot struct {
	alloca *ir.InstAlloca
	record types.Type // the array's element type
	path   string     // the field's constant indices after the element's
}

func (s memSlot) key() string {
	return fmt.Sprintf("%p %v %s", s.alloca, s.record, s.path)
}

// slotOf is the slot an address stands for: an alloca, or gep T, (load
// T* from an alloca), i, constant field indices.
func slotOf(f *ir.Func, addr value.Value) (memSlot, bool) {
	addr = irutil.StripCasts(addr)
	if a, ok := addr.(*ir.InstAlloca); ok {
		return memSlot{alloca: a}, true
	}
	g, ok := addr.(*ir.InstGetElementPtr)
	if !ok || len(g.Indices) < 2 {
		return memSlot{}, false
	}
	l, ok := g.Src.(*ir.InstLoad)
	if !ok {
		return memSlot{}, false
	}
	a, ok := l.Src.(*ir.InstAlloca)
	if !ok {
		return memSlot{}, false
	}
	path, ok := fieldPath(g)
	if !ok {
		return memSlot{}, false
	}
	return memSlot{alloca: a, record: g.ElemType, path: path}, true
}

// fieldPath is a GEP's constant indices after its first, as a key.
func fieldPath(g *ir.InstGetElementPtr) (string, bool) {
	var parts []string
	for _, idx := range g.Indices[1:] {
		c, ok := idx.(*constant.Int)
		if !ok {
			return "", false
		}
		parts = append(parts, c.X.String())
	}
	return strings.Join(parts, ","), true
}

// accesses lists the stores into the slot and the loads from it, and
// whether those are all its accesses: nothing else reads, writes or
// takes the address of its memory.
func (s memSlot) accesses(users map[value.Value][]interface{}) (stores []*ir.InstStore, loads []*ir.InstLoad, ok bool) {
	if s.record == nil {
		return directAccesses(users, s.alloca)
	}
	// The alloca holds the record array's pointer: loaded (then indexed,
	// passed to realloc or free, compared), or stored a fresh
	// allocation's result or null.
	for _, u := range users[s.alloca] {
		switch x := u.(type) {
		case *ir.InstLoad:
			if x.Src != value.Value(s.alloca) {
				return nil, nil, false
			}
			st, ld, ok := s.arrayAccesses(users, x)
			if !ok {
				return nil, nil, false
			}
			stores, loads = append(stores, st...), append(loads, ld...)
		case *ir.InstStore:
			if x.Dst != value.Value(s.alloca) || !freshArray(users, x.Src, s.alloca) {
				return nil, nil, false
			}
		default:
			if !lifetimeOnly(users, u) {
				return nil, nil, false
			}
		}
	}
	return stores, loads, true
}

// directAccesses: an alloca only loaded and stored (and its lifetime
// marked).
func directAccesses(users map[value.Value][]interface{}, a *ir.InstAlloca) (stores []*ir.InstStore, loads []*ir.InstLoad, ok bool) {
	for _, u := range users[a] {
		switch x := u.(type) {
		case *ir.InstLoad:
			loads = append(loads, x)
		case *ir.InstStore:
			if x.Dst != value.Value(a) {
				return nil, nil, false
			}
			stores = append(stores, x)
		default:
			if !lifetimeOnly(users, u) {
				return nil, nil, false
			}
		}
	}
	return stores, loads, true
}

// arrayAccesses: the uses of a loaded record array pointer p are GEPs of
// the record type with constant field indices, each only loaded and
// stored with its own type (so fields do not overlap), and casts passed
// to realloc or free, and comparisons. Those of the slot's field path are
// returned.
func (s memSlot) arrayAccesses(users map[value.Value][]interface{}, p *ir.InstLoad) (stores []*ir.InstStore, loads []*ir.InstLoad, ok bool) {
	for _, u := range users[p] {
		switch x := u.(type) {
		case *ir.InstGetElementPtr:
			path, ok := fieldPath(x)
			if !ok || len(x.Indices) < 2 || x.Src != value.Value(p) || !types.Equal(x.ElemType, s.record) {
				return nil, nil, false
			}
			elem := x.Typ.(*types.PointerType).ElemType
			switch elem.(type) {
			case *types.StructType, *types.ArrayType:
				return nil, nil, false // a field holding fields: paths would overlap
			}
			for _, v := range users[x] {
				switch a := v.(type) {
				case *ir.InstLoad:
					if !types.Equal(a.ElemType, elem) {
						return nil, nil, false
					}
					if path == s.path {
						loads = append(loads, a)
					}
				case *ir.InstStore:
					if a.Dst != value.Value(x) || !types.Equal(a.Src.Type(), elem) {
						return nil, nil, false
					}
					if path == s.path {
						stores = append(stores, a)
					}
				default:
					return nil, nil, false
				}
			}
		case *ir.InstBitCast:
			for _, v := range users[x] {
				c, ok := v.(*ir.InstCall)
				if !ok || !(irfacts.IsRealloc(c) && len(c.Args) > 0 && irfacts.Unwrap(c.Args[0]) == value.Value(x) || isFree(c)) {
					return nil, nil, false
				}
			}
		case *ir.InstICmp:
		case *ir.InstSelect:
			if !handedBack(users, x) {
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
	}
	return stores, loads, true
}

// handedBack: a select of record arrays on a retaining gradient's exit
// (retain.go), only stored into the thread's pool or freed.
func handedBack(users map[value.Value][]interface{}, x *ir.InstSelect) bool {
	for _, u := range users[x] {
		switch y := u.(type) {
		case *ir.InstStore:
			g, ok := y.Dst.(*ir.Global)
			if y.Src != value.Value(x) || !ok || !tapePool(g) {
				return false
			}
		case *ir.InstBitCast:
			for _, v := range users[y] {
				if c, ok := v.(*ir.InstCall); !ok || !isFree(c) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// tapePool reports the thread-local global in which a retaining gradient
// keeps a loop's record array between calls (retain.go). The array it
// hands over holds an earlier call's records; the reverse sweep reads only
// the records the forward sweep of its own call wrote (record.go), so what
// a load from it gives is what this function stored.
func tapePool(g *ir.Global) bool {
	return g.Linkage == enum.LinkageInternal && g.TLSModel != enum.TLSModelNone &&
		strings.Contains(g.Name(), ".tape.") && strings.HasSuffix(g.Name(), ".rec")
}

// freshArray: v is null, the array of a tape pool, or the result of an
// allocation (malloc, realloc, ...) that is used only to be stored (cast)
// into alloca a and compared.
func freshArray(users map[value.Value][]interface{}, v value.Value, a *ir.InstAlloca) bool {
	v = irutil.StripCasts(v)
	if activity.IsNullConstant(v) {
		return true
	}
	switch x := v.(type) {
	case *ir.InstLoad:
		if g, ok := x.Src.(*ir.Global); !ok || !tapePool(g) {
			return false
		}
	case *ir.InstCall:
		if !irfacts.IsAllocation(x) && !irfacts.IsRealloc(x) {
			return false
		}
	default:
		return false
	}
	var check func(v value.Value) bool
	check = func(v value.Value) bool {
		for _, u := range users[v] {
			switch x := u.(type) {
			case *ir.InstBitCast:
				if !check(x) {
					return false
				}
			case *ir.InstStore:
				if x.Src != v || x.Dst != value.Value(a) {
					return false
				}
			case *ir.InstICmp:
			case *ir.InstCall:
				// The huge-page advice (hugepages.go) reads and writes
				// no byte of it.
				if irfacts.CalleeName(x) != tapeAdviseName {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return check(v)
}

// lifetimeOnly: u is a cast used only by lifetime markers, or one.
func lifetimeOnly(users map[value.Value][]interface{}, u interface{}) bool {
	switch x := u.(type) {
	case *ir.InstBitCast:
		for _, v := range users[x] {
			if !lifetimeOnly(users, v) {
				return false
			}
		}
		return true
	case *ir.InstCall:
		return strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime.")
	}
	return false
}
