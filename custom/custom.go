// Package custom finds and checks user-supplied derivatives: Enzyme's
// registration globals
//
//	void *__enzyme_register_gradient_NAME[3]   = {f, aug, rev};
//	void *__enzyme_register_derivative_NAME[2] = {f, fwd};
//
// and the enzyme("augment"|"gradient"|"forward", rule) attribute, which
// gozyme-cc turns into clang's annotate attribute (llvm.global.annotations).
package custom

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// AttributeMacro is the -D definition gozyme-cc compiles with: the
// attribute becomes an annotation the link step reads (its arguments, the
// rule and the kind, are what gozyme-cc reads from declarations, see
// DeclaredInAST), and the function stays out of line so its calls can take
// the rule.
const AttributeMacro = `enzyme(kind, fn)=annotate("enzyme:" kind, fn, kind), noinline`

// AnnotationPrefix starts the annotation strings of the attribute.
const AnnotationPrefix = "enzyme:"

// Rule is the custom derivative of one function.
type Rule struct {
	Func     *ir.Func
	Augment  *ir.Func // may be nil: the reverse needs no tape
	Gradient *ir.Func // reverse rule
	Forward  *ir.Func // forward-mode rule
	// Where each part was registered, for messages.
	AugmentFrom, GradientFrom, ForwardFrom string
}

// Find reads every custom derivative registered in m.
func Find(m *ir.Module) (map[*ir.Func]*Rule, error) {
	rules := map[*ir.Func]*Rule{}
	get := func(f *ir.Func) *Rule {
		r := rules[f]
		if r == nil {
			r = &Rule{Func: f}
			rules[f] = r
		}
		return r
	}
	for _, g := range m.Globals {
		name := g.Name()
		switch {
		case strings.HasPrefix(name, "__enzyme_register_gradient"):
			fs, err := funcList(g, 3)
			if err != nil {
				return nil, err
			}
			r := get(fs[0])
			if err := set(&r.Augment, &r.AugmentFrom, fs[1], registeredFrom(name, "augment"), fs[0], "augmented forward"); err != nil {
				return nil, err
			}
			if err := set(&r.Gradient, &r.GradientFrom, fs[2], registeredFrom(name, "gradient"), fs[0], "gradient"); err != nil {
				return nil, err
			}
		case name == "llvm.global.annotations":
			// Where the global is: the first of two conflicting rules
			// named is the first in the module.
			if err := readAnnotations(m, get); err != nil {
				return nil, err
			}
		case strings.HasPrefix(name, "__enzyme_register_derivative"):
			fs, err := funcList(g, 2)
			if err != nil {
				return nil, err
			}
			r := get(fs[0])
			if err := set(&r.Forward, &r.ForwardFrom, fs[1], registeredFrom(name, "forward"), fs[0], "forward derivative"); err != nil {
				return nil, err
			}
		}
	}
	// By name, so that the first misfit reported is the same on every run.
	funcs := make([]*ir.Func, 0, len(rules))
	for f := range rules {
		funcs = append(funcs, f)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Name() < funcs[j].Name() })
	for _, f := range funcs {
		r := rules[f]
		if !typeDeclared(r) {
			delete(rules, f)
			continue
		}
		if err := Check(r); err != nil {
			return nil, err
		}
	}
	return rules, nil
}

// typeDeclared gives the functions that only gozyme-cc's registrations
// declare (as void(): the TU knew their names, not their IR types), and
// that no module of the link defines with bitcode, the types the Enzyme
// ABI gives them. An augmented forward of unknown type is taken to return
// a tape ({ret, dret} when the function returns a pointer). It reports
// false for a rule whose function itself is unknown: nothing in the link
// calls it.
func typeDeclared(r *Rule) bool {
	voidDecl := func(g *ir.Func) bool {
		return g != nil && len(g.Blocks) == 0 && len(g.Sig.Params) == 0 && !g.Sig.Variadic && types.Equal(g.Sig.RetType, types.Void)
	}
	ours := func(g *ir.Func, from string) bool { return g == nil || strings.Contains(from, seenBy) }
	unknown := func(g *ir.Func, from string) bool { return g != nil && ours(g, from) && voidDecl(g) }
	f := r.Func
	if voidDecl(f) && ours(r.Augment, r.AugmentFrom) && ours(r.Gradient, r.GradientFrom) && ours(r.Forward, r.ForwardFrom) {
		return false
	}
	shadowed := pointerShadows(f)
	if unknown(r.Augment, r.AugmentFrom) {
		var ret types.Type = types.I8Ptr
		if types.IsPointer(f.Sig.RetType) {
			ret = types.NewStruct(f.Sig.RetType, f.Sig.RetType) // {ret, dret}
		}
		retype(r.Augment, ret, shadowed)
	}
	if unknown(r.Gradient, r.GradientFrom) {
		var tape types.Type
		if r.Augment != nil {
			tape, _ = checkAugment(r, shadowed) // a misfit augmented forward is Check's to report
		}
		var ret types.Type = types.Void
		switch floats := floatParams(f); len(floats) {
		case 0:
		case 1:
			ret = floats[0]
		default:
			ret = types.NewStruct(floats...)
		}
		retype(r.Gradient, ret, gradientParams(f, shadowed, tape))
	}
	if unknown(r.Forward, r.ForwardFrom) {
		retype(r.Forward, f.Sig.RetType, tangentParams(f))
	}
	return true
}

// retype gives a function declaration a new signature.
func retype(g *ir.Func, ret types.Type, params []types.Type) {
	g.Sig = types.NewFunc(ret, params...)
	g.Params = make([]*ir.Param, len(params))
	for i, t := range params {
		g.Params[i] = ir.NewParam("", t)
	}
	g.Typ = nil
	g.Type()
}

// set records one part of a rule; a different function for the same part
// is an error naming both registrations.
func set(slot **ir.Func, from *string, f *ir.Func, where string, of *ir.Func, what string) error {
	if f == nil {
		return nil
	}
	if *slot != nil && *slot != f {
		return fmt.Errorf("two different %s rules for '%s': '%s' (%s) and '%s' (%s)", what, of.Name(), (*slot).Name(), *from, f.Name(), where)
	}
	*slot, *from = f, where
	return nil
}

// funcList reads a registration global: an array of n function pointers
// (null where a part is not given).
func funcList(g *ir.Global, n int) ([]*ir.Func, error) {
	arr, ok := g.Init.(*constant.Array)
	if !ok || len(arr.Elems) != n {
		return nil, fmt.Errorf("@%s must be an array of %d function pointers", g.Name(), n)
	}
	out := make([]*ir.Func, n)
	for i, e := range arr.Elems {
		if _, isNull := e.(*constant.Null); isNull && i > 0 {
			continue
		}
		f, ok := irutil.StripCasts(e).(*ir.Func)
		if !ok {
			return nil, fmt.Errorf("@%s: element %d is not a function", g.Name(), i)
		}
		out[i] = f
	}
	return out, nil
}

// readAnnotations reads enzyme(...) attributes from llvm.global.annotations:
// entries {annotated value, string, file, line, args}. The annotations of
// Enzyme's other attributes (enzyme_inactive, enzyme_function_like, ...;
// see AttributeMacros) are package ad's to read.
func readAnnotations(m *ir.Module, get func(*ir.Func) *Rule) error {
	for _, an := range irutil.Annotations(m) {
		kind, ok := strings.CutPrefix(an.Text, AnnotationPrefix)
		if !ok || IsAttributeKind(kind) {
			continue
		}
		f, ok := an.Value.(*ir.Func)
		if !ok || an.Args == nil {
			continue
		}
		where := fmt.Sprintf("%s:%d", an.File, an.Line)
		rule := annotationArg(an.Args)
		if rule == nil {
			return fmt.Errorf("%s: enzyme(\"%s\", ...) on '%s' does not name a function", where, kind, f.Name())
		}
		r := get(f)
		var err error
		switch kind {
		case "augment":
			err = set(&r.Augment, &r.AugmentFrom, rule, where, f, "augmented forward")
		case "gradient":
			err = set(&r.Gradient, &r.GradientFrom, rule, where, f, "gradient")
		case "forward":
			err = set(&r.Forward, &r.ForwardFrom, rule, where, f, "forward derivative")
		default:
			err = fmt.Errorf("%s: unknown enzyme(\"%s\", ...) on '%s' (want augment, gradient or forward)", where, kind, f.Name())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// annotationArg returns the function given as the annotation's argument:
// a pointer to a private struct whose first field is it.
func annotationArg(c constant.Constant) *ir.Func {
	g, ok := irutil.StripCasts(c).(*ir.Global)
	if !ok || g.Init == nil {
		return nil
	}
	st, ok := g.Init.(*constant.Struct)
	if !ok || len(st.Fields) == 0 {
		return nil
	}
	f, _ := irutil.StripCasts(st.Fields[0]).(*ir.Func)
	return f
}

// Check verifies that a rule's functions fit f's signature, per the Enzyme
// ABI: every pointer parameter of f is followed by its shadow; aug returns
// the tape (a pointer) or nothing, or when f returns a pointer {ret, dret}
// or {tape, ret, dret} (see checkAugment); rev takes f's parameters, the return's
// adjoint when f returns a float, and the tape when aug returns one, and
// returns the adjoints of f's float parameters (one value, or a struct of
// them); fwd takes every float or pointer parameter followed by its tangent
// and returns the tangent of f's result.
func Check(r *Rule) error {
	f := r.Func
	if r.Augment != nil && r.Gradient == nil {
		return fmt.Errorf("'%s' has an augmented forward '%s' (%s) but no gradient", f.Name(), r.Augment.Name(), r.AugmentFrom)
	}
	shadowed := pointerShadows(f)
	var tape types.Type // what the augmented forward gives the gradient
	if a := r.Augment; a != nil {
		var err error
		if tape, err = checkAugment(r, shadowed); err != nil {
			return err
		}
	}
	if g := r.Gradient; g != nil {
		params := paramTypes(g)
		sret := irutil.HasSRetParam(g)
		if sret {
			params = params[1:]
		}
		if err := typesFit(f, g, r.GradientFrom, params, gradientParams(f, shadowed, tape)); err != nil {
			return err
		}
		floats := floatParams(f)
		if !sret && !returnFits(g.Sig.RetType, floats) {
			return mismatch(f, g, r.GradientFrom, "returns %s; it must return the adjoints of the %d floating-point parameters of '%s' (%s)", g.Sig.RetType, len(floats), f.Name(), typeList(floats))
		}
	}
	if fw := r.Forward; fw != nil {
		if err := paramsFit(f, fw, r.ForwardFrom, tangentParams(f)); err != nil {
			return err
		}
		if !types.Equal(fw.Sig.RetType, f.Sig.RetType) {
			return mismatch(f, fw, r.ForwardFrom, "returns %s; a forward derivative returns the tangent of the result (%s)", fw.Sig.RetType, f.Sig.RetType)
		}
	}
	return nil
}

// checkAugment checks the augmented forward of a rule and returns the type
// of the tape it gives the gradient (nil for none). It takes f's
// parameters with shadows. For f returning a scalar it returns the tape (a
// pointer) or nothing; for f returning a pointer it returns the primal
// result and its shadow, {ret, dret}, or with a tape first, {tape, ret,
// dret} (in C a struct of three pointers, which clang returns through a
// hidden first parameter).
func checkAugment(r *Rule, shadowed []types.Type) (types.Type, error) {
	f, a := r.Func, r.Augment
	fields, sret := irutil.ReturnedStruct(a)
	params := paramTypes(a)
	if sret {
		params = params[1:]
	}
	if err := typesFit(f, a, r.AugmentFrom, params, shadowed); err != nil {
		return nil, err
	}
	if !types.IsPointer(f.Sig.RetType) {
		switch rt := a.Sig.RetType; {
		case sret || !types.Equal(rt, types.Void) && !types.IsPointer(rt):
			return nil, mismatch(f, a, r.AugmentFrom, "returns %s; an augmented forward returns its tape as a pointer, or nothing", describeReturn(a))
		case types.IsPointer(rt):
			return rt, nil
		}
		return nil, nil
	}
	ok := len(fields) == 2 || len(fields) == 3
	for _, t := range fields {
		ok = ok && types.IsPointer(t)
	}
	if !ok {
		return nil, mismatch(f, a, r.AugmentFrom, "returns %s; '%s' returns a pointer, so its augmented forward returns a struct of the result and its shadow, {ret, dret}, or {tape, ret, dret}", describeReturn(a), f.Name())
	}
	if len(fields) == 3 {
		return fields[0], nil
	}
	return nil, nil
}

// describeReturn names what a function returns, through sret too.
func describeReturn(f *ir.Func) string {
	if fields, sret := irutil.ReturnedStruct(f); sret {
		return fmt.Sprintf("{%s} (in memory)", typeList(fields))
	}
	return f.Sig.RetType.String()
}

// pointerShadows lists f's parameter types, each pointer followed by its
// shadow: the parameters of an augmented forward, and the first ones of a
// gradient.
func pointerShadows(f *ir.Func) []types.Type { return withShadows(f, types.IsPointer) }

// tangentParams lists f's parameter types, each float or pointer followed
// by its tangent: the parameters of a forward derivative.
func tangentParams(f *ir.Func) []types.Type {
	return withShadows(f, func(t types.Type) bool { return types.IsPointer(t) || isFloat(t) })
}

// gradientParams lists the parameters of f's gradient: f's with pointer
// shadows (shadowed), the adjoint of f's result when it is a float, and
// the tape of the augmented forward unless it is nil.
func gradientParams(f *ir.Func, shadowed []types.Type, tape types.Type) []types.Type {
	want := append([]types.Type(nil), shadowed...)
	if isFloat(f.Sig.RetType) {
		want = append(want, f.Sig.RetType)
	}
	if tape != nil {
		want = append(want, tape)
	}
	return want
}

// floatParams lists the types of f's floating-point parameters, whose
// adjoints a gradient returns.
func floatParams(f *ir.Func) []types.Type {
	var floats []types.Type
	for _, p := range f.Params {
		if isFloat(p.Typ) {
			floats = append(floats, p.Typ)
		}
	}
	return floats
}

// withShadows lists f's parameter types, each one for which dup holds
// followed by a second of the same type.
func withShadows(f *ir.Func, dup func(types.Type) bool) []types.Type {
	var out []types.Type
	for _, p := range f.Params {
		out = append(out, p.Typ)
		if dup(p.Typ) {
			out = append(out, p.Typ)
		}
	}
	return out
}

func paramsFit(f, rule *ir.Func, from string, want []types.Type) error {
	return typesFit(f, rule, from, paramTypes(rule), want)
}

func typesFit(f, rule *ir.Func, from string, got, want []types.Type) error {
	if len(got) != len(want) {
		return mismatch(f, rule, from, "takes %d parameters (%s); it must take %d (%s)", len(got), typeList(got), len(want), typeList(want))
	}
	for i := range got {
		if !types.Equal(got[i], want[i]) && !(types.IsPointer(got[i]) && types.IsPointer(want[i])) {
			return mismatch(f, rule, from, "parameter %d is %s; it must be %s", i+1, got[i], want[i])
		}
	}
	return nil
}

// returnFits accepts the adjoints returned as one value, a struct of them
// (or the x86-64 coercions clang uses for small structs).
func returnFits(rt types.Type, floats []types.Type) bool {
	switch len(floats) {
	case 0:
		return types.Equal(rt, types.Void)
	case 1:
		return types.Equal(rt, floats[0])
	}
	switch rt.(type) {
	case *types.StructType, *types.VectorType:
		return true
	}
	return false
}

func mismatch(f, rule *ir.Func, from, format string, args ...interface{}) error {
	return fmt.Errorf("custom derivative '%s' of '%s' (%s) does not fit: %s", rule.Name(), f.Name(), from, fmt.Sprintf(format, args...))
}

func paramTypes(f *ir.Func) []types.Type {
	out := make([]types.Type, len(f.Params))
	for i, p := range f.Params {
		out[i] = p.Typ
	}
	return out
}

func typeList(ts []types.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func isFloat(t types.Type) bool {
	_, ok := t.(*types.FloatType)
	return ok
}

// registered matches, in textual IR, the function a registration global
// names first, and annotation entries with the function they annotate;
// declaredGlobal matches Enzyme's other declaration globals
// (__enzyme_inactivefn = {f, g, ...}, __enzyme_function_like = {f, "name"},
// __enzyme_allocation_like = {f, size, "free args", free}), whose
// functions funcRef finds.
var (
	registered     = regexp.MustCompile(`(?m)^@"?__enzyme_register_(?:gradient|derivative)\S* = .*?\[i8\* (?:bitcast \([^@]*)?@([-\w.$]+|"[^"]+")`)
	declaredGlobal = regexp.MustCompile(`(?m)^@"?\S*__enzyme_(?:inactivefn|function_like|allocation_like)\S* = .*$`)
	funcRef        = regexp.MustCompile(`\(\S+ \([^()]*\)\* @([-\w.$]+|"[^"]+") to i8\*\)`)
	annotated      = regexp.MustCompile(`\{ i8\* (?:bitcast \([^@]*)?@([-\w.$]+|"[^"]+")[^{}]*?@(\.str[.\d]*)`)
	strGlobal      = regexp.MustCompile(`(?m)^@(\.str[.\d]*) = .*c"([^"]*)"`)
)

// NamesInText returns the functions with custom derivatives in a module's
// textual IR, and those Enzyme's other attributes and globals declare
// (inactive, function-like, allocation-like), sorted: the pre-AD optimizer
// must not inline them (their calls take the rule, or are what the
// declaration describes).
func NamesInText(text string) []string {
	set := map[string]bool{}
	for _, m := range registered.FindAllStringSubmatch(text, -1) {
		set[strings.Trim(m[1], `"`)] = true
	}
	for _, line := range declaredGlobal.FindAllString(text, -1) {
		for _, m := range funcRef.FindAllStringSubmatch(line, -1) {
			set[strings.Trim(m[1], `"`)] = true
		}
	}
	if strings.Contains(text, "@llvm.global.annotations") {
		strs := map[string]string{}
		for _, m := range strGlobal.FindAllStringSubmatch(text, -1) {
			strs[m[1]] = m[2]
		}
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "@llvm.global.annotations") {
				continue
			}
			for _, m := range annotated.FindAllStringSubmatch(line, -1) {
				if strings.HasPrefix(strs[m[2]], AnnotationPrefix) {
					set[strings.Trim(m[1], `"`)] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
