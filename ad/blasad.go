package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// The BLAS rules (blasrules.go) in the reverse and forward modes.

// blasValues are a BLAS call's values by argument (CBLAS numbering).
type blasValues = map[int]value.Value

// augmentBlas emits, before the forward clone of BLAS call call (in
// primal block b), copies of the inputs its reverse reads that the call
// itself or anything after it may overwrite; the reverse finds them in
// r.blasCaches. Operands are primal values, remapped with the block. A
// Fortran-ABI call's scalars are read here too, as the call reads them
// (r.blasScalars).
func (r *reverseGen) augmentBlas(b *ir.Block, call *ir.InstCall) ([]ir.Instruction, []ir.Instruction, error) {
	c, err := newBlasCtx(r.m, r.f, call)
	if err != nil {
		return nil, nil, err
	}
	if r.parallel {
		// The reverse adds into the inputs' shadows with plain BLAS calls,
		// which other threads' reverses may touch too.
		return nil, nil, errorAt(r.f, call, "'%s' is differentiated by a BLAS rule, whose reverse cannot run in threads (an OpenMP parallel region or a GPU kernel): its adjoints are not added atomically", irfacts.CalleeName(call))
	}
	scratch := &ir.Block{}
	c.b = scratch
	// Slots live between a stack save and restore around the copies:
	// the forward sweep may be a function of its own (split mode), whose
	// entry is not the reverse's.
	c.slot = func(t types.Type) value.Value { return c.b.NewAlloca(t) }
	scalars := map[int]value.Value{}
	c.arg = func(i int) value.Value {
		a := c.callArg(i)
		if a == nil {
			return c.fortranLayout()
		}
		if c.fortran && !blasPointer(c.rule.sig[i]) {
			if v, ok := scalars[i]; ok {
				return v
			}
			t := c.scalarType(i)
			v := c.b.NewLoad(t, convertTo(c.b, a, types.NewPointer(t)))
			scalars[i] = v
			r.blockOf[v] = b
			return v
		}
		if c.rule.sig[i] == 'p' {
			return c.elemPtr(a)
		}
		return a
	}
	c.shadow = func(i int) value.Value {
		if a := c.callArg(i); r.act.HasShadow(a) {
			return a // only tested for nil here
		}
		return nil
	}
	c.act = func(i int) bool { return r.blasActive(c, i) }
	for i, k := range c.rule.sig {
		if c.fortran && !blasPointer(byte(k)) {
			c.arg(i)
		}
	}
	copies := map[int]value.Value{}
	var needs []int
	if c.rule.needs != nil {
		needs = c.rule.needs(c)
	}
	for _, i := range needs {
		if !r.blasInputChanges(c, i, false) {
			continue
		}
		v := c.cacheCopy(i)
		copies[i] = v
		r.blockOf[v] = b
	}
	var after []ir.Instruction
	if c.rule.needsAfter != nil {
		// Outputs whose new values the reverse reads: copied after the
		// call where later code may overwrite them.
		c.b = &ir.Block{}
		for _, i := range c.rule.needsAfter(c) {
			if !r.blasInputChanges(c, i, true) {
				continue
			}
			v := c.cacheCopy(i)
			copies[i+afterKey] = v
			r.blockOf[v] = b
		}
		after = c.b.Insts
	}
	if r.blasCaches == nil {
		r.blasCaches = map[*ir.InstCall]blasValues{}
		r.blasScalars = map[*ir.InstCall]blasValues{}
	}
	r.blasCaches[call] = copies
	r.blasScalars[call] = scalars
	return scratch.Insts, after, nil
}

// entrySlot is a stack slot of type t in the gradient's entry block.
func (r *reverseGen) entrySlot(t types.Type) value.Value {
	a := ir.NewAlloca(t)
	r.allocas.Insts = append(r.allocas.Insts, a)
	return a
}

// callArg is the call's argument for argument i of the rule's CBLAS
// signature (nil: the layout of a Fortran-ABI call, which has none).
func (c *blasCtx) callArg(i int) value.Value {
	j := blasArgIndex(c.rule, c.fortran, i)
	if j < 0 {
		return nil
	}
	return irfacts.Unwrap(c.call.Args[j])
}

// blasActive reports whether float argument i carries a derivative: an
// active value, or (Fortran ABI) an address with a shadow.
func (r *reverseGen) blasActive(c *blasCtx, i int) bool {
	if c.rule.sig[i] != 'f' {
		return false
	}
	if c.fortran {
		return r.act.HasShadow(c.callArg(i))
	}
	return r.act.Active(c.callArg(i))
}

// blasInputChanges reports whether the memory pointer argument i of BLAS
// call call reads (after it: as the call leaves it) may hold other values
// when the reverse sweep runs: the call writes it (before only), the gradient is split (the caller may write anything
// between the sweeps), or a primal writer that may run after the call may
// write into its objects.
func (r *reverseGen) blasInputChanges(c *blasCtx, i int, after bool) bool {
	call := c.call
	for _, o := range c.rule.outputs {
		if o == i && !after {
			return true
		}
	}
	if r.split {
		return true
	}
	objs, opaque, known := r.pointerObjects(c.callArg(i))
	return r.objectsMayBeWritten(objs, opaque, known, nil, false, func(w memWriter) bool {
		if w.inst == call {
			lb := r.blockOf[call]
			return lb == nil || r.reachable(lb)[lb]
		}
		return r.mayRunAfter(w, call)
	})
}

// reverseBlas emits the reverse of BLAS call call: the rule's BLAS calls
// on the looked-up arguments, shadows and cached inputs, the result's
// adjoint d (nil: zero), then frees the caches. It returns the block where
// the reverse continues.
//
// Each term runs where the shadows it reads and writes differ from their
// primals: a shadow that is its primal marks memory that carries no
// derivative at run time (runtimeactivity.go; Enzyme's
// -enzyme-runtime-activity), whose derivative is skipped.
func (r *reverseGen) reverseBlas(blk, at *ir.Block, call *ir.InstCall, d value.Value) (*ir.Block, error) {
	c, err := newBlasCtx(r.m, r.f, call)
	if err != nil {
		return blk, err
	}
	c.b = blk
	c.slot = r.entrySlot
	args := map[int]value.Value{}
	c.arg = func(i int) value.Value {
		if v, ok := args[i]; ok {
			return v
		}
		a := c.callArg(i)
		var v value.Value
		switch {
		case a == nil:
			v = c.fortranLayout()
		case c.fortran && !blasPointer(c.rule.sig[i]):
			fv := r.blasScalars[call][i]
			v = r.lookupForward(blk, at, fv, r.blockOf[fv])
		case c.rule.sig[i] == 'p':
			v = c.elemPtr(r.lookup(blk, at, a))
		default:
			v = r.lookup(blk, at, a)
		}
		args[i] = v
		return v
	}
	shadows := map[int]value.Value{}
	var serr error
	c.shadow = func(i int) value.Value {
		a := c.callArg(i)
		if a == nil || !r.act.HasShadow(a) {
			return nil
		}
		if s, ok := shadows[i]; ok {
			return s
		}
		s, err := r.lookupShadow(blk, at, call, a)
		if err != nil {
			serr = err
			return nil
		}
		s = c.elemPtr(s)
		shadows[i] = s
		return s
	}
	c.act = func(i int) bool { return r.blasActive(c, i) }
	scalarPtr := map[int]value.Value{} // a Fortran scalar's address
	c.acc = func(i int, delta value.Value) {
		if !c.fortran {
			r.accumulate(c.b, c.callArg(i), delta)
			return
		}
		s := c.shadow(i) // the scalar's shadow in memory
		// Nothing where it is the scalar itself (run-time activity).
		delta = c.b.NewSelect(c.b.NewICmp(enum.IPredNE, s, scalarPtr[i]), delta, c.f(0))
		c.b.NewStore(c.b.NewFAdd(c.b.NewLoad(c.elem, s), delta), s)
	}
	// Everything the terms use is looked up here, before the guards
	// below branch.
	for i, k := range c.rule.sig {
		c.arg(i)
		if k == 'p' || (k == 'f' && c.fortran) {
			c.shadow(i)
		}
		if k == 'f' && c.fortran && c.shadow(i) != nil {
			scalarPtr[i] = r.lookup(blk, at, c.callArg(i))
		}
	}
	c.guard = func(ptrs []int, body func()) {
		var cond value.Value
		for _, i := range ptrs {
			s := c.shadow(i)
			if s == nil {
				continue
			}
			ne := c.b.NewICmp(enum.IPredNE, s, c.arg(i))
			if cond == nil {
				cond = ne
			} else {
				cond = c.b.NewAnd(cond, ne)
			}
		}
		if cond == nil {
			body()
			return
		}
		then, next := r.g.NewBlock(""), r.g.NewBlock("")
		c.b.NewCondBr(cond, then, next)
		c.b = then
		body()
		c.b.NewBr(next)
		c.b = next
	}
	if c.rule.ret {
		c.dret = d
		if d == nil {
			c.dret = rules.ZeroOf(call.Typ)
		}
		// No reverse rule reads the call's result (nrm2's computes the
		// norm again, as Enzyme's does): c.res stays nil, and the
		// result is kept for no reverse.
	}
	c.cached = map[int]value.Value{}
	for _, i := range sortedKeys(r.blasCaches[call]) {
		v := r.blasCaches[call][i]
		c.cached[i] = r.lookupForward(blk, at, v, r.blockOf[v])
	}
	c.rule.rev(c)
	if serr != nil {
		return c.b, serr
	}
	for _, i := range sortedKeys(r.blasCaches[call]) {
		c.free(c.cached[i])
	}
	return c.b, nil
}

// sortedKeys returns m's keys in increasing order.
func sortedKeys(m map[int]value.Value) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// blasCall emits, in forward mode, BLAS call call and its tangent: before
// the call (the tangents of routines that write memory read the outputs'
// old values), or after it where the tangent reads the result (nrm2);
// once per lane in batch mode.
func (fg *forwardGen) blasCall(call *ir.InstCall) ([]ir.Instruction, bool, error) {
	if fg.errMode {
		return nil, true, errorAt(fg.f, call, "'%s' is differentiated by a BLAS rule, which gives tangents, not error bounds: floating-point error estimation cannot use it", irfacts.CalleeName(call))
	}
	if fg.d.runtimeActivity {
		// A shadow may then be its primal at run time, which the reverse
		// rules test for and these do not.
		return nil, true, errorAt(fg.f, call, "'%s' is differentiated by a BLAS rule, which forward mode cannot apply with run-time activity checks (a pointer without a shadow stored where pointers have shadows)", irfacts.CalleeName(call))
	}
	clone, _ := irutil.CloneInst(call, func(v value.Value) value.Value { return v })
	fg.vmap[call] = clone.(value.Value)
	var before, after []ir.Instruction
	for _, lane := range fg.lanes {
		fg.tan = lane
		c, err := newBlasCtx(fg.m, fg.f, call)
		if err != nil {
			return nil, true, err
		}
		scratch := &ir.Block{}
		c.b = scratch
		var sp value.Value
		if c.fortran || strings.ContainsRune(c.rule.sig, 'n') {
			sp = scratch.NewCall(rules.Declare(fg.m, "llvm.stacksave", types.I8Ptr))
			c.slot = func(t types.Type) value.Value { return scratch.NewAlloca(t) }
		}
		scalars := map[int]value.Value{}
		c.arg = func(i int) value.Value {
			a := c.callArg(i)
			switch {
			case a == nil:
				return c.fortranLayout()
			case c.fortran && !blasPointer(c.rule.sig[i]):
				if v, ok := scalars[i]; ok {
					return v
				}
				t := c.scalarType(i)
				v := scratch.NewLoad(t, convertTo(scratch, a, types.NewPointer(t)))
				scalars[i] = v
				return v
			case c.rule.sig[i] == 'p':
				return c.elemPtr(a)
			}
			return a
		}
		var terr error
		c.shadow = func(i int) value.Value {
			a := c.callArg(i)
			if a == nil || !fg.act.HasShadow(a) {
				return nil
			}
			t, err := fg.tangentOf(call, a)
			if err != nil {
				terr = err
				return nil
			}
			if c.rule.sig[i] == 'p' {
				return c.elemPtr(t)
			}
			return t
		}
		c.act = func(i int) bool {
			a := c.callArg(i)
			if c.rule.sig[i] != 'f' {
				return false
			}
			if c.fortran {
				return fg.act.HasShadow(a)
			}
			return fg.act.Varied[a]
		}
		c.dfloat = func(i int) value.Value {
			a := c.callArg(i)
			t, err := fg.tangentOf(call, a)
			if err != nil {
				terr = err
				return rules.ZeroOf(c.elem)
			}
			if c.fortran {
				return scratch.NewLoad(c.elem, t)
			}
			return t
		}
		c.res = clone.(value.Value)
		if c.rule.fwdBefore != nil {
			c.rule.fwdBefore(c)
			before = append(before, scratch.Insts...)
			scratch = &ir.Block{}
			c.b = scratch
		}
		c.rule.fwd(c)
		if sp != nil {
			c.b.NewCall(rules.Declare(fg.m, "llvm.stackrestore", types.Void, types.I8Ptr), sp)
		}
		if terr != nil {
			return nil, true, terr
		}
		if c.rule.ret {
			if fg.needsTangent(call) {
				if c.out == nil {
					c.out = rules.ZeroOf(call.Typ)
				}
				lane[call] = c.out
			}
		}
		if c.rule.after {
			after = append(after, scratch.Insts...)
		} else {
			before = append(before, scratch.Insts...)
		}
	}
	out := append(before, clone)
	return append(out, after...), true, nil
}

// blasWrites reports, for a BLAS call, the pointers it writes through
// (false: no BLAS call).
func blasWrites(c *ir.InstCall, through func(value.Value)) bool {
	rule, _, _, fortran := blasRoutine(c)
	if rule == nil || len(c.Args) < blasArgIndex(rule, fortran, len(rule.sig)) {
		return false
	}
	for _, o := range rule.outputs {
		through(c.Args[blasArgIndex(rule, fortran, o)])
	}
	for i, k := range rule.sig {
		if k == 'n' { // LAPACK's info
			through(c.Args[blasArgIndex(rule, fortran, i)])
		}
	}
	return true
}

// blasOutputs returns, for a BLAS call, the pointer arguments it writes
// (activity gives them shadows where any argument carries derivatives);
// with arguments that do not fit the routine, all of them (the signature
// error comes later). ok is false for any other call.
func blasOutputs(c *ir.InstCall) (outputs []value.Value, ok bool) {
	rule, _, _, fortran := blasRoutine(c)
	if rule == nil {
		return nil, false
	}
	if len(c.Args) < blasArgIndex(rule, fortran, len(rule.sig)) || (!fortran && len(c.Args) != len(rule.sig)) {
		return append(outputs, c.Args...), true
	}
	for _, o := range rule.outputs {
		outputs = append(outputs, c.Args[blasArgIndex(rule, fortran, o)])
	}
	return outputs, true
}

// cacheCopy is cacheInput with the Fortran ABI's slots freed after it.
func (c *blasCtx) cacheCopy(i int) value.Value {
	if !c.fortran {
		return c.cacheInput(i)
	}
	sp := c.b.NewCall(rules.Declare(c.m, "llvm.stacksave", types.I8Ptr))
	v := c.cacheInput(i)
	c.b.NewCall(rules.Declare(c.m, "llvm.stackrestore", types.Void, types.I8Ptr), sp)
	return v
}

// blasPointer reports a signature letter passed as an address in every ABI
// (elements, or LAPACK's info), never read as a scalar.
func blasPointer(k byte) bool { return k == 'p' || k == 'n' }
