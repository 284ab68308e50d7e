package preopt

import (
	"sort"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// AD-aware inlining. LLVM's inliner leaves a large linkonce_odr callee (a
// template such as a generic integrator) a call even where its caller is
// its only user in the program: another translation unit could call it
// too, so the last-call bonus of an internal function does not apply. AD
// then differentiates the call as a split pair, an augmented forward
// that records what the callee's reverse needs and that reverse, apart
// from the caller's; inlined, the caller's gradient is one combined
// function, without the pair's boundary and with the rewrites of
// combined mode (store forwarding) in reach (bench/results/history.md).
// Inlining a function its only call site calls changes neither the
// program's meaning nor its size.

// singleUseInlines returns the names, sorted, of the functions to force
// inline before AD: each a linkonce_odr definition whose one reference in
// the module (text, the module's IR as written) is the callee of a direct
// call or invoke in a function that a root of AD reaches (a function
// passed to an Enzyme entry point, and transitively what it calls
// directly). Left out: functions marked noinline, optnone or alwaysinline
// or with an enzyme_* attribute, variadic ones, those named in noInline
// (custom derivatives and the like: they must stay calls), and the C++
// standard library's functions, some of which AD knows by name
// (hashinsert.go, inactivelib.go).
func singleUseInlines(m *ir.Module, text string, noInline map[string]bool) []string {
	reach := adReach(m)
	// Candidates first, then one scan of the text counts their references.
	cand := map[string]bool{}
	for caller := range reach {
		for _, b := range caller.Blocks {
			check := func(callee *ir.Func) {
				if callee != nil && callee != caller && inlineCandidate(callee, noInline) {
					cand[callee.Name()] = true
				}
			}
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok {
					f, _ := c.Callee.(*ir.Func)
					check(f)
				}
			}
			if inv, ok := b.Term.(*ir.TermInvoke); ok {
				f, _ := inv.Invokee.(*ir.Func)
				check(f)
			}
		}
	}
	if len(cand) == 0 {
		return nil
	}
	var names []string
	for name, n := range references(text, cand) {
		if n == 1 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// inlineCandidate reports whether f's body may be forced inline: a
// linkonce_odr definition with none of the attributes or names that keep
// it a call.
func inlineCandidate(f *ir.Func, noInline map[string]bool) bool {
	if len(f.Blocks) == 0 || f.Linkage != enum.LinkageLinkOnceODR || f.Sig.Variadic || noInline[f.Name()] {
		return false
	}
	for _, a := range []enum.FuncAttr{enum.FuncAttrNoInline, enum.FuncAttrOptNone, enum.FuncAttrAlwaysInline} {
		if irutil.HasFuncAttr(f.FuncAttrs, a) {
			return false
		}
	}
	return !standardLibrary(f.Name()) && !strings.Contains(f.Name(), "enzyme") && !enzymeAttr(f.FuncAttrs)
}

// enzymeAttr reports a string attribute whose key starts with "enzyme"
// ("enzyme_math", "enzyme_allocator", "enzyme_inactive", ...): AD reads
// such a function's calls by the attribute, not through its body.
func enzymeAttr(attrs []ir.FuncAttribute) bool {
	for _, a := range attrs {
		switch x := a.(type) {
		case ir.AttrString:
			if strings.HasPrefix(string(x), "enzyme") {
				return true
			}
		case ir.AttrPair:
			if strings.HasPrefix(x.Key, "enzyme") {
				return true
			}
		case *ir.AttrGroupDef:
			if enzymeAttr(x.FuncAttrs) {
				return true
			}
		}
	}
	return false
}

// standardLibrary reports a mangled name in namespace std or __gnu_cxx.
func standardLibrary(name string) bool {
	for _, p := range []string{"_ZSt", "_ZNSt", "_ZNKSt", "_ZNSo", "_ZNSi", "_ZNKSo", "_ZNKSi", "_ZNSa", "_ZNKSa", "_ZNSs", "_ZNKSs", "_ZN9__gnu_cxx", "_ZNK9__gnu_cxx", "_ZSa", "_ZSs"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// adReach returns the functions defined in m that AD differentiates or
// may: those passed to a call of an Enzyme entry point (a function whose
// name holds "__enzyme_"), and what they call directly, transitively.
func adReach(m *ir.Module) map[*ir.Func]bool {
	reach := map[*ir.Func]bool{}
	var work []*ir.Func
	add := func(f *ir.Func) {
		if f != nil && len(f.Blocks) > 0 && !reach[f] {
			reach[f] = true
			work = append(work, f)
		}
	}
	entry := func(callee, first interface{}) {
		if f, ok := callee.(*ir.Func); ok && strings.Contains(f.Name(), "__enzyme_") {
			if root, ok := first.(*ir.Func); ok {
				add(root)
			}
		}
	}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && len(c.Args) > 0 {
					entry(irutil.StripCasts(c.Callee), irutil.StripCasts(c.Args[0]))
				}
			}
			if inv, ok := b.Term.(*ir.TermInvoke); ok && len(inv.Args) > 0 {
				entry(irutil.StripCasts(inv.Invokee), irutil.StripCasts(inv.Args[0]))
			}
		}
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok {
					callee, _ := irutil.StripCasts(c.Callee).(*ir.Func)
					add(callee)
				}
			}
			if inv, ok := b.Term.(*ir.TermInvoke); ok {
				callee, _ := irutil.StripCasts(inv.Invokee).(*ir.Func)
				add(callee)
			}
		}
	}
	return reach
}

// references counts, for each name of names, the references to that
// global in the module's text other than its definition or declaration:
// each @name or @"name" (a whole identifier), anywhere (instructions,
// initializers, aliases, metadata). One pass over the text.
func references(text string, names map[string]bool) map[string]int {
	counts := map[string]int{}
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		at := i
		var name string
		if i+1 < len(text) && text[i+1] == '"' {
			end := strings.IndexByte(text[i+2:], '"')
			if end < 0 {
				break
			}
			name = text[i+2 : i+2+end]
			i += 2 + end
		} else {
			j := i + 1
			for j < len(text) && identChar(text[j]) {
				j++
			}
			name = text[i+1 : j]
			i = j - 1
		}
		if names[name] && !definesOrDeclares(text, at) {
			counts[name]++
		}
	}
	for name := range names {
		if _, ok := counts[name]; !ok {
			counts[name] = 0
		}
	}
	return counts
}

// identChar reports a character of an unquoted LLVM identifier.
func identChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
}

// definesOrDeclares reports whether the reference at text[at] is the name
// of a define or declare line.
func definesOrDeclares(text string, at int) bool {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	line := text[start:at]
	return strings.HasPrefix(line, "define ") || strings.HasPrefix(line, "declare ")
}
