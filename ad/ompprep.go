package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Preparing OpenMP code for AD (see omp.go). A function that forks
// parallel regions, is an outlined region, or uses reductions or atomic
// loops is differentiated from a private copy in which:
//   - each fork is a virtual direct call of the outlined function's copy
//     (ompSite), and so is each direct call of an outlined function;
//   - reductions take the runtime's critical path for every thread: each
//     adds its partial into the shared variable under the reduction's lock
//     (__kmpc_critical), the same sum in another order, with no combining
//     callback reading other threads' private copies;
//   - an atomic update of a float (clang's compare-exchange loop) is an
//     atomicrmw fadd/fsub, which has derivative rules (atomics.go);
//   - an outlined function's float parameters passed as integers
//     (firstprivate doubles travel as i64 through the fork's varargs) are
//     floats again, so their derivatives flow.

// ompState is the OpenMP part of a differ.
type ompState struct {
	sites   map[*ir.InstCall]*ompSite
	clones  map[*ir.Func]*ompOutlined // outlined function -> its prepared copy
	targets map[*ir.Func]bool         // functions some fork runs, nil until computed
	bad     map[*ir.Func]error        // prepared functions using unsupported constructs
	owner   map[*ir.Func]string       // outlined function -> the function forking it
	// distinct marks, per outlined function, the parameters every fork
	// gives a stack slot of its own (a shared scalar of the forking
	// function, whose address goes nowhere else): memory no other
	// parameter reaches (ompowned.go).
	distinct map[*ir.Func][]bool
	// distinctParams are the same parameters of the prepared copies.
	distinctParams map[*ir.Param]bool
}

// ompOutlined is the prepared copy of an outlined function.
type ompOutlined struct {
	fn      *ir.Func
	retyped []bool // parameters that take a float the fork passes as an integer
}

func (d *differ) ompInit() {
	if d.omp.sites == nil {
		d.omp.sites = map[*ir.InstCall]*ompSite{}
		d.omp.clones = map[*ir.Func]*ompOutlined{}
		d.omp.bad = map[*ir.Func]error{}
		d.omp.owner = map[*ir.Func]string{}
	}
}

// ompTargets lists the functions the module's forks run.
func (d *differ) ompTargets() map[*ir.Func]bool {
	if d.omp.targets != nil {
		return d.omp.targets
	}
	d.omp.targets = map[*ir.Func]bool{}
	d.omp.distinct = map[*ir.Func][]bool{}
	for _, f := range d.m.Funcs {
		var slots map[*ir.InstAlloca]bool
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				c, ok := inst.(*ir.InstCall)
				if !ok || calleeName(c) != ompFork || len(c.Args) < 3 {
					continue
				}
				mt, ok := irutil.StripCasts(c.Args[2]).(*ir.Func)
				if !ok {
					continue
				}
				d.omp.targets[mt] = true
				if slots == nil {
					slots = privateAllocasBut(f, func(c *ir.InstCall) bool { return calleeName(c) == ompFork || isOutlinedCall(c) })
				}
				d.noteDistinct(mt, c.Args[3:], slots)
			}
		}
	}
	return d.omp.targets
}

// isOutlinedCall reports a direct call of a function whose first two
// parameters are clang's thread numbers (an outlined region's if(false)
// path, or its debug body).
func isOutlinedCall(c *ir.InstCall) bool {
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	return ok && strings.HasPrefix(f.Name(), ".omp_outlined.")
}

// noteDistinct records which of a fork's arguments (of outlined function
// mt, from its third parameter on) are stack slots private to the forking
// function, each passed once; a parameter is distinct when every fork
// passes one.
func (d *differ) noteDistinct(mt *ir.Func, args []value.Value, slots map[*ir.InstAlloca]bool) {
	seen := map[*ir.InstAlloca]int{}
	own := make([]bool, len(mt.Params))
	for k, a := range args {
		objs, known := underlyingObjects(a)
		if !known || len(objs) != 1 {
			continue
		}
		if al, ok := objs[0].(*ir.InstAlloca); ok && slots[al] && 2+k < len(own) {
			seen[al]++
			own[2+k] = true
		}
	}
	for k, a := range args {
		if objs, _ := underlyingObjects(a); len(objs) == 1 {
			if al, ok := objs[0].(*ir.InstAlloca); ok && seen[al] > 1 && 2+k < len(own) {
				own[2+k] = false // the same slot twice: the parameters alias
			}
		}
	}
	if prev, ok := d.omp.distinct[mt]; ok {
		for i := range own {
			own[i] = own[i] && prev[i]
		}
	}
	d.omp.distinct[mt] = own
}

// ompNeeds reports whether f needs OpenMP preparation.
func (d *differ) ompNeeds(f *ir.Func) bool {
	if d.ompTargets()[f] {
		return true
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *ir.InstCall:
				name := calleeName(x)
				if strings.HasPrefix(name, "__kmpc_") || strings.HasPrefix(name, "omp_") || strings.HasPrefix(name, "GOMP_") {
					return true
				}
				if callee, ok := irutil.StripCasts(x.Callee).(*ir.Func); ok && d.ompTargets()[callee] {
					return true
				}
			case *ir.InstCmpXchg:
				return true
			}
		}
	}
	return false
}

// prepareOMP returns p (f as prepared so far) rewritten for OpenMP: p
// itself when it is already a copy, else a copy of f.
func (d *differ) prepareOMP(f, p *ir.Func) (*ir.Func, error) {
	if len(f.Blocks) == 0 || !d.ompNeeds(f) {
		return p, nil
	}
	d.ompInit()
	if p == f {
		var err error
		if p, err = irutil.CloneWithoutUnwind(f); err != nil {
			return nil, errorAt(f, nil, "%v", err)
		}
	}
	rewriteReductions(p)
	rewriteAtomicLoops(p)
	for _, b := range p.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstCall); ok {
				if what := ompUnsupported(calleeName(c)); what != "" && d.omp.bad[p] == nil {
					err := errorAt(f, c, "OpenMP %s cannot be differentiated", what)
					if owner := d.omp.owner[f]; owner != "" {
						err.Msg += fmt.Sprintf(" (in a parallel region of '%s')", owner)
					}
					if irutil.DebugLoc(c) == "" {
						if loc := identLoc(c); loc != "" {
							err.Loc = loc
						} else {
							err.Msg += " (" + describe(c) + ")"
						}
					}
					d.omp.bad[p] = err
				}
			}
		}
	}
	if err := d.virtualForks(f, p); err != nil {
		return nil, err
	}
	if err := irutil.Renumber(p); err != nil {
		return nil, errorAt(f, nil, "%v", err)
	}
	return p, nil
}

// identLoc is the source location clang writes into the ident_t of an
// OpenMP runtime call (";file;function;line;column;;", with -g), as
// "file:line:col", or "".
func identLoc(c *ir.InstCall) string {
	if len(c.Args) == 0 {
		return ""
	}
	g, ok := irutil.StripCasts(c.Args[0]).(*ir.Global)
	if !ok {
		return ""
	}
	st, ok := g.Init.(*constant.Struct)
	if !ok || len(st.Fields) != 5 {
		return ""
	}
	gep, ok := st.Fields[4].(*constant.ExprGetElementPtr)
	if !ok {
		return ""
	}
	sg, ok := gep.Src.(*ir.Global)
	if !ok {
		return ""
	}
	ca, ok := sg.Init.(*constant.CharArray)
	if !ok {
		return ""
	}
	parts := strings.Split(strings.TrimRight(string(ca.X), "\x00"), ";")
	if len(parts) < 5 || parts[1] == "unknown" {
		return ""
	}
	return fmt.Sprintf("%s:%s:%s", parts[1], parts[3], parts[4])
}

// virtualForks replaces, in p, each fork and each direct call of an
// outlined function by a virtual call of the outlined function's prepared
// copy (ompSite).
func (d *differ) virtualForks(f, p *ir.Func) error {
	var gtid, btid *ir.InstAlloca
	for _, b := range p.Blocks {
		var numThreads value.Value
		for i := 0; i < len(b.Insts); i++ {
			c, ok := b.Insts[i].(*ir.InstCall)
			if !ok {
				continue
			}
			name := calleeName(c)
			if name == "__kmpc_push_num_threads" && len(c.Args) == 3 {
				numThreads = unwrapArg(c.Args[2])
				continue
			}
			var target *ir.Func
			var args []value.Value
			fork := name == ompFork
			if fork {
				mt, ok := irutil.StripCasts(c.Args[2]).(*ir.Func)
				if !ok || len(mt.Blocks) == 0 || len(c.Args)-3 != len(mt.Params)-2 {
					continue // left as it is: an error where it matters (unknownMemoryCall)
				}
				if gtid == nil {
					// Stand-ins for the thread numbers: a fork passes its own.
					gtid, btid = ir.NewAlloca(types.I32), ir.NewAlloca(types.I32)
					entry := p.Blocks[0]
					entry.Insts = append([]ir.Instruction{gtid, btid}, entry.Insts...)
					if b == entry {
						i += 2
					}
				}
				target, args = mt, append([]value.Value{gtid, btid}, c.Args[3:]...)
			} else {
				callee, ok := irutil.StripCasts(c.Callee).(*ir.Func)
				if !ok || !d.ompTargets()[callee] || len(c.Args) != len(callee.Params) {
					continue
				}
				target, args = callee, c.Args
			}
			oc, err := d.ompOutlinedCopy(p, target, args)
			if err != nil {
				return err
			}
			var pre []ir.Instruction
			for k := range args {
				a := unwrapArg(args[k])
				pt := oc.fn.Params[k].Typ
				switch {
				case oc.retyped[k]:
					a = floatFromInt(p, a, pt, &pre)
				case !types.Equal(a.Type(), pt):
					if !types.IsPointer(a.Type()) || !types.IsPointer(pt) {
						return errorAt(f, c, "argument %d of the parallel region %s has type %s, the region takes %s", k+1, target.Name(), a.Type(), pt)
					}
					bc := ir.NewBitCast(a, pt)
					pre = append(pre, bc)
					a = bc
				}
				args[k] = a
			}
			vc := ir.NewCall(oc.fn, args...)
			d.omp.sites[vc] = &ompSite{orig: c, fork: fork, numThreads: numThreads}
			numThreads = nil
			insts := append(append(append([]ir.Instruction{}, b.Insts[:i]...), pre...), vc)
			b.Insts = append(insts, b.Insts[i+1:]...)
			i += len(pre)
		}
	}
	return nil
}

// floatFromInt returns the float of type ft that integer argument a
// carries: the float itself where a was made from it by bitcasts and a
// zero extension (clang's way of passing it through varargs), else the
// conversion, appended to pre.
func floatFromInt(f *ir.Func, a value.Value, ft types.Type, pre *[]ir.Instruction) value.Value {
	if x, ok := peelFloat(f, a); ok && types.Equal(x.Type(), ft) {
		return x
	}
	bits := intOfSize(ft)
	var v value.Value = a
	if !types.Equal(a.Type(), bits) {
		t := ir.NewTrunc(a, bits)
		*pre = append(*pre, t)
		v = t
	}
	bc := ir.NewBitCast(v, ft)
	*pre = append(*pre, bc)
	return bc
}

// peelFloat follows zext, bitcast and a reload of a stack slot back from
// an integer to the float whose bits it holds.
func peelFloat(f *ir.Func, v value.Value) (value.Value, bool) {
	for {
		switch x := unwrapArg(v).(type) {
		case *ir.InstZExt:
			v = x.From
		case *ir.InstBitCast:
			if isFloat(x.From.Type()) {
				return x.From, true
			}
			return nil, false
		case *ir.InstLoad:
			st := reachingStore(f, x)
			if st == nil || !isFloat(st.Src.Type()) {
				return nil, false
			}
			return unwrapArg(st.Src), true
		default:
			return nil, false
		}
	}
}

// reachingStore is the store whose value load ld reads back: the last
// store before it in its block to the same alloca (directly or through a
// bitcast), with only instructions that write no memory in between.
func reachingStore(f *ir.Func, ld *ir.InstLoad) *ir.InstStore {
	objs, known := underlyingObjects(ld.Src)
	if !known || len(objs) != 1 {
		return nil
	}
	a, ok := objs[0].(*ir.InstAlloca)
	if !ok {
		return nil
	}
	b, at := blockOfInst(f, ld)
	if b == nil {
		return nil
	}
	for i := at - 1; i >= 0; i-- {
		switch x := b.Insts[i].(type) {
		case *ir.InstStore:
			dobjs, dknown := underlyingObjects(x.Dst)
			if !dknown || len(dobjs) != 1 {
				return nil
			}
			if dobjs[0] != a {
				continue
			}
			if unwrapArg(x.Dst) == unwrapArg(ld.Src) || irutil.StripCasts(unwrapArg(x.Dst)) == irutil.StripCasts(unwrapArg(ld.Src)) || sameAllocaStart(x.Dst, ld.Src, a) {
				return x
			}
			return nil
		case *ir.InstCall:
			if !isDebugIntrinsic(x) && !strings.HasPrefix(calleeName(x), "llvm.lifetime.") {
				return nil
			}
		case *ir.InstAtomicRMW, *ir.InstCmpXchg:
			return nil
		}
	}
	return nil
}

// sameAllocaStart reports that pointers p and q both are alloca a itself,
// possibly bitcast.
func sameAllocaStart(p, q value.Value, a *ir.InstAlloca) bool {
	strip := func(v value.Value) value.Value {
		for {
			bc, ok := unwrapArg(v).(*ir.InstBitCast)
			if !ok {
				return unwrapArg(v)
			}
			v = bc.From
		}
	}
	return strip(p) == a && strip(q) == a
}

// intOfSize is the integer type with the bits of float type t.
func intOfSize(t types.Type) *types.IntType {
	switch t := t.(type) {
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return types.I16
		case types.FloatKindFloat:
			return types.I32
		}
	}
	return types.I64
}

// ompOutlinedCopy returns the prepared copy of outlined function mt. Its
// parameters that take floats passed as integers (args, at the first site
// met, are floats' bits) become floats.
func (d *differ) ompOutlinedCopy(caller, mt *ir.Func, args []value.Value) (*ompOutlined, error) {
	if oc, ok := d.omp.clones[mt]; ok {
		return oc, nil
	}
	if d.omp.owner[mt] == "" {
		d.omp.owner[mt] = caller.Name()
	}
	pf, err := d.prepared(mt) // a copy: mt is a target (ompNeeds)
	if err != nil {
		return nil, err
	}
	if pf == mt {
		return nil, errorAt(mt, nil, "internal error: the parallel region was not copied")
	}
	oc := &ompOutlined{fn: pf, retyped: make([]bool, len(pf.Params))}
	d.omp.clones[mt] = oc
	for k, own := range d.omp.distinct[mt] {
		if own && k < len(pf.Params) {
			if d.omp.distinctParams == nil {
				d.omp.distinctParams = map[*ir.Param]bool{}
			}
			d.omp.distinctParams[pf.Params[k]] = true
		}
	}
	for k := 2; k < len(pf.Params) && k < len(args); k++ {
		p := pf.Params[k]
		it, isInt := p.Typ.(*types.IntType)
		x, ok := peelFloat(caller, args[k])
		if !isInt || !ok || it.BitSize > 64 {
			continue
		}
		retypeParam(pf, k, x.Type())
		oc.retyped[k] = true
	}
	foldFloatBits(pf)
	if err := irutil.Renumber(pf); err != nil {
		return nil, errorAt(mt, nil, "%v", err)
	}
	return oc, nil
}

// retypeParam makes parameter k of f, an integer holding a float's bits,
// a float of type ft; its uses read the bits from a conversion at entry.
func retypeParam(f *ir.Func, k int, ft types.Type) {
	p := f.Params[k]
	it := p.Typ.(*types.IntType)
	var insts []ir.Instruction
	bits := intOfSize(ft)
	bc := ir.NewBitCast(p, bits) // operand retyped below
	insts = append(insts, bc)
	var v value.Value = bc
	if it.BitSize != bits.BitSize {
		z := ir.NewZExt(bc, it)
		insts = append(insts, z)
		v = z
	}
	irutil.ReplaceAllUses(f, p, v)
	bc.From = p
	p.Typ = ft
	f.Sig.Params[k] = ft
	entry := f.Blocks[0]
	entry.Insts = append(insts, entry.Insts...)
}

// foldFloatBits undoes float-to-integer round trips: trunc(zext x) is x,
// bitcast(bitcast x) to x's type is x, and a store of a float's bits
// through a pointer cast from a float pointer stores the float.
func foldFloatBits(f *ir.Func) {
	folded := map[ir.Instruction]bool{}
	for changed := true; changed; {
		changed = false
		var casts []*ir.InstStore // stores of a float's bits to cast to float stores
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				switch x := inst.(type) {
				case *ir.InstTrunc:
					if z, ok := unwrapArg(x.From).(*ir.InstZExt); ok && types.Equal(z.From.Type(), x.To) && !folded[x] {
						irutil.ReplaceAllUses(f, x, z.From)
						folded[x], changed = true, true
					}
				case *ir.InstBitCast:
					if y, ok := unwrapArg(x.From).(*ir.InstBitCast); ok && types.Equal(y.From.Type(), x.To) && !types.IsPointer(x.To) && !folded[x] {
						irutil.ReplaceAllUses(f, x, y.From)
						folded[x], changed = true, true
					}
				case *ir.InstStore:
					y, ok := unwrapArg(x.Src).(*ir.InstBitCast)
					if !ok || !isFloat(y.From.Type()) {
						break
					}
					if pc, ok := unwrapArg(x.Dst).(*ir.InstBitCast); ok {
						if pt, ok := pc.From.Type().(*types.PointerType); ok && types.Equal(pt.ElemType, y.From.Type()) {
							x.Src, x.Dst = y.From, pc.From
							changed = true
							break
						}
					}
					casts = append(casts, x)
				}
			}
		}
		for _, st := range casts {
			// store iN (bitcast F x), iN* p  ->  store F x, F* (bitcast p)
			x := unwrapArg(st.Src).(*ir.InstBitCast).From
			pc := ir.NewBitCast(unwrapArg(st.Dst), types.NewPointer(x.Type()))
			insertBefore(f, st, pc)
			st.Src, st.Dst = x, pc
			changed = true
		}
	}
}

// insertBefore puts inst before at in f.
func insertBefore(f *ir.Func, at, inst ir.Instruction) {
	if b, i := blockOfInst(f, at); b != nil {
		b.Insts = append(b.Insts[:i], append([]ir.Instruction{inst}, b.Insts[i:]...)...)
	}
}

// blockOfInst finds inst in f: its block and index.
func blockOfInst(f *ir.Func, inst ir.Instruction) (*ir.Block, int) {
	for _, b := range f.Blocks {
		for i, x := range b.Insts {
			if x == inst {
				return b, i
			}
		}
	}
	return nil, -1
}

// rewriteReductions makes every thread take a reduction's critical path
// (see the top of this file). The reduction list no reduction function
// reads any more is not written either, so the private copies stay
// private (atomics.go).
func rewriteReductions(f *ir.Func) {
	rewrote := false
	for _, b := range f.Blocks {
		var insts []ir.Instruction
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok {
				insts = append(insts, inst)
				continue
			}
			switch name := calleeName(c); {
			case (name == "__kmpc_reduce" || name == "__kmpc_reduce_nowait") && len(c.Args) == 7:
				loc, gtid, lock := unwrapArg(c.Args[0]), unwrapArg(c.Args[1]), unwrapArg(c.Args[6])
				crit := ir.NewCall(declare(moduleOf(f, c), "__kmpc_critical", types.Void, loc.Type(), gtid.Type(), lock.Type()), loc, gtid, lock)
				insts = append(insts, crit)
				irutil.ReplaceAllUses(f, c, constant.NewInt(c.Typ.(*types.IntType), 1))
				dropWritesOnly(f, c.Args[4])
				rewrote = true
			case (name == "__kmpc_end_reduce" || name == "__kmpc_end_reduce_nowait") && len(c.Args) == 3:
				loc, gtid, lock := unwrapArg(c.Args[0]), unwrapArg(c.Args[1]), unwrapArg(c.Args[2])
				insts = append(insts, ir.NewCall(declare(moduleOf(f, c), "__kmpc_end_critical", types.Void, loc.Type(), gtid.Type(), lock.Type()), loc, gtid, lock))
				if name == "__kmpc_end_reduce" {
					insts = append(insts, ir.NewCall(declare(moduleOf(f, c), "__kmpc_barrier", types.Void, loc.Type(), gtid.Type()), loc, gtid))
				}
			default:
				insts = append(insts, inst)
			}
		}
		b.Insts = insts
	}
	if rewrote {
		foldConstantBranches(f)
	}
}

// moduleOf returns the module of the runtime function c calls (the module
// f's copy was made from: copies are not in a module themselves).
func moduleOf(f *ir.Func, c *ir.InstCall) *ir.Module {
	if f.Parent != nil {
		return f.Parent
	}
	if callee, ok := irutil.StripCasts(c.Callee).(*ir.Func); ok {
		return callee.Parent
	}
	return nil
}

// dropWritesOnly removes the stores into the alloca p points into when
// nothing else uses that alloca (a reduction list nobody reads).
func dropWritesOnly(f *ir.Func, p value.Value) {
	objs, known := underlyingObjects(p)
	if !known || len(objs) != 1 {
		return
	}
	a, ok := objs[0].(*ir.InstAlloca)
	if !ok {
		return
	}
	derived := map[value.Value]bool{a: true}
	var stores []*ir.InstStore
	for changed := true; changed; {
		changed = false
		stores = stores[:0]
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				for _, op := range unwrappedOperands(inst) {
					if !derived[op] {
						continue
					}
					switch x := inst.(type) {
					case *ir.InstBitCast, *ir.InstGetElementPtr:
						if !derived[x.(value.Value)] {
							derived[x.(value.Value)] = true
							changed = true
						}
					case *ir.InstStore:
						if unwrapArg(x.Src) == op {
							return
						}
						stores = append(stores, x)
					case *ir.InstCall:
						if !strings.HasPrefix(calleeName(x), "llvm.lifetime.") {
							return
						}
					default:
						return
					}
				}
			}
		}
	}
	dead := map[ir.Instruction]bool{}
	for _, s := range stores {
		dead[s] = true
	}
	for _, b := range f.Blocks {
		insts := b.Insts[:0]
		for _, inst := range b.Insts {
			if !dead[inst] {
				insts = append(insts, inst)
			}
		}
		b.Insts = insts
	}
}

// unwrappedOperands lists the operands of an instruction or terminator,
// unwrapped.
func unwrappedOperands(inst interface{}) []value.Value {
	u, ok := inst.(interface{ Operands() []*value.Value })
	if !ok {
		return nil
	}
	var out []value.Value
	for _, op := range u.Operands() {
		if *op != nil {
			out = append(out, unwrapArg(*op))
		}
	}
	return out
}

// foldConstantBranches turns branches and switches on constants into plain
// branches (folding integer compares of constants first) and removes the
// blocks no longer reachable, with their phi incomings.
func foldConstantBranches(f *ir.Func) {
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if c, ok := inst.(*ir.InstICmp); ok {
				x, xok := unwrapArg(c.X).(*constant.Int)
				y, yok := unwrapArg(c.Y).(*constant.Int)
				if xok && yok && (c.Pred == enum.IPredEQ || c.Pred == enum.IPredNE) {
					eq := x.X.Cmp(y.X) == 0
					irutil.ReplaceAllUses(f, c, constant.NewBool(eq == (c.Pred == enum.IPredEQ)))
				}
			}
		}
		switch t := b.Term.(type) {
		case *ir.TermSwitch:
			if x, ok := unwrapArg(t.X).(*constant.Int); ok {
				target := t.TargetDefault.(*ir.Block)
				for _, cs := range t.Cases {
					if ci, ok := cs.X.(*constant.Int); ok && ci.X.Cmp(x.X) == 0 {
						target = cs.Target.(*ir.Block)
					}
				}
				b.NewBr(target)
			}
		case *ir.TermCondBr:
			if x, ok := unwrapArg(t.Cond).(*constant.Int); ok {
				if x.X.Sign() != 0 {
					b.NewBr(t.TargetTrue.(*ir.Block))
				} else {
					b.NewBr(t.TargetFalse.(*ir.Block))
				}
			}
		}
	}
	removeUnreachable(f)
}

// removeUnreachable deletes the blocks not reachable from f's entry and
// their incomings in phis of the blocks that stay.
func removeUnreachable(f *ir.Func) {
	reach := map[*ir.Block]bool{}
	var visit func(b *ir.Block)
	visit = func(b *ir.Block) {
		if reach[b] {
			return
		}
		reach[b] = true
		for _, s := range irutil.Succs(b) {
			visit(s)
		}
	}
	visit(f.Blocks[0])
	var kept []*ir.Block
	for _, b := range f.Blocks {
		if reach[b] {
			kept = append(kept, b)
		}
	}
	f.Blocks = kept
	for _, b := range kept {
		for _, inst := range b.Insts {
			p, ok := inst.(*ir.InstPhi)
			if !ok {
				continue
			}
			incs := p.Incs[:0]
			for _, in := range p.Incs {
				if reach[in.Pred.(*ir.Block)] {
					incs = append(incs, in)
				}
			}
			p.Incs = incs
		}
	}
}

// rewriteAtomicLoops turns clang's compare-exchange loops for atomic float
// updates (#pragma omp atomic: x += v, x -= v) into atomicrmw fadd/fsub:
//
//	L: %old = phi iN [ load atomic P ], [ %prev, L ]
//	   %f = bitcast %old to F;  %g = fadd %f, %v;  %new = bitcast %g to iN
//	   %x = cmpxchg P, %old, %new;  %prev = extractvalue %x, 0
//	   br (extractvalue %x, 1), exit, L
//
// Other compare-exchange loops stay; on memory holding derivatives they
// are an error (atomics.go).
func rewriteAtomicLoops(f *ir.Func) {
	for _, b := range f.Blocks {
		m, ok := matchAtomicLoop(f, b)
		if !ok {
			continue
		}
		bc := ir.NewBitCast(m.ptr, types.NewPointer(m.v.Type()))
		b.Insts = append(append([]ir.Instruction(nil), m.keep...), bc)
		v := m.v
		if m.mul[1] != nil {
			mul := ir.NewFMul(m.mul[0], m.mul[1])
			b.Insts = append(b.Insts, mul)
			v = mul
		}
		b.Insts = append(b.Insts, ir.NewAtomicRMW(m.op, bc, v, m.ordering))
		b.NewBr(m.exit)
		for _, in := range m.phi.Incs {
			if ld, ok := unwrapArg(in.X).(*ir.InstLoad); ok && ld.Atomic && !usedIn(f, ld) {
				removeInst(f, ld)
			}
		}
	}
}

type atomicLoop struct {
	phi      *ir.InstPhi
	ptr, v   value.Value      // the update: x op= v
	mul      [2]value.Value   // or x += mul[0]·mul[1] (a contracted update)
	keep     []ir.Instruction // instructions of the loop the update's operand needs
	op       enum.AtomicOp
	ordering enum.AtomicOrdering
	exit     *ir.Block
}

// matchAtomicLoop recognizes block b as a compare-exchange loop of an
// atomic float update whose values nothing outside b uses. At -O0 the new
// value goes through a stack slot (stored as a float, reloaded as bits).
func matchAtomicLoop(f *ir.Func, b *ir.Block) (atomicLoop, bool) {
	var m atomicLoop
	var x *ir.InstCmpXchg
	var slotStores []*ir.InstStore
	for _, inst := range b.Insts {
		switch y := inst.(type) {
		case *ir.InstPhi:
			if m.phi != nil {
				return m, false
			}
			m.phi = y
		case *ir.InstCmpXchg:
			if x != nil {
				return m, false
			}
			x = y
		case *ir.InstStore:
			slotStores = append(slotStores, y)
		case *ir.InstBitCast, *ir.InstExtractValue, *ir.InstLoad, *ir.InstFAdd, *ir.InstFSub, *ir.InstFNeg, *ir.InstFMul,
			*ir.InstFPExt, *ir.InstFPTrunc, *ir.InstGetElementPtr:
		case *ir.InstCall:
			if n := calleeName(y); n != "llvm.fmuladd.f64" && n != "llvm.fmuladd.f32" && !isDebugIntrinsic(inst) {
				return m, false
			}
		default:
			return m, false
		}
	}
	br, ok := b.Term.(*ir.TermCondBr)
	if x == nil || m.phi == nil || !ok || br.TargetFalse != b || len(m.phi.Incs) != 2 || unwrapArg(x.Cmp) != m.phi {
		return m, false
	}
	m.exit = br.TargetTrue.(*ir.Block)
	ev1, ok := unwrapArg(br.Cond).(*ir.InstExtractValue)
	if !ok || unwrapArg(ev1.X) != x || len(ev1.Indices) != 1 || ev1.Indices[0] != 1 {
		return m, false
	}
	for _, in := range m.phi.Incs {
		if in.Pred == b {
			ev0, ok := unwrapArg(in.X).(*ir.InstExtractValue)
			if !ok || unwrapArg(ev0.X) != x || len(ev0.Indices) != 1 || ev0.Indices[0] != 0 {
				return m, false
			}
		}
	}
	// The new value: a float's bits, directly or through a stack slot.
	var g value.Value
	switch nv := unwrapArg(x.New).(type) {
	case *ir.InstBitCast:
		g = unwrapArg(nv.From)
	case *ir.InstLoad:
		if st := reachingStore(f, nv); st != nil {
			g = unwrapArg(st.Src)
		}
	}
	if g == nil || !isFloat(g.Type()) {
		return m, false
	}
	for _, st := range slotStores {
		objs, known := underlyingObjects(st.Dst)
		if !known || len(objs) != 1 || unwrapArg(st.Src) != g {
			return m, false
		}
		if _, ok := objs[0].(*ir.InstAlloca); !ok {
			return m, false
		}
	}
	isOld := func(v value.Value) bool {
		bc, ok := unwrapArg(v).(*ir.InstBitCast)
		return ok && unwrapArg(bc.From) == m.phi && instIn(b, bc)
	}
	switch y := g.(type) {
	case *ir.InstFAdd:
		m.op = enum.AtomicOpFAdd
		switch {
		case isOld(y.X):
			m.v = unwrapArg(y.Y)
		case isOld(y.Y):
			m.v = unwrapArg(y.X)
		}
	case *ir.InstFSub:
		m.op = enum.AtomicOpFSub
		if isOld(y.X) {
			m.v = unwrapArg(y.Y)
		}
	case *ir.InstCall:
		// fmuladd(p, q, old): old + p·q (x += p*q, or x -= p*q with -p).
		if n := calleeName(y); (n == "llvm.fmuladd.f64" || n == "llvm.fmuladd.f32") && isOld(y.Args[2]) {
			m.op = enum.AtomicOpFAdd
			m.mul = [2]value.Value{unwrapArg(y.Args[0]), unwrapArg(y.Args[1])}
			m.v = m.mul[0]
		}
	}
	if m.v == nil || !instIn(b, g.(ir.Instruction)) {
		return m, false
	}
	// What depends on the old value is the loop's own; the rest (the
	// update's operand, computed in the loop at -O0) stays.
	dep := map[value.Value]bool{m.phi: true}
	depStore := map[*ir.InstStore]bool{}
	for _, inst := range b.Insts {
		if st, ok := inst.(*ir.InstStore); ok {
			depStore[st] = dep[unwrapArg(st.Src)]
			continue
		}
		v, isValue := inst.(value.Value)
		for _, op := range unwrappedOperands(inst) {
			if dep[op] && isValue {
				dep[v] = true
			}
		}
	}
	for _, st := range slotStores {
		if !depStore[st] {
			return m, false
		}
	}
	for _, v := range []value.Value{m.v, m.mul[1]} {
		if dep[v] {
			return m, false
		}
	}
	m.keep = nil
	for _, inst := range b.Insts {
		v, isValue := inst.(value.Value)
		switch {
		case isValue && dep[v]:
			if usedOutside(f, v, b) {
				return m, false
			}
		case inst == ir.Instruction(x), !isValue:
			if st, ok := inst.(*ir.InstStore); ok && !depStore[st] {
				return m, false
			}
		default:
			if ld, ok := inst.(*ir.InstLoad); ok && unwrapArg(x.New) == ld {
				break // the new value's bits, reloaded
			}
			if isDebugIntrinsic(inst) {
				break // it may describe a value that goes
			}
			m.keep = append(m.keep, inst)
		}
	}
	m.ptr = unwrapArg(x.Ptr)
	m.ordering = x.SuccessOrdering
	return m, true
}

func instIn(b *ir.Block, inst ir.Instruction) bool {
	for _, i := range b.Insts {
		if i == inst {
			return true
		}
	}
	return false
}

// usedOutside reports a use of v in f outside block b.
func usedOutside(f *ir.Func, v value.Value, b *ir.Block) bool {
	for _, blk := range f.Blocks {
		if blk == b {
			continue
		}
		for _, inst := range blk.Insts {
			for _, op := range unwrappedOperands(inst) {
				if op == v {
					return true
				}
			}
		}
		if blk.Term != nil {
			for _, op := range unwrappedOperands(blk.Term) {
				if op == v {
					return true
				}
			}
		}
	}
	return false
}

// usedIn reports any use of v in f.
func usedIn(f *ir.Func, v value.Value) bool { return usedOutside(f, v, nil) }

// removeInst deletes inst from f.
func removeInst(f *ir.Func, inst ir.Instruction) {
	for _, b := range f.Blocks {
		for i, x := range b.Insts {
			if x == inst {
				b.Insts = append(b.Insts[:i], b.Insts[i+1:]...)
				return
			}
		}
	}
}
