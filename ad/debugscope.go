package ad

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// Derivatives carry no debug info: no DISubprogram, and their instructions
// no !dbg (irutil.CloneInst drops it). LLVM 14's inliner, inlining a callee
// that has debug info at a call without a location, leaves the callee's
// locations as they are, without an inlinedAt, in a function they do not
// belong to; once the derivative is itself inlined into a function compiled
// with -g, clang-14's DWARF writer crashes on them. A user's own realloc
// called by a cache's growth, or a callee compiled with -g called from the
// forward sweep, would be inlined so. keepDebugScopes marks such calls
// noinline at the call site: a call without !dbg, in a function m has but
// user had not (one AD generated) and without a DISubprogram, of a function
// with one. The user's own functions are left as they are.
func keepDebugScopes(m *ir.Module, user map[*ir.Func]bool) {
	for _, f := range m.Funcs {
		if user[f] || hasSubprogram(f) {
			continue
		}
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && !hasDbg(c.Metadata) && calleeHasSubprogram(c.Callee) {
					c.FuncAttrs = addNoInline(c.FuncAttrs)
				}
			}
			if c, ok := b.Term.(*ir.TermInvoke); ok && !hasDbg(c.Metadata) && calleeHasSubprogram(c.Invokee) {
				c.FuncAttrs = addNoInline(c.FuncAttrs)
			}
		}
	}
}

func hasSubprogram(f *ir.Func) bool {
	for _, a := range f.Metadata {
		if _, ok := a.Node.(*metadata.DISubprogram); ok && a.Name == "dbg" {
			return true
		}
	}
	return false
}

func hasDbg(md ir.Metadata) bool {
	for _, a := range md {
		if a.Name == "dbg" {
			return true
		}
	}
	return false
}

func calleeHasSubprogram(callee value.Value) bool {
	f, ok := irutil.StripCasts(callee).(*ir.Func)
	return ok && hasSubprogram(f)
}

// addNoInline adds noinline to a call site's attributes, unless they (or
// an attribute group among them) have it already.
func addNoInline(attrs []ir.FuncAttribute) []ir.FuncAttribute {
	if irutil.HasFuncAttr(attrs, enum.FuncAttrNoInline) {
		return attrs
	}
	return append(attrs, enum.FuncAttrNoInline)
}
