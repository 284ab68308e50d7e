package irutil

import (
	"fmt"
	"reflect"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// StripCasts looks through pointer bitcasts and address-space casts, both
// instructions and constant expressions, to the value underneath.
func StripCasts(v value.Value) value.Value {
	for {
		switch x := v.(type) {
		case *ir.InstBitCast:
			v = x.From
		case *ir.InstAddrSpaceCast:
			v = x.From
		case *constant.ExprBitCast:
			v = x.From
		case *constant.ExprAddrSpaceCast:
			v = x.From
		case *ir.Arg:
			v = x.Value
		default:
			return v
		}
	}
}

// SameValue reports whether a and b are the same value: the same SSA value
// (instruction, parameter, global), or equal constants of one type.
func SameValue(a, b value.Value) bool {
	if a == b {
		return true
	}
	ca, okA := a.(constant.Constant)
	cb, okB := b.(constant.Constant)
	return okA && okB && ca.Type().Equal(cb.Type()) && ca.Ident() == cb.Ident()
}

// ReplaceAllUses replaces every use of old by new in the instructions and
// terminators of f, including uses wrapped as metadata (llvm.dbg.value).
func ReplaceAllUses(f *ir.Func, old, new value.Value) {
	replaceUses(f, func(v value.Value) (value.Value, bool) {
		if v == old {
			return new, true
		}
		return nil, false
	})
}

// ReplaceAllUsesOf is ReplaceAllUses(f, olds[i], news[i]) for each i in
// order, in one pass over f where no value of news is also one of olds
// (where one is, the calls one after another would chain, and so they
// are made).
func ReplaceAllUsesOf(f *ir.Func, olds, news []value.Value) {
	repl := make(map[value.Value]value.Value, len(olds))
	for i, old := range olds {
		repl[old] = news[i]
	}
	for _, n := range news {
		if _, chained := repl[n]; chained {
			for i, old := range olds {
				ReplaceAllUses(f, old, news[i])
			}
			return
		}
	}
	if len(olds) > 0 && len(repl) < len(olds) {
		// An old value listed twice: only its first replacement counts.
		repl = make(map[value.Value]value.Value, len(olds))
		for i, old := range olds {
			if _, seen := repl[old]; !seen {
				repl[old] = news[i]
			}
		}
	}
	replaceUses(f, func(v value.Value) (value.Value, bool) {
		n, ok := repl[v]
		return n, ok
	})
}

// replaceUses replaces each operand v of f's instructions and terminators
// (metadata-wrapped ones included) for which with(v) answers true.
func replaceUses(f *ir.Func, with func(value.Value) (value.Value, bool)) {
	replace := func(ops []*value.Value) {
		for _, op := range ops {
			switch x := (*op).(type) {
			case *ir.Arg:
				if n, ok := with(x.Value); ok {
					x.Value = n
				} else if mv, ok := x.Value.(*metadata.Value); ok {
					if v, ok := mv.Value.(value.Value); ok {
						if n, ok := with(v); ok {
							x.Value = &metadata.Value{Value: n}
						}
					}
				}
			case *metadata.Value:
				if v, ok := x.Value.(value.Value); ok {
					if n, ok := with(v); ok {
						*op = &metadata.Value{Value: n}
					}
				}
			default:
				if n, ok := with(*op); ok {
					*op = n
				}
			}
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if u, ok := inst.(interface{ Operands() []*value.Value }); ok {
				replace(u.Operands())
			}
		}
		if u, ok := b.Term.(interface{ Operands() []*value.Value }); ok {
			replace(u.Operands())
		}
	}
}

// CloneInst returns a copy of inst whose operands are mapped through remap.
// The copy keeps the original's name, flags and attributes, and of its
// metadata the kinds in faithfulMetadata: what describes the access or
// value itself and stays true of a copy of it wherever that copy runs.
func CloneInst(inst ir.Instruction, remap func(value.Value) value.Value) (ir.Instruction, error) {
	out, err := cloneKeepMetadata(inst, remap)
	if err != nil {
		return nil, err
	}
	if md := reflect.ValueOf(out).Elem().FieldByName("Metadata"); md.IsValid() && md.CanSet() {
		var kept ir.Metadata
		if m, ok := md.Interface().(ir.Metadata); ok {
			for _, a := range m {
				if faithfulMetadata[a.Name] {
					kept = append(kept, a)
				}
			}
		}
		md.Set(reflect.ValueOf(kept))
	}
	return out, nil
}

// faithfulMetadata are the attachments CloneInst keeps. Each is a fact about
// the one access or value (its memory's type, the loaded value's range,
// alignment, nullness) that holds of an exact copy of the instruction in
// another function just as of the original. Dropped: !dbg and
// !heapallocsite (debug info scoped to the original function), !alias.scope
// and !noalias (claims between the original's dynamic scopes, which
// llvm.experimental.noalias.scope.decl ties to one run of the inlined body;
// a copy placed elsewhere, e.g. recomputed in a reverse sweep, would make the
// claim across runs), !llvm.access.group (a claim about one loop's
// iterations), !invariant.load (the memory must stay unchanged everywhere
// the copy can run) and the rest, which gozyme has no use for on a copy.
var faithfulMetadata = map[string]bool{
	"tbaa":                    true,
	"tbaa.struct":             true,
	"range":                   true,
	"nonnull":                 true,
	"noundef":                 true,
	"align":                   true,
	"dereferenceable":         true,
	"dereferenceable_or_null": true,
}

// cloneKeepMetadata is CloneInst keeping the instruction's metadata.
func cloneKeepMetadata(inst ir.Instruction, remap func(value.Value) value.Value) (ir.Instruction, error) {
	orig := reflect.ValueOf(inst)
	if orig.Kind() != reflect.Ptr {
		return nil, fmt.Errorf("cannot clone %T", inst)
	}
	cp := reflect.New(orig.Elem().Type())
	cp.Elem().Set(orig.Elem())
	out := cp.Interface().(ir.Instruction)
	// Slices and shared sub-objects must not alias the original.
	switch x := out.(type) {
	case *ir.InstCall:
		x.Args = CloneArgs(x.Args)
	case *ir.InstPhi:
		incs := make([]*ir.Incoming, len(x.Incs))
		for i, in := range x.Incs {
			c := *in
			incs[i] = &c
		}
		x.Incs = incs
	case *ir.InstGetElementPtr:
		x.Indices = append([]value.Value(nil), x.Indices...)
	}
	RemapOperands(out, remap)
	return out, nil
}

// CloneArgs copies call arguments, including the *ir.Arg wrappers that
// carry parameter attributes, so remapping the copy leaves the original alone.
func CloneArgs(args []value.Value) []value.Value {
	out := make([]value.Value, len(args))
	for i, a := range args {
		if x, ok := a.(*ir.Arg); ok {
			c := *x
			out[i] = &c
		} else {
			out[i] = a
		}
	}
	return out
}

// DebugLoc returns "file:line:col" from an instruction's !dbg attachment,
// or "" when it has none.
func DebugLoc(inst interface{}) string {
	var atts []*metadata.Attachment
	if v := reflect.ValueOf(inst); v.Kind() == reflect.Ptr && !v.IsNil() {
		if md := v.Elem().FieldByName("Metadata"); md.IsValid() {
			if m, ok := md.Interface().(ir.Metadata); ok {
				atts = m
			}
		}
	}
	for _, a := range atts {
		if a.Name != "dbg" {
			continue
		}
		loc, ok := a.Node.(*metadata.DILocation)
		if !ok {
			continue
		}
		file := scopeFile(loc.Scope)
		if file == "" {
			return ""
		}
		if loc.Column > 0 {
			return fmt.Sprintf("%s:%d:%d", file, loc.Line, loc.Column)
		}
		return fmt.Sprintf("%s:%d", file, loc.Line)
	}
	return ""
}

// CallerLoc returns, for an instruction whose !dbg location lies in code
// inlined into its function, "file:line:col" of the outermost call it was
// inlined at (the line in the function itself); "" for instructions that
// were not inlined or have no location.
func CallerLoc(inst interface{}) string {
	var atts []*metadata.Attachment
	if v := reflect.ValueOf(inst); v.Kind() == reflect.Ptr && !v.IsNil() {
		if md := v.Elem().FieldByName("Metadata"); md.IsValid() {
			if m, ok := md.Interface().(ir.Metadata); ok {
				atts = m
			}
		}
	}
	for _, a := range atts {
		loc, ok := a.Node.(*metadata.DILocation)
		if a.Name != "dbg" || !ok || loc.InlinedAt == nil {
			continue
		}
		for i := 0; i < 64 && loc.InlinedAt != nil; i++ {
			loc = loc.InlinedAt
		}
		file := scopeFile(loc.Scope)
		if file == "" {
			return ""
		}
		if loc.Column > 0 {
			return fmt.Sprintf("%s:%d:%d", file, loc.Line, loc.Column)
		}
		return fmt.Sprintf("%s:%d", file, loc.Line)
	}
	return ""
}

// FuncLoc returns "file:line" of a function's DISubprogram, or "".
func FuncLoc(f *ir.Func) string {
	for _, a := range f.Metadata {
		if sp, ok := a.Node.(*metadata.DISubprogram); ok && a.Name == "dbg" && sp.File != nil {
			return fmt.Sprintf("%s:%d", sp.File.Filename, sp.Line)
		}
	}
	return ""
}

func scopeFile(scope metadata.Field) string {
	for i := 0; i < 32 && scope != nil; i++ {
		switch s := scope.(type) {
		case *metadata.DISubprogram:
			if s.File != nil {
				return s.File.Filename
			}
			scope = s.Scope
		case *metadata.DILexicalBlock:
			if s.File != nil {
				return s.File.Filename
			}
			scope = s.Scope
		case *metadata.DILexicalBlockFile:
			if s.File != nil {
				return s.File.Filename
			}
			scope = s.Scope
		case *metadata.DIFile:
			return s.Filename
		default:
			return ""
		}
	}
	return ""
}

// HasSRetParam reports whether f returns a struct through memory: its first
// parameter carries the sret attribute.
func HasSRetParam(f *ir.Func) bool {
	if len(f.Params) == 0 {
		return false
	}
	for _, a := range f.Params[0].Attrs {
		if _, ok := a.(ir.SRet); ok {
			return true
		}
	}
	return false
}

// ReturnedStruct returns the fields of the struct f returns, whether in
// registers (an IR struct return) or in memory (an sret first parameter,
// as clang passes structs over 16 bytes on x86-64); nil when f returns no
// struct.
func ReturnedStruct(f *ir.Func) (fields []types.Type, sret bool) {
	if HasSRetParam(f) {
		if pt, ok := f.Params[0].Typ.(*types.PointerType); ok {
			if st, ok := pt.ElemType.(*types.StructType); ok {
				return st.Fields, true
			}
		}
		return nil, false
	}
	if st, ok := f.Sig.RetType.(*types.StructType); ok {
		return st.Fields, false
	}
	return nil, false
}

// HasFuncAttr reports whether attrs hold one of want, directly or in an
// attribute group.
func HasFuncAttr(attrs []ir.FuncAttribute, want ...enum.FuncAttr) bool {
	for _, a := range attrs {
		switch x := a.(type) {
		case enum.FuncAttr:
			for _, w := range want {
				if x == w {
					return true
				}
			}
		case *ir.AttrGroupDef:
			if HasFuncAttr(x.FuncAttrs, want...) {
				return true
			}
		}
	}
	return false
}

// CloneInstInPlace is CloneInst keeping all of the instruction's metadata,
// for a copy that runs instead of the original, in the same function and
// the same dynamic scopes (a second version of a loop): what the original's
// alias scopes, access groups and the rest claim holds of the copy too.
func CloneInstInPlace(inst ir.Instruction, remap func(value.Value) value.Value) (ir.Instruction, error) {
	return cloneKeepMetadata(inst, remap)
}

// RenameIncoming makes the incoming values of blk's phis from old come from
// new.
func RenameIncoming(blk, old, new *ir.Block) {
	for _, inst := range blk.Insts {
		if phi, ok := inst.(*ir.InstPhi); ok {
			for _, in := range phi.Incs {
				if in.Pred == old {
					in.Pred = new
				}
			}
		}
	}
}
