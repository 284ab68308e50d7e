package irutil

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
)

// NumberInlineMetadata gives the unnumbered, uniqued metadata tuples
// attached to m's instructions (AD's alias scopes and scope lists) numbers,
// one per content, and adds them to m's metadata definitions, so that the
// module's text names each once (!7 = !{...}) instead of printing it in
// full on every load and store it is attached to: a gradient's cache scope
// list was half of its module's text, printed, written, trimmed and
// parsed by clang again for each access. LLVM uniques a tuple that is not
// distinct by its content, written inline or numbered alike, so the module
// LLVM reads is the same. Distinct tuples, numbered or not, are left as
// they are.
func NumberInlineMetadata(m *ir.Module) {
	next := int64(0)
	for _, md := range m.MetadataDefs {
		next = max(next, md.ID()+1)
	}
	byContent := map[string]*metadata.Tuple{}
	var number func(t *metadata.Tuple) *metadata.Tuple
	number = func(t *metadata.Tuple) *metadata.Tuple {
		if t == nil || t.Distinct || t.MetadataID != -1 {
			return t
		}
		for i, f := range t.Fields {
			if ft, ok := f.(*metadata.Tuple); ok && ft != nil {
				t.Fields[i] = number(ft)
			}
		}
		key := t.LLString()
		if c, ok := byContent[key]; ok {
			return c
		}
		t.MetadataID = metadata.MetadataID(next)
		next++
		m.MetadataDefs = append(m.MetadataDefs, t)
		byContent[key] = t
		return t
	}
	attached := func(v any) {
		md, ok := v.(interface{ MDAttachments() []*metadata.Attachment })
		if !ok {
			return
		}
		for _, a := range md.MDAttachments() {
			if t, ok := a.Node.(*metadata.Tuple); ok && t != nil {
				a.Node = number(t)
			}
		}
	}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				attached(inst)
			}
			attached(b.Term)
		}
	}
}
