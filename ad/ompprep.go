package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
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
				if !ok || irfacts.CalleeName(c) != ompFork || len(c.Args) < 3 {
					continue
				}
				mt, ok := irutil.StripCasts(c.Args[2]).(*ir.Func)
				if !ok {
					continue
				}
				d.omp.targets[mt] = true
				if slots == nil {
					slots = privateAllocasBut(f, func(c *ir.InstCall) bool { return irfacts.CalleeName(c) == ompFork || isOutlinedCall(c) })
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
	argObjs := make([][]value.Value, len(args))
	for k, a := range args {
		objs, known := underlyingObjects(a)
		argObjs[k] = objs
		if !known || len(objs) != 1 {
			continue
		}
		if al, ok := objs[0].(*ir.InstAlloca); ok && slots[al] && 2+k < len(own) {
			seen[al]++
			own[2+k] = true
		}
	}
	for k := range args {
		if objs := argObjs[k]; len(objs) == 1 {
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
				name := irfacts.CalleeName(x)
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
				if what := ompUnsupported(irfacts.CalleeName(c)); what != "" && d.omp.bad[p] == nil {
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
			name := irfacts.CalleeName(c)
			if name == "__kmpc_push_num_threads" && len(c.Args) == 3 {
				numThreads = irfacts.Unwrap(c.Args[2])
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
				a := irfacts.Unwrap(args[k])
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
