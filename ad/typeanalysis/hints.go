package typeanalysis

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Hints are what the frontend's types say: TBAA access tags (the C type
// of a load or store, of the accesses a memcpy replaced, of the fields of
// a struct assignment) and the element types of typed pointers. They are
// applied after the certain facts have reached their fixed point, only
// where those left a location unknown. A TBAA integer type is no fact at
// all: clang tags the store of a double's bits through an unsigned long
// long "long long".

// applyHints adds the hints of f's instructions and values.
func (a *Analysis) applyHints(f *ir.Func) {
	for _, p := range f.Params {
		a.pointeeHint(p)
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstLoad:
				a.accessHint(x, x.ElemType, x.Metadata)
				a.descriptorFieldHint(x, x.Src)
			case *ir.InstStore:
				a.accessHint(x.Src, x.Src.Type(), x.Metadata)
				a.descriptorFieldHint(x.Src, x.Dst)
			case *ir.InstCall:
				if f, ok := x.Callee.(*ir.Func); ok && isMemTransfer(f.Name()) && len(x.Args) >= 3 {
					a.copyHint(x)
				}
			}
			if v, ok := inst.(value.Value); ok {
				a.pointeeHint(v)
			}
			a.globalHints(inst)
		}
	}
}

// accessHint: a float or pointer TBAA tag on an integer load or store
// whose value nothing else types.
func (a *Analysis) accessHint(v value.Value, t types.Type, md ir.Metadata) {
	c := TBAAConcrete(tbaaTag(md, "tbaa"))
	if !(c.IsFloat() || c == Pointer) {
		return
	}
	n := irutil.StoreSize(t)
	if !isIntegers(t) || n%c.Size() != 0 {
		return
	}
	if a.get(v).ScalarAt(0, n) != Unknown {
		return
	}
	h := NewTree()
	for o := int64(0); o < n; o += c.Size() {
		h.Insert(c, o)
	}
	a.add(v, h)
}

// isIntegers reports an integer or a vector of integers.
func isIntegers(t types.Type) bool {
	switch t := t.(type) {
	case *types.IntType:
		return true
	case *types.VectorType:
		_, ok := t.ElemType.(*types.IntType)
		return ok
	}
	return false
}

// copyHint: a memcpy's own TBAA tag (a copy loop's accesses) or its
// !tbaa.struct (a struct assignment's fields), where the bytes at both
// ends are unknown.
func (a *Analysis) copyHint(x *ir.InstCall) {
	dst, src := x.Args[0], x.Args[1]
	n, constN := intConst(x.Args[2])
	h := NewTree()
	if c := TBAAConcrete(tbaaTag(x.Metadata, "tbaa")); c.IsFloat() || c == Pointer {
		if !constN {
			h.put([]int64{-1}, c)
		}
		for o := int64(0); constN && o+c.Size() <= n && o <= MaxOffset; o += c.Size() {
			h.put([]int64{o}, c)
		}
	}
	if node := tbaaStruct(x.Metadata); node != nil && len(node.Fields)%3 == 0 {
		for i := 0; i+2 < len(node.Fields); i += 3 {
			off, ok1 := mdInt(node.Fields[i])
			size, ok2 := mdInt(node.Fields[i+1])
			tag, ok3 := node.Fields[i+2].(metadata.MDNode)
			if !ok1 || !ok2 || !ok3 {
				continue
			}
			if c := TBAAConcrete(tag); (c.IsFloat() || c == Pointer) && c.Size() == size {
				h.put([]int64{off}, c)
			}
		}
	}
	for _, p := range []value.Value{dst, src} {
		mem := a.get(p).Data(0)
		fresh := NewTree()
		for _, e := range h.Entries() {
			if e.Path[0] == -1 && mem.Len() == 0 || e.Path[0] >= 0 && mem.Window(e.Path[0], e.Type.Size()).Len() == 0 && mem.At(e.Path[0]) == Unknown {
				fresh.put(e.Path, e.Type)
			}
		}
		a.add(p, fresh.Under(0))
	}
}

// pointeeHint: the element type of a typed pointer, its floats and
// pointers at their offsets, where the memory there is unknown.
func (a *Analysis) pointeeHint(v value.Value) {
	pt, ok := v.Type().(*types.PointerType)
	if !ok {
		return
	}
	switch pt.ElemType.(type) {
	case *types.FuncType, *types.IntType:
		return
	case *types.StructType:
		if pt.ElemType.(*types.StructType).Opaque {
			return
		}
	}
	mem := a.get(v).Data(0)
	fresh := NewTree()
	for _, e := range certain(pt.ElemType).Entries() {
		if mem.Window(e.Path[0], e.Type.Size()).Len() == 0 && mem.At(e.Path[0]) == Unknown {
			fresh.put(e.Path, e.Type)
		}
	}
	a.add(v, fresh.Under(0))
}

// globalHints: the content types of the globals an instruction uses.
func (a *Analysis) globalHints(inst ir.Instruction) {
	u, ok := inst.(interface{ Operands() []*value.Value })
	if !ok {
		return
	}
	for _, op := range u.Operands() {
		if g, _, ok := globalBase(unwrap(*op)); ok {
			a.pointeeHint(g)
		}
	}
}

// tbaaTag is the node of the named attachment.
func tbaaTag(md ir.Metadata, name string) metadata.MDNode {
	for _, at := range md {
		if at.Name == name {
			return at.Node
		}
	}
	return nil
}

func tbaaStruct(md ir.Metadata) *metadata.Tuple {
	t, _ := tbaaTag(md, "tbaa.struct").(*metadata.Tuple)
	return t
}

func mdInt(f metadata.Field) (int64, bool) {
	if c, ok := f.(*constant.Int); ok && c.X.IsInt64() {
		return c.X.Int64(), true
	}
	return 0, false
}

// TBAAConcrete is what a TBAA access tag's scalar type stands for: a
// float, Pointer, Integer, or Unknown ("omnipotent char", unknown names,
// no tag).
func TBAAConcrete(tag metadata.MDNode) Concrete {
	if tag == nil {
		return Unknown
	}
	name := TBAAAccessName(tag)
	switch name {
	case "double":
		return Double
	case "float":
		return Float
	case "long double":
		return X86FP80
	case "any pointer", "vtable pointer":
		return Pointer
	case "int", "long", "long long", "short", "bool", "_Bool", "wchar_t", "char16_t", "char32_t", "__int128":
		return Integer
	}
	if strings.HasPrefix(name, "p1 ") || strings.HasPrefix(name, "p2 ") {
		return Pointer // typed pointer tags of newer clangs
	}
	return Unknown
}

// TBAAAccessName is the name of a tag's access type: struct-path tags are
// {base, access, offset}; old scalar tags are the type node itself.
func TBAAAccessName(node metadata.MDNode) string {
	t, ok := node.(*metadata.Tuple)
	if !ok || len(t.Fields) == 0 {
		return ""
	}
	if s, ok := t.Fields[0].(*metadata.String); ok {
		return s.Value
	}
	if len(t.Fields) < 2 {
		return ""
	}
	access, ok := t.Fields[1].(*metadata.Tuple)
	if !ok || len(access.Fields) == 0 {
		return ""
	}
	if s, ok := access.Fields[0].(*metadata.String); ok {
		return s.Value
	}
	return ""
}
