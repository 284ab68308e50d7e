package ad

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// What the user declares to Enzyme about functions and globals, in
// Enzyme's global forms
//
//	void *__enzyme_inactivefn[] = {(void *)log_message, ...};
//	void *__enzyme_inactive_global = &counter;            (or an array of them)
//	void *__enzyme_function_like[2] = {(void *)f, (void *)"log1p"};
//	void *__enzyme_allocation_like[4] = {(void *)alloc, (void *)SIZE_ARG, (void *)"FREE_ARGS", (void *)dealloc};
//
// and as attributes (__attribute__((enzyme_inactive)),
// enzyme_function_like("log1p")), which gozyme-cc turns into annotations
// "enzyme:inactive" and "enzyme:function_like:NAME" (package custom) or,
// on declarations, into the globals above. Any global whose name contains
// one of those names counts (Enzyme's rule), so each translation unit may
// have its own.

// annotationPrefix starts the annotations gozyme-cc's attribute macros
// make (custom.AnnotationPrefix).
const annotationPrefix = "enzyme:"

// Function attributes by which the rest of package ad recognizes a
// function-like or allocation-like function (Enzyme marks them the same
// way): "enzyme_math"="log1p" (mathRuleOf), "enzyme_allocator"="N" with N
// the index of the byte-size argument (irfacts.IsAllocation, allocSizeArg).
const (
	attrMath      = irfacts.AttrMath
	attrAllocator = irfacts.AttrAllocator
)

// allocLike is how the shadow of an allocation-like function's memory is
// released: dealloc (nil: never) called with the allocation call's
// arguments args[i] >= 0, and the shadow pointer for -1.
type allocLike struct {
	dealloc *ir.Func
	args    []int
}

// declarations is what readDeclarations finds.
type declarations struct {
	inactiveFns     map[*ir.Func]bool
	inactiveGlobals map[*ir.Global]bool
	allocs          map[*ir.Func]allocLike
}

// readDeclarations reads the declarations of m, marking function-like and
// allocation-like functions with their attributes.
func readDeclarations(m *ir.Module) (*declarations, error) {
	d := &declarations{inactiveFns: map[*ir.Func]bool{}, inactiveGlobals: map[*ir.Global]bool{}, allocs: map[*ir.Func]allocLike{}}
	for _, g := range m.Globals {
		if g.Init == nil {
			continue
		}
		name := g.Name()
		switch {
		case strings.Contains(name, "__enzyme_inactivefn"):
			for _, e := range elements(g.Init) {
				if f, ok := irutil.StripCasts(e).(*ir.Func); ok {
					d.inactiveFns[f] = true
				}
			}
		case strings.Contains(name, "__enzyme_inactive_global"):
			for _, e := range elements(g.Init) {
				if v, ok := irutil.StripCasts(e).(*ir.Global); ok {
					d.inactiveGlobals[v] = true
				}
			}
		case strings.Contains(name, "__enzyme_function_like"):
			elems := elements(g.Init)
			f, ok := funcElem(elems, 0)
			like := ""
			if len(elems) > 1 {
				like = irutil.CString(elems[1])
			}
			if !ok || like == "" {
				return nil, fmt.Errorf("@%s must be {(void *)function, (void *)\"name of the math function it behaves like\"}", name)
			}
			if err := setFunctionLike(f, like, "@"+name); err != nil {
				return nil, err
			}
		case strings.Contains(name, "__enzyme_allocation_like"):
			if err := d.readAllocationLike(g); err != nil {
				return nil, err
			}
		}
	}
	for _, an := range irutil.Annotations(m) {
		kind, ok := strings.CutPrefix(an.Text, annotationPrefix)
		if !ok {
			continue
		}
		switch x := an.Value.(type) {
		case *ir.Func:
			if kind == "inactive" {
				d.inactiveFns[x] = true
			}
			if like, ok := strings.CutPrefix(kind, "function_like:"); ok {
				if err := setFunctionLike(x, like, fmt.Sprintf("%s:%d", an.File, an.Line)); err != nil {
					return nil, err
				}
			}
		case *ir.Global:
			if kind == "inactive" {
				d.inactiveGlobals[x] = true
			}
		}
	}
	return d, nil
}

// elements lists the constants of a declaration global's initializer: an
// array's elements, or the one pointer.
func elements(init constant.Constant) []constant.Constant {
	switch x := init.(type) {
	case *constant.Array:
		return x.Elems
	case *constant.Struct:
		return x.Fields
	}
	return []constant.Constant{init}
}

// funcElem returns element i as a function.
func funcElem(elems []constant.Constant, i int) (*ir.Func, bool) {
	if i >= len(elems) {
		return nil, false
	}
	f, ok := irutil.StripCasts(elems[i]).(*ir.Func)
	return f, ok
}

// setFunctionLike marks f as differentiated like the math function like,
// which must have a derivative rule.
func setFunctionLike(f *ir.Func, like, from string) error {
	if r, _ := rules.Lookup(like, nil); r == nil {
		return fmt.Errorf("%s: '%s' is declared to behave like '%s', which gozyme has no derivative for (known: the C math functions such as log1p, exp, sin, pow)", from, f.Name(), like)
	}
	if old := irfacts.FuncAttr(f, attrMath); old != "" && old != like {
		return fmt.Errorf("%s: '%s' is declared to behave like both '%s' and '%s'", from, f.Name(), old, like)
	}
	setFuncAttr(f, attrMath, like)
	return nil
}

// readAllocationLike reads {alloc, size argument, "free arguments",
// dealloc}: the size argument an integer cast to a pointer, the free
// arguments a comma-separated list of alloc's argument indices with -1
// for the pointer it returned.
func (d *declarations) readAllocationLike(g *ir.Global) error {
	elems := elements(g.Init)
	bad := func(why string) error {
		return fmt.Errorf("@%s must be {(void *)allocator, (void *)SIZE_ARGUMENT, (void *)\"FREE_ARGUMENTS\", (void *)deallocator}: %s", g.Name(), why)
	}
	f, ok := funcElem(elems, 0)
	if !ok || len(elems) != 4 {
		return bad("four elements, the first a function")
	}
	size, ok := intElem(elems[1])
	if !ok || size < 0 || int(size) >= len(f.Sig.Params) {
		return bad(fmt.Sprintf("the size argument must be the index of one of the %d parameters of '%s'", len(f.Sig.Params), f.Name()))
	}
	var al allocLike
	if !activity.IsNullConstant(irutil.StripCasts(elems[3])) {
		if al.dealloc, ok = funcElem(elems, 3); !ok {
			return bad("the deallocator is no function")
		}
		spec := irutil.CString(elems[2])
		for _, s := range strings.Split(spec, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || i < -1 || i >= len(f.Sig.Params) {
				return bad(fmt.Sprintf("free arguments %q: each must be -1 (the allocated pointer) or the index of an argument of '%s'", spec, f.Name()))
			}
			al.args = append(al.args, i)
		}
		if len(al.args) != len(al.dealloc.Sig.Params) {
			return bad(fmt.Sprintf("free arguments %q name %d arguments; '%s' takes %d", spec, len(al.args), al.dealloc.Name(), len(al.dealloc.Sig.Params)))
		}
	}
	setFuncAttr(f, attrAllocator, strconv.Itoa(int(size)))
	d.allocs[f] = al
	return nil
}

// intElem reads an integer given as a pointer ((void *)1).
func intElem(c constant.Constant) (int64, bool) {
	switch x := c.(type) {
	case *constant.ExprIntToPtr:
		if i, ok := x.From.(*constant.Int); ok {
			return i.X.Int64(), true
		}
	case *constant.Null:
		return 0, true
	}
	return 0, false
}

func setFuncAttr(f *ir.Func, key, val string) {
	for i, a := range f.FuncAttrs {
		if p, ok := a.(ir.AttrPair); ok && p.Key == key {
			f.FuncAttrs[i] = ir.AttrPair{Key: key, Value: val}
			return
		}
	}
	f.FuncAttrs = append(f.FuncAttrs, ir.AttrPair{Key: key, Value: val})
}

// calleeFunc is the function a call calls directly (casts stripped).
func calleeFunc(c *ir.InstCall) (*ir.Func, bool) {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return f, ok
}

// mathRuleOf is the derivative rule of a call of f returning t: the rule
// of the math function f is declared to behave like, else of f's name.
func mathRuleOf(f *ir.Func, t types.Type) *rules.Rule {
	name := f.Name()
	if like := irfacts.FuncAttr(f, attrMath); like != "" {
		name = like
	}
	r, _ := rules.Lookup(name, t)
	return r
}

// deallocLike releases, in the reverse sweep, the shadow sp of the memory
// an allocation-like call x returned, with the deallocator its declaration
// names (nothing when it names none), given x's arguments and, for -1,
// the shadow.
func (r *reverseGen) deallocLike(blk, at *ir.Block, x *ir.InstCall, al allocLike, sp value.Value) {
	if al.dealloc == nil {
		return
	}
	args := make([]value.Value, len(al.args))
	for i, k := range al.args {
		var v value.Value = sp
		if k >= 0 {
			v = r.lookup(blk, at, x.Args[k])
		}
		want := al.dealloc.Sig.Params[i]
		if !v.Type().Equal(want) {
			var pre []ir.Instruction
			if c, err := coerce(v, want, &pre); err == nil {
				blk.Insts = append(blk.Insts, pre...)
				v = c
			}
		}
		args[i] = v
	}
	blk.NewCall(al.dealloc, args...)
}

// inactiveSink is the shadow of a global declared inactive where one is
// needed (a pointer to it chosen together with pointers that have
// shadows): zeroed memory of the global's type, one per differentiated
// function and call, so that no derivative enters or leaves the global
// through it and the calls' adjoints never mix.
func (r *reverseGen) inactiveSink(g *ir.Global) value.Value {
	if s, ok := r.sinks[g]; ok {
		return s
	}
	if r.sinks == nil {
		r.sinks = map[*ir.Global]*ir.InstAlloca{}
	}
	s := r.newCacheSlot(g.ContentType, constant.NewZeroInitializer(g.ContentType))
	r.sinks[g] = s
	return s
}
