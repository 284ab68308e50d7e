package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// reallocFamily lists the pointers of f that may hold the block realloc x
// returns (or the one it resizes), for reallocElement to read their types:
// the values connected to x through casts, phis, selects and other
// reallocs, and through memory: a pointer stored to a location joins the
// pointers loaded from the same location (a buffer held in a struct field,
// `b->data = realloc(b->data, ...)`, read back as `double *`). Locations
// are the same base with the same constant getelementptr path (bitcasts
// and zero offsets stripped); other stores lose track of the pointer.
//
// The family's uses say more (familyUses): byte offsets into the block
// cast to typed pointers, and uses f's typed pointers may not show.
func reallocFamily(f *ir.Func, x *ir.InstCall) (family map[value.Value]bool, uses familyUse) {
	family = map[value.Value]bool{x: true}
	locs := map[string]bool{} // locations a member is stored to or loaded from
	edges := func(inst ir.Instruction) []value.Value {
		switch y := inst.(type) {
		case *ir.InstBitCast:
			return []value.Value{y.From}
		case *ir.InstPhi:
			return irfacts.IncomingValues(y)
		case *ir.InstSelect:
			return []value.Value{y.ValueTrue, y.ValueFalse}
		case *ir.InstCall:
			if irfacts.IsRealloc(y) {
				return []value.Value{irfacts.Unwrap(y.Args[0])}
			}
		}
		return nil
	}
	join := func(v value.Value) bool {
		if family[v] {
			return false
		}
		family[v] = true
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch y := inst.(type) {
				case *ir.InstStore:
					if !types.IsPointer(y.Src.Type()) {
						continue
					}
					key, ok := locationKey(y.Dst)
					src := irfacts.Unwrap(y.Src)
					switch {
					case family[src] && ok && !locs[key]:
						locs[key], changed = true, true
					case ok && locs[key] && join(src):
						changed = true
					}
					continue
				case *ir.InstLoad:
					if !types.IsPointer(y.ElemType) {
						continue
					}
					key, ok := locationKey(y.Src)
					switch {
					case family[y] && ok && !locs[key]:
						locs[key], changed = true, true
					case ok && locs[key] && join(y):
						changed = true
					}
					continue
				}
				v, ok := inst.(value.Value)
				if !ok {
					continue
				}
				for _, op := range edges(inst) {
					if family[v] != family[op] {
						family[v], family[op] = true, true
						changed = true
					}
				}
			}
		}
	}
	return family, familyUses(f, family)
}

// familyUse is what the uses of a realloc family say beyond its members'
// types.
type familyUse struct {
	// offsetFloat: a byte offset into the block (an i8 getelementptr) is
	// cast to a pointer to floating point (a double at an offset nothing
	// here proves a multiple of its size); offsetTyped: to any type but i8.
	offsetFloat, offsetTyped bool
	// elsewhere: a member may be used where f's typed pointers do not
	// show it: stored to or loaded from memory, passed to a call other
	// than realloc, free and memset, returned, a parameter, or converted
	// to an integer or an aggregate.
	elsewhere bool
}

// familyUses reads the uses of family's members and of byte offsets into
// them.
func familyUses(f *ir.Func, family map[value.Value]bool) familyUse {
	var u familyUse
	for v := range family {
		switch v.(type) {
		case *ir.Param, *ir.InstLoad:
			u.elsewhere = true
		}
	}
	// derived: pointers into the block that are no members (getelementptr
	// offsets, and their casts), which may carry it elsewhere as well;
	// bytes: those at byte offsets (an i8 getelementptr on the way), where
	// the members' element types say nothing of what is found.
	derived, bytes := map[value.Value]bool{}, map[value.Value]bool{}
	held := func(v value.Value) bool { v = irfacts.Unwrap(v); return family[v] || derived[v] }
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				var src value.Value
				byteOffset := false
				switch y := inst.(type) {
				case *ir.InstGetElementPtr:
					src, byteOffset = y.Src, types.Equal(y.ElemType, types.I8)
				case *ir.InstBitCast:
					src = y.From
				default:
					continue
				}
				v := inst.(value.Value)
				if held(src) && !held(v) {
					derived[v], changed = true, true
				}
				if derived[v] && !bytes[v] && (byteOffset || bytes[irfacts.Unwrap(src)]) {
					bytes[v], changed = true, true
				}
			}
		}
	}
	for v := range bytes {
		if c, ok := v.(*ir.InstBitCast); ok {
			if pt, ok := c.To.(*types.PointerType); ok && !types.Equal(pt.ElemType, types.I8) {
				u.offsetTyped = true
				u.offsetFloat = u.offsetFloat || irfacts.CarriesFloat(pt.ElemType)
			}
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch y := inst.(type) {
			case *ir.InstStore:
				u.elsewhere = u.elsewhere || held(y.Src)
			case *ir.InstCall:
				for i, a := range y.Args {
					if held(a) && !(irfacts.IsRealloc(y) && i == 0) && !isFree(y) && !nonEscapingIntrinsic(y) {
						u.elsewhere = true
					}
				}
			case *ir.InstPtrToInt:
				u.elsewhere = u.elsewhere || held(y.From)
			case *ir.InstInsertValue:
				u.elsewhere = u.elsewhere || held(y.Elem)
			case *ir.InstInsertElement:
				u.elsewhere = u.elsewhere || held(y.Elem)
			}
		}
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && held(r.X) {
			u.elsewhere = true
		}
	}
	return u
}

// nonEscapingIntrinsic reports calls that neither keep a pointer argument
// nor write floats through it unseen: debug info, lifetimes, memset.
func nonEscapingIntrinsic(c *ir.InstCall) bool {
	name := irfacts.CalleeName(c)
	return strings.HasPrefix(name, "llvm.dbg.") || strings.HasPrefix(name, "llvm.lifetime.") || irfacts.IsMemSet(c)
}

// locationKey names the memory location p points to: its base (casts
// stripped) and the constant getelementptr path from it, trailing zero
// indices dropped (offset zero: a struct's first field, an array's first
// element). Two pointers with the same key are the same address; ok is
// false where an index is not constant or getelementptrs nest.
func locationKey(p value.Value) (key string, ok bool) {
	p = irfacts.Unwrap(p)
	var path []int64
	var elem types.Type
	for {
		switch y := p.(type) {
		case *ir.InstBitCast:
			p = y.From
			continue
		case *constant.ExprBitCast:
			p = y.From
			continue
		case *ir.InstGetElementPtr:
			idx, ok := constantIndices(y.Indices)
			if !ok {
				return "", false
			}
			idx = trimZeros(idx)
			if len(idx) == 0 {
				p = y.Src
				continue
			}
			if path != nil {
				return "", false
			}
			path, elem, p = idx, y.ElemType, y.Src
			continue
		case *constant.ExprGetElementPtr:
			indices := make([]value.Value, len(y.Indices))
			for i, x := range y.Indices {
				indices[i] = x
			}
			idx, ok := constantIndices(indices)
			if !ok {
				return "", false
			}
			idx = trimZeros(idx)
			if len(idx) == 0 {
				p = y.Src
				continue
			}
			if path != nil {
				return "", false
			}
			path, elem, p = idx, y.ElemType, y.Src
			continue
		}
		break
	}
	if path == nil {
		return fmt.Sprintf("%p", irutil.StripCasts(p)), true
	}
	return fmt.Sprintf("%p %s %v", irutil.StripCasts(p), elem, path), true
}

// constantIndices reads getelementptr indices that are all constant
// integers (in constant expressions, possibly wrapped as inrange).
func constantIndices(indices []value.Value) ([]int64, bool) {
	out := make([]int64, len(indices))
	for i, v := range indices {
		if x, ok := v.(*constant.Index); ok {
			v = x.Constant
		}
		c, ok := v.(*constant.Int)
		if !ok {
			return nil, false
		}
		out[i] = c.X.Int64()
	}
	return out, true
}

func trimZeros(idx []int64) []int64 {
	for len(idx) > 0 && idx[len(idx)-1] == 0 {
		idx = idx[:len(idx)-1]
	}
	return idx
}
