package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Reductions (reduction clauses): clang calls __kmpc_reduce(_nowait),
// which picks a method: the critical path (1: this thread adds its partial
// into the shared variable under the reduction's lock), atomic updates
// (2), or a tree (0 for most threads, whose partials the runtime combines
// through a callback reading other threads' private copies). The copy AD
// differentiates takes the critical path on every thread: the same sum in
// another order, with derivatives (the reverse of each thread's update
// under the lock, in the order of omp.go's tickets).

// rewriteReductions makes every thread take a reduction's critical path.
// The reduction list no reduction function
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
			switch name := irfacts.CalleeName(c); {
			case (name == "__kmpc_reduce" || name == "__kmpc_reduce_nowait") && len(c.Args) == 7:
				loc, gtid, lock := irfacts.Unwrap(c.Args[0]), irfacts.Unwrap(c.Args[1]), irfacts.Unwrap(c.Args[6])
				crit := ir.NewCall(rules.Declare(moduleOf(f, c), "__kmpc_critical", types.Void, loc.Type(), gtid.Type(), lock.Type()), loc, gtid, lock)
				insts = append(insts, crit)
				irutil.ReplaceAllUses(f, c, constant.NewInt(c.Typ.(*types.IntType), 1))
				dropWritesOnly(f, c.Args[4])
				rewrote = true
			case (name == "__kmpc_end_reduce" || name == "__kmpc_end_reduce_nowait") && len(c.Args) == 3:
				loc, gtid, lock := irfacts.Unwrap(c.Args[0]), irfacts.Unwrap(c.Args[1]), irfacts.Unwrap(c.Args[2])
				insts = append(insts, ir.NewCall(rules.Declare(moduleOf(f, c), "__kmpc_end_critical", types.Void, loc.Type(), gtid.Type(), lock.Type()), loc, gtid, lock))
				if name == "__kmpc_end_reduce" {
					insts = append(insts, ir.NewCall(rules.Declare(moduleOf(f, c), "__kmpc_barrier", types.Void, loc.Type(), gtid.Type()), loc, gtid))
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
						if irfacts.Unwrap(x.Src) == op {
							return
						}
						stores = append(stores, x)
					case *ir.InstCall:
						if !strings.HasPrefix(irfacts.CalleeName(x), "llvm.lifetime.") {
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
			out = append(out, irfacts.Unwrap(*op))
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
				x, xok := irfacts.Unwrap(c.X).(*constant.Int)
				y, yok := irfacts.Unwrap(c.Y).(*constant.Int)
				if xok && yok && (c.Pred == enum.IPredEQ || c.Pred == enum.IPredNE) {
					eq := x.X.Cmp(y.X) == 0
					irutil.ReplaceAllUses(f, c, constant.NewBool(eq == (c.Pred == enum.IPredEQ)))
				}
			}
		}
		switch t := b.Term.(type) {
		case *ir.TermSwitch:
			if x, ok := irfacts.Unwrap(t.X).(*constant.Int); ok {
				target := t.TargetDefault.(*ir.Block)
				for _, cs := range t.Cases {
					if ci, ok := cs.X.(*constant.Int); ok && ci.X.Cmp(x.X) == 0 {
						target = cs.Target.(*ir.Block)
					}
				}
				b.NewBr(target)
			}
		case *ir.TermCondBr:
			if x, ok := irfacts.Unwrap(t.Cond).(*constant.Int); ok {
				if x.X.Sign() != 0 {
					b.NewBr(t.TargetTrue.(*ir.Block))
				} else {
					b.NewBr(t.TargetFalse.(*ir.Block))
				}
			}
		}
	}
	dropUnreachable(f)
}
