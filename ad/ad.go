// Package ad is gozyme's automatic-differentiation engine. It takes an
// optimized LLVM module (llir) and replaces every call of an Enzyme entry
// point (__enzyme_autodiff and friends) by a call of a derivative it
// synthesizes. It knows nothing about command lines or files.
package ad

import (
	"io"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// differ holds the state of one module's differentiation.
type differ struct {
	m *ir.Module
	// writeSums: what each function may write (writesum.go).
	writeSums map[*ir.Func]*writeSummary
	tagSums   map[*ir.Func]writeTags // what a call may write, by TBAA tags (tbaaalias.go)
	// paramCaptures: whether a function may capture a parameter (capture.go).
	paramCaptures map[paramKey]bool
	inactive      map[*ir.Func]bool // functions declared inactive (declared.go)
	// globals declared inactive: derivatives written there are dropped.
	inactiveGlobals map[*ir.Global]bool
	allocs          map[*ir.Func]allocLike // allocation-like functions (declared.go)
	declErr         error                  // a malformed declaration
	specs           map[string]*ir.Func    // functions specialized for constant function arguments (abispec.go)
	grads           map[string]*ir.Func    // combined gradients, by generated name
	sums            *summaries             // what callees write derivatives through (summary.go)
	lostGlobals     map[*ir.Global]error   // globals derivatives are written into, without a shadow (unmet.go)
	analyzed        []analyzedFunc         // functions whose derivatives were generated (unmet.go)
	splits          map[string]*splitGrad  // augmented forward/reverse pairs, by name
	prep            map[*ir.Func]*ir.Func  // functions as AD sees them (see prepared)
	tapeRT          *tapeStack             // the tape stack's runtime, once defined (tapestack.go)
	shadowRT        map[int]*shadowSet     // the shadow sets' runtimes by derivative order, once defined (shadowset.go)
	shadowLevels    map[*ir.Func]int       // derivative orders of functions (shadowset.go)
	custom          map[*ir.Func]*Custom   // user-supplied derivatives
	fwds            map[string]*forwardGen // forward-mode derivatives, by name
	retainables     []*retainable          // combined gradients whose caches may be retained (retain.go)
	picks           map[*ir.InstCall]pick  // primal fmin/fmax calls -> the bit their reverse reads (pick.go)
	taken           map[*ir.Func]bool      // functions whose address the module takes (dispatch.go)
	// globalEscapes: pointers with shadows stored into globals without
	// (globalescape.go).
	globalEscapes map[*ir.Global]*globalEscape
	// ptrBitsOut and ptrBitsIn: the first place a pointer's bits left a
	// differentiated function as an integer, and the first access through
	// a pointer made from integer bits of unknown origin (lostptrbits.go).
	ptrBitsOut, ptrBitsIn *ptrBitsPlace
	// runtimeActivity checks shadows that may be their primal at run time
	// (Options.RuntimeActivity, runtimeactivity.go).
	runtimeActivity bool
	// gpu: the module is GPU device code (gpu.go).
	gpu bool
	// zeroChecked: stores of 4 unknown bytes into memory with a shadow
	// that the reverse sweep checks the shadow of (unknownbits.go).
	zeroChecked map[*ir.InstStore]bool
	// note receives remarks (Options.Note), may be nil.
	note func(string)
	// gpuLoopRecords is Options.GPULoopRecords.
	gpuLoopRecords int64
	// gpuPlainAdjoints is Options.GPUPlainAdjoints (benchmarks only).
	gpuPlainAdjoints bool
	// typeReport is Options.TypeReport, may be nil.
	typeReport io.Writer
	// unparsed is Options.Unparsed, may be nil.
	unparsed func(*ir.Func) bool
	// constShadows are the shadow globals of constant globals, per mode
	// (constshadow.go).
	constShadows map[constShadowKey]*ir.Global
	// bits is the type analysis of the AD region and the rewrite that made
	// the floats it moves as integers floats (retype.go).
	bits *retyper
	omp  ompState // OpenMP sites and prepared regions (ompprep.go)
	// iterHolders and iterCopies: functions calling __enzyme_iter, and
	// their stepped copies (iter.go).
	iterHolders map[*ir.Func]bool
	iterCopies  map[*ir.Func]*ir.Func
	// cstrings are the C strings generated code passes (cString).
	cstrings map[string]value.Value
	// errLogger is the module's enzymeLogError, looked up once
	// (findErrorLogger).
	errLogger struct {
		done bool
		lg   *errorLogger
		err  error
	}
	// nextMetadataID is the number newLoopID gives its next loop ID (it
	// alone adds metadata definitions), 0 until it has read the module's.
	nextMetadataID int64
	// versionTwins maps the loop ID of an inner loop's forward copy made
	// to be vectorized to the ID of its scalar version (loopversion.go).
	versionTwins map[*metadata.Tuple]*metadata.Tuple
}

// prepared returns f as the AD engine differentiates it: f itself, or, when
// f has invokes, a copy without exception edges (derivatives are for runs
// that do not throw); either with its undefined lanes refined to zeros
// (refineUndef) and its calls through constant tables of functions made
// direct (resolveTableCalls) and its vectors of pointers taken apart into
// lanes (scalarizePointerVectors).
func (d *differ) prepared(f *ir.Func) (*ir.Func, error) {
	if f.Sig.Variadic {
		return nil, errorAt(f, nil, "'%s' takes a variable argument list (...), which gozyme cannot differentiate through (va_arg); give it fixed parameters or a custom derivative", f.Name())
	}
	if p, ok := d.prep[f]; ok {
		return p, nil
	}
	p, err := d.preparedCopy(f, false)
	if err != nil {
		return nil, err
	}
	d.prep[f] = p
	d.prep[p] = p // a copy is its own preparation (virtual calls name it)
	return p, nil
}

// preparedCopy makes f as AD differentiates it (see prepared): a copy when
// clone asks for one (the type analysis's region, retype.go) or f needs
// one, else f itself.
func (d *differ) preparedCopy(f *ir.Func, clone bool) (*ir.Func, error) {
	if d.unparsed != nil && d.unparsed(f) {
		return nil, errorAt(f, nil, "internal error: the body of '%s' was left out of the parse (a function the link did not expect AD to reach)", f.Name())
	}
	p := f
	dispatch := d.hasDispatchableCall(f)
	if irutil.HasInvoke(f) {
		if err := checkCatches(f); err != nil { // catchpads.go
			return nil, err
		}
	}
	if clone || irutil.HasInvoke(f) || dispatch {
		var err error
		if p, err = irutil.CloneWithoutUnwind(f); err != nil {
			return nil, errorAt(f, nil, "%v", err)
		}
	}
	if !dispatch && p != f {
		// An invoke through a function pointer (a std::function called
		// where an exception may unwind) is a call in the copy.
		dispatch = d.hasDispatchableCall(p)
	}
	p, err := d.prepareOMP(f, p)
	if err != nil {
		return nil, err
	}
	if err := scalarizePointerVectors(p); err != nil {
		return nil, err // ptrvectors.go
	}
	lowerX86Vector(p)  // x86lower.go
	unpunFloatPairs(p) // floatpun.go
	directCastCalls(p) // castcallee.go
	resolveTableCalls(p)
	if dispatch {
		if err := d.dispatchIndirectCalls(p); err != nil {
			return nil, errorAt(f, nil, "%v", err)
		}
	}
	if err := refineUndef(p); err != nil {
		return nil, errorAt(f, nil, "%v", err)
	}
	if d.gpu {
		plainLdg(p) // gpucheck.go
		if err := checkGPU(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Differentiate replaces every Enzyme entry-point call in m by a call of a
// synthesized derivative. It returns how many calls it replaced. On error the
// module may be partly rewritten and must be discarded.
func Differentiate(m *ir.Module, opts Options) (int, error) {
	invoked := invokedRoots(m) // invokedroot.go
	roots, err := findRoots(m)
	if err != nil {
		return 0, err
	}
	defer finishIters(m)
	if len(roots) == 0 {
		reinvoke(invoked)
		return 0, nil
	}
	user := make(map[*ir.Func]bool, len(m.Funcs))
	for _, f := range m.Funcs {
		user[f] = true
	}
	d := newDiffer(m, opts)
	if d.declErr != nil {
		return 0, d.declErr
	}
	if err := d.retypeRegion(roots); err != nil {
		return 0, err
	}
	for _, rt := range innerFirst(roots) {
		before := len(m.Funcs)
		if err := d.lowerRecovering(rt); err != nil {
			return 0, rt.annotate(d.inKernel(rt, err))
		}
		d.stepIters(m.Funcs[before:])
	}
	if d.gpu {
		for _, f := range m.Funcs {
			if !user[f] && len(f.Blocks) > 0 {
				markConvergent(f) // gpu.go
			}
		}
	}
	if err := d.lostGlobalError(); err != nil {
		return 0, err
	}
	if err := d.pointerBitsRoundTrip(); err != nil {
		return 0, err
	}
	d.stackTapes()
	d.retainCaches()
	if d.bits != nil {
		d.bits.dropDebugInfo()
	}
	if err := d.versionLoops(m, user); err != nil {
		return 0, err
	}
	keepDebugScopes(m, user)
	reinvoke(invoked)
	return len(roots), nil
}

// lowerRecovering is lower, with a panic (a bug of gozyme's) turned into an
// internal error naming the function differentiated and the call asking
// for it, so that no link goes on after it.
func (d *differ) lowerRecovering(rt *root) (err error) {
	defer func() {
		if p := recover(); p != nil {
			name := rt.caller.Name()
			if fn, ok := irutil.StripCasts(rt.fnVal).(*ir.Func); ok {
				name = fn.Name()
			} else if len(rt.call.Args) > 0 {
				if fn, ok := irutil.StripCasts(irfacts.Unwrap(rt.call.Args[0])).(*ir.Func); ok {
					name = fn.Name()
				}
			}
			e := errorAt(rt.caller, rt.call, "internal error: %v; please report it to the gozyme developers with this program", p)
			e.Func = name
			err = e
		}
	}()
	return d.lower(rt)
}

// passes reports whether a call can carry derivatives from its arguments to
// its result (everything except known-inactive functions and bookkeeping
// intrinsics).
func (d *differ) passes(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		return true
	}
	if d.inactive[f] || isInactiveLibFunc(f.Name()) || ompInactive[f.Name()] || ompMirrors[f.Name()] != "" {
		return false
	}
	return irutil.BookkeepingIntrinsic(f.Name()) == irutil.NotBookkeeping
}

// lower replaces one entry-point call.
func (d *differ) lower(rt *root) error {
	switch rt.mode {
	case Reverse:
	case Forward, ErrorEstimate:
		return d.lowerForward(rt)
	case Batch:
		return d.lowerBatch(rt)
	default:
		return d.lowerSplit(rt)
	}
	if err := d.parse(rt); err != nil {
		return err
	}
	if rt.flags.primalReturn {
		return d.lowerReverseWithPrimal(rt)
	}
	acts := rt.activities()
	grads := make([]*ir.Func, len(rt.fns))
	retActive := rt.retActive(rt.fns[0])
	uniform := d.rootUniform(rt) // gpuaccum.go
	for i, f := range rt.fns {
		if err := d.checkRoot(f, acts, retActive, false); err != nil {
			return err
		}
		g, err := d.gradient(f, acts, retActive, uniform)
		if err != nil {
			return err
		}
		grads[i] = g
	}

	d.wrapNoNeedPrimals(rt) // sparse.go
	callee, args, pre, err := rt.dispatchArgs(grads)
	if err != nil {
		return err
	}
	if f := rt.fns[0]; retActive {
		args = append(args, rules.FloatConst(f.Sig.RetType, 1))
	}
	call := ir.NewCall(callee, args...)
	pre = append(pre, call)
	result, err := d.convertResult(rt, call, grads[0].Sig.RetType, &pre)
	if err != nil {
		return err
	}
	// Splice the new instructions in place of the entry-point call.
	rt.replaceCall(pre, result)
	return nil
}

// convertResult turns the gradient's result (the Out adjoints) into what the
// entry point's declaration returns: the value itself, a struct of them, or
// the same written through an sret pointer.
func (d *differ) convertResult(rt *root, call *ir.InstCall, gradRet types.Type, pre *[]ir.Instruction) (value.Value, error) {
	return rt.returnValues(gradientOuts(rt, call, gradRet, pre), pre)
}

// gradientOuts lists the Out adjoints a gradient's call returns, in
// argument order.
func gradientOuts(rt *root, call *ir.InstCall, gradRet types.Type, pre *[]ir.Instruction) []value.Value {
	var outs []value.Value
	switch t := gradRet.(type) {
	case *types.VoidType:
	case *types.StructType:
		if _, single := singleOut(rt); single {
			outs = []value.Value{call}
			break
		}
		for i := range t.Fields {
			ev := ir.NewExtractValue(call, uint64(i))
			*pre = append(*pre, ev)
			outs = append(outs, ev)
		}
	default:
		outs = []value.Value{call}
	}
	return outs
}

// returnValues makes the values outs (derivatives) the result of the
// entry-point call as its declaration returns them: the value itself, a
// struct of them, or the same written through an sret pointer.
func (rt *root) returnValues(outs []value.Value, pre *[]ir.Instruction) (value.Value, error) {
	want := rt.call.Typ
	if rt.sret != nil {
		st, ok := rt.sret.Type().(*types.PointerType)
		if !ok {
			return nil, rt.errorf("sret argument is not a pointer")
		}
		fields := leafFields(st.ElemType, []value.Value{constant.NewInt(types.I32, 0)})
		if len(fields) < len(outs) {
			return nil, rt.errorf("the returned struct has %d fields for %d derivatives", len(fields), len(outs))
		}
		for i, o := range outs {
			gep := ir.NewGetElementPtr(st.ElemType, rt.sret, fields[i].path...)
			*pre = append(*pre, gep)
			v, err := coerce(o, fields[i].typ, pre)
			if err != nil {
				return nil, rt.errorf("derivative %d: %v", i+1, err)
			}
			*pre = append(*pre, ir.NewStore(v, gep))
		}
		return nil, nil
	}
	if _, ok := want.(*types.VoidType); ok {
		return nil, nil
	}
	if len(outs) == 1 && !isAggregateOrVector(want) {
		v, err := coerce(outs[0], want, pre)
		if err != nil {
			return nil, rt.errorf("the derivative: %v", err)
		}
		return v, nil
	}
	if len(outs) == 0 {
		return constant.NewZeroInitializer(want), nil
	}
	if !isAggregateOrVector(want) {
		return nil, rt.errorf("%d derivatives are returned but the entry point is declared to return %s; declare a struct return type", len(outs), want)
	}
	// The declared struct comes back as the ABI's coerced type (x86-64:
	// {double, double}, <2 x float>, ...): lay the derivatives out as the C
	// struct in memory and read that memory back as the declared type, as
	// clang itself does for coerced returns.
	outTypes := make([]types.Type, len(outs))
	for i, o := range outs {
		outTypes[i] = o.Type()
	}
	layout := types.NewStruct(outTypes...)
	tmp := ir.NewAlloca(want)
	entry := rt.caller.Blocks[0]
	entry.Insts = append([]ir.Instruction{tmp}, entry.Insts...)
	view := ir.NewBitCast(tmp, types.NewPointer(layout))
	*pre = append(*pre, view)
	for i, o := range outs {
		gep := ir.NewGetElementPtr(layout, view, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
		*pre = append(*pre, gep, ir.NewStore(o, gep))
	}
	ld := ir.NewLoad(want, tmp)
	*pre = append(*pre, ld)
	return ld, nil
}

func isAggregateOrVector(t types.Type) bool {
	switch t.(type) {
	case *types.StructType, *types.ArrayType, *types.VectorType:
		return true
	}
	return false
}

// singleOut reports the one Out parameter when there is exactly one.
func singleOut(rt *root) (int, bool) {
	n, idx := 0, -1
	for i, a := range rt.args {
		if a.act == activity.Out {
			n++
			idx = i
		}
	}
	return idx, n == 1
}

// leafField is a scalar field of a (nested) struct or array: its GEP
// indices and type.
type leafField struct {
	path []value.Value
	typ  types.Type
}

// leafValues splits an aggregate value into its scalar fields in memory
// order (a scalar is its own only field).
func leafValues(v value.Value, pre *[]ir.Instruction) []value.Value {
	if !isAggregateOrVector(v.Type()) {
		return []value.Value{v}
	}
	if _, ok := v.Type().(*types.VectorType); ok {
		return []value.Value{v}
	}
	var out []value.Value
	for _, f := range leafFields(v.Type(), nil) {
		idx := make([]uint64, len(f.path))
		for i, p := range f.path {
			idx[i] = p.(*constant.Int).X.Uint64()
		}
		ev := ir.NewExtractValue(v, idx...)
		*pre = append(*pre, ev)
		out = append(out, ev)
	}
	return out
}

// leafFields lists the scalar fields of t in memory order, so that a struct
// of four doubles and a struct holding a double[4] both take four
// derivatives.
func leafFields(t types.Type, path []value.Value) []leafField {
	at := func(i int) []value.Value {
		return append(append([]value.Value(nil), path...), constant.NewInt(types.I32, int64(i)))
	}
	var out []leafField
	switch t := t.(type) {
	case *types.StructType:
		for i, ft := range t.Fields {
			out = append(out, leafFields(ft, at(i))...)
		}
	case *types.ArrayType:
		for i := 0; i < int(t.Len); i++ {
			out = append(out, leafFields(t.ElemType, at(i))...)
		}
	default:
		out = append(out, leafField{path: path, typ: t})
	}
	return out
}

// gradient returns the combined reverse-mode gradient of f for the given
// parameter activities, generating it on first use.
// On a GPU, uniform says which parameters the kernel passes alike to
// every thread (rootUniform), which may make accumulations plain.
func (d *differ) gradient(f *ir.Func, acts []activity.Activity, retActive bool, uniform []bool) (*ir.Func, error) {
	name := derivativeName("__gozyme_grad_", f, acts)
	if !retActive && irfacts.CarriesFloat(f.Sig.RetType) {
		name += "_c" // the result not differentiated (enzyme_const_return)
	}
	name += uniformSuffix(uniform)
	if g, ok := d.grads[name]; ok {
		return g, nil
	}
	pf, err := d.prepared(f)
	if err != nil {
		return nil, err
	}
	gen := func(name string, gidPlain bool) (*reverseGen, error) {
		return d.generateReverse(func() (*reverseGen, error) {
			r, err := newReverseGen(d, pf, acts, retActive, false, false, name)
			if r != nil {
				r.uniform, r.gidPlain = uniform, gidPlain
			}
			return r, err
		})
	}
	r, err := gen(name, false)
	if err != nil {
		return nil, err
	}
	g := r.g
	if r.usedGID {
		// Thread-private adds in one-dimensional launches (gpuaccum.go).
		oneD, err := gen(name+"_1d", true)
		if err != nil {
			return nil, err
		}
		g = d.launchVariants(r.g, oneD.g)
	}
	if d.gpu {
		where := ""
		if loc := irutil.FuncLoc(f); loc != "" {
			where = loc + ": "
		}
		d.notef("%sthe gradient of '%s' caches %d bytes per thread in local memory", where, f.Name(), r.cacheBytes)
	}
	d.scopeShadowSet(f, g) // shadowlife.go
	d.grads[name] = g
	return g, nil
}

// checkRoot reports the derivatives root function f (with the activities
// of its entry-point call) writes into memory the user passed without a
// shadow and reads back (unmetError). forward selects forward mode's
// analysis.
func (d *differ) checkRoot(f *ir.Func, acts []activity.Activity, retActive, forward bool) error {
	pf, err := d.prepared(f)
	if err != nil {
		return err
	}
	var a *activity.Info
	if forward {
		a = d.forwardActivity(pf, acts)
	} else {
		a = d.analyzeActivity(pf, acts, retActive, false)
	}
	return d.unmetError(pf, a, true)
}

// lowerForward replaces an __enzyme_fwddiff call by a call of the forward
// derivative, returning the tangent of the result.
func (d *differ) lowerForward(rt *root) error {
	if err := d.parse(rt); err != nil {
		return err
	}
	acts := rt.activities()
	fgs := make([]*forwardGen, len(rt.fns))
	for i, f := range rt.fns {
		if err := d.checkRoot(f, acts, false, true); err != nil {
			return err
		}
		fg, err := d.forward(f, acts, rt.width, rt.mode == ErrorEstimate)
		if err != nil {
			return err
		}
		fgs[i] = fg
	}
	impls := make([]*ir.Func, len(fgs))
	for i, fg := range fgs {
		impls[i] = fg.g
	}
	if rt.mode == Forward {
		d.wrapNoNeedPrimals(rt) // sparse.go
	}
	callee, args, pre, err := rt.dispatchArgs(impls)
	if err != nil {
		return err
	}
	call := ir.NewCall(callee, args...)
	pre = d.scopeShadowSetCalls(rt.caller, rt.fns[0], append(pre, call), call, call) // shadowlife.go
	var result value.Value
	_, paired := fgs[0].ret.(*types.StructType) // {primal, tangent}
	if rt.flags.primalReturn || rt.flags.constReturn {
		if rt.width > 1 {
			return rt.errorf("enzyme_primal_return and enzyme_const_return are not supported with enzyme_width")
		}
		var primal value.Value = call
		outs := []value.Value{}
		if paired {
			p := ir.NewExtractValue(call, 0)
			pre = append(pre, p)
			primal = p
		}
		if !types.Equal(primal.Type(), types.Void) {
			outs = append(outs, primal)
		}
		if paired && !rt.flags.constReturn {
			dt := ir.NewExtractValue(call, 1)
			pre = append(pre, dt)
			outs = append(outs, dt)
		}
		if result, err = rt.returnValues(outs, &pre); err != nil {
			return err
		}
	} else if _, ok := fgs[0].ret.(*types.StructType); ok && rt.width > 1 {
		// Batch mode: the N tangents, as the declared struct or array
		// (lane after lane, each lane's aggregate field by field).
		var outs []value.Value
		for _, dt := range resultTangents(call, rt.width) {
			pre = append(pre, dt.(ir.Instruction))
			outs = append(outs, leafValues(dt, &pre)...)
		}
		if result, err = rt.returnValues(outs, &pre); err != nil {
			return err
		}
	} else if _, ok := fgs[0].ret.(*types.StructType); ok && !types.Equal(rt.call.Typ, types.Void) {
		dt := ir.NewExtractValue(call, 1)
		pre = append(pre, dt)
		v, err := coerce(dt, rt.call.Typ, &pre)
		if err != nil {
			return rt.errorf("the tangent: %v", err)
		}
		result = v
	} else if !types.Equal(rt.call.Typ, types.Void) {
		result = constant.NewZeroInitializer(rt.call.Typ)
	}
	rt.replaceCall(pre, result)
	return nil
}

// dispatchArgs is the callee (dispatch) and the converted arguments
// (callArgs) of the call that replaces the root, with the instructions
// computing them.
func (rt *root) dispatchArgs(impls []*ir.Func) (callee value.Value, args []value.Value, pre []ir.Instruction, err error) {
	if callee, err = rt.dispatch(impls, &pre); err != nil {
		return nil, nil, nil, err
	}
	args, err = rt.callArgs(rt.fns[0], &pre)
	return callee, args, pre, err
}

// callArgs converts the root's arguments to f's parameter types, each
// shadow (or tangent) after its value, appending the conversions to pre.
func (rt *root) callArgs(f *ir.Func, pre *[]ir.Instruction) ([]value.Value, error) {
	var args []value.Value
	for i, p := range f.Params {
		a := rt.args[i]
		v, err := coerce(a.val, p.Typ, pre)
		if err != nil {
			return nil, rt.errorf("argument %d of '%s': %v", i+1, f.Name(), err)
		}
		args = append(args, v)
		shadows := a.shadows
		if a.offset != nil {
			shadows = rt.laneShadows(a, pre)
		}
		for _, sh := range shadows {
			s, err := coerce(sh, p.Typ, pre)
			if err != nil {
				return nil, rt.errorf("shadow of argument %d of '%s': %v", i+1, f.Name(), err)
			}
			args = append(args, s)
		}
	}
	return args, nil
}

// laneShadows returns the shadows of an enzyme_dupv argument: lane k's at
// byte offset k·offset from the one shadow pointer given.
func (rt *root) laneShadows(a rootArg, pre *[]ir.Instruction) []value.Value {
	base := ir.NewBitCast(a.shadows[0], types.I8Ptr)
	*pre = append(*pre, base)
	out := make([]value.Value, rt.width)
	for k := range out {
		off := ir.NewMul(a.offset, constant.NewInt(a.offset.Type().(*types.IntType), int64(k)))
		gep := ir.NewGetElementPtr(types.I8, base, off)
		*pre = append(*pre, off, gep)
		out[k] = gep
	}
	return out
}

// replaceCall splices pre in place of the entry-point call; result, when
// not nil, takes over the call's uses.
func (rt *root) replaceCall(pre []ir.Instruction, result value.Value) {
	var insts []ir.Instruction
	for _, inst := range rt.block.Insts {
		if inst == rt.call {
			insts = append(insts, pre...)
			continue
		}
		insts = append(insts, inst)
	}
	rt.block.Insts = insts
	if result != nil {
		irutil.ReplaceAllUses(rt.caller, rt.call, result)
	}
}

// newDiffer prepares the differentiation of m.
func newDiffer(m *ir.Module, opts Options) *differ {
	decls, err := readDeclarations(m)
	if err != nil {
		decls = &declarations{}
	}
	return &differ{m: m, inactive: decls.inactiveFns, inactiveGlobals: decls.inactiveGlobals, allocs: decls.allocs, declErr: err,
		grads: map[string]*ir.Func{}, splits: map[string]*splitGrad{},
		prep: map[*ir.Func]*ir.Func{}, custom: withFortranReductions(m, opts.Custom), sums: newSummaries(), lostGlobals: map[*ir.Global]error{}, globalEscapes: map[*ir.Global]*globalEscape{}, fwds: map[string]*forwardGen{}, picks: map[*ir.InstCall]pick{},
		constShadows: map[constShadowKey]*ir.Global{}, runtimeActivity: opts.RuntimeActivity, versionTwins: map[*metadata.Tuple]*metadata.Tuple{},
		gpu: rules.IsGPUModule(m), note: opts.Note, gpuLoopRecords: opts.GPULoopRecords,
		gpuPlainAdjoints: opts.GPUPlainAdjoints, typeReport: opts.TypeReport, unparsed: opts.Unparsed}
}

// activities lists the activity of each parameter at the call.
func (rt *root) activities() []activity.Activity {
	acts := make([]activity.Activity, len(rt.args))
	for i, a := range rt.args {
		acts[i] = a.act
	}
	return acts
}

// dispatch returns the function to call for the root: impls[i] implements
// rt.fns[i]; with several candidates, a select on the function pointer the
// caller passed picks among them at run time.
func (rt *root) dispatch(impls []*ir.Func, pre *[]ir.Instruction) (value.Value, error) {
	callee := value.Value(impls[0])
	for i := 1; i < len(impls); i++ {
		fnPtr, err := coerce(rt.fnVal, rt.fns[i].Type(), pre)
		if err != nil {
			return nil, rt.errorf("%v", err)
		}
		eq := icmpEq(fnPtr, rt.fns[i])
		sel := ir.NewSelect(eq, impls[i], callee)
		*pre = append(*pre, eq, sel)
		callee = sel
	}
	return callee, nil
}
