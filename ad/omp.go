package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// OpenMP as clang-14 lowers it for libomp. A parallel region is outlined
// into a function taking (i32* gtid, i32* btid, shared...) that
// __kmpc_fork_call(loc, n, outlined, shared...) runs on every thread of a
// team; worksharing loops ask __kmpc_for_static_init for the thread's
// iterations; reductions, critical sections and barriers are runtime calls.
//
// The AD engine sees each fork as a plain call of the outlined function: a
// prepared caller (ompprep.go) holds a "virtual" direct call in place of
// the fork, so activity, call summaries and caching treat it as any call,
// and code generation (ompfork.go) turns it back into forks. In reverse
// mode the forward sweep forks the outlined function's augmented forward
// and the reverse sweep forks its reverse on a team of the same size: each
// thread replays its own tape, so every iteration's reverse reads what its
// forward recorded, whatever the schedule gave that thread. Inside, shadow
// accumulation into memory other threads may touch is atomic (atomics.go);
// barriers and critical sections are mirrored in the reverse. Forward mode
// forks the outlined function's forward derivative.

// ompSite is a virtual call: a fork (or a direct call of an outlined
// function, clang's if(false) path) in a prepared caller.
type ompSite struct {
	orig       *ir.InstCall // the call it replaced, operands in the prepared caller
	fork       bool         // a __kmpc_fork_call (else a direct, serialized call)
	numThreads value.Value  // the num_threads clause of the fork, or nil
}

// ompMirrors are the runtime calls whose reverse is another call with the
// same operands: what a thread must wait for or hold in the forward sweep
// it must wait for or hold in the reverse.
var ompMirrors = map[string]string{
	"__kmpc_barrier":                 "__kmpc_barrier",
	"__kmpc_critical":                "__kmpc_end_critical",
	"__kmpc_critical_with_hint":      "__kmpc_end_critical",
	"__kmpc_end_critical":            "__kmpc_critical",
	"__kmpc_serialized_parallel":     "__kmpc_end_serialized_parallel",
	"__kmpc_end_serialized_parallel": "__kmpc_serialized_parallel",
	"__kmpc_flush":                   "__kmpc_flush",
	"omp_set_lock":                   "omp_unset_lock",
	"omp_unset_lock":                 "omp_set_lock",
	"omp_set_nest_lock":              "omp_unset_nest_lock",
	"omp_unset_nest_lock":            "omp_set_nest_lock",
}

// ompInactive are runtime calls without derivatives kept in the forward
// sweep only: the worksharing schedule (each thread's reverse replays the
// iterations its forward recorded), thread queries, master/single
// (which thread ran them is recorded like any branch).
var ompInactive = map[string]bool{
	"__kmpc_for_static_init_4": true, "__kmpc_for_static_init_4u": true, "__kmpc_for_static_init_8": true,
	"__kmpc_for_static_init_8u": true, "__kmpc_for_static_fini": true, "__kmpc_global_thread_num": true,
	"__kmpc_push_num_threads": true, "__kmpc_push_proc_bind": true, "__kmpc_master": true, "__kmpc_end_master": true,
	"__kmpc_masked": true, "__kmpc_end_masked": true, "__kmpc_single": true, "__kmpc_end_single": true,
	"__kmpc_dispatch_init_4": true, "__kmpc_dispatch_init_4u": true, "__kmpc_dispatch_init_8": true,
	"__kmpc_dispatch_init_8u": true, "__kmpc_dispatch_next_4": true, "__kmpc_dispatch_next_4u": true,
	"__kmpc_dispatch_next_8": true, "__kmpc_dispatch_next_8u": true, "__kmpc_dispatch_fini_4": true,
	"__kmpc_dispatch_fini_4u": true, "__kmpc_dispatch_fini_8": true, "__kmpc_dispatch_fini_8u": true,
	"__kmpc_ok_to_fork": true, "__kmpc_bound_thread_num": true, "__kmpc_bound_num_threads": true,
	"__kmpc_in_parallel": true,
	"omp_get_thread_num": true, "omp_get_num_threads": true, "omp_get_max_threads": true,
	"omp_get_num_procs": true, "omp_in_parallel": true, "omp_get_level": true, "omp_get_active_level": true,
	"omp_get_ancestor_thread_num": true, "omp_get_team_size": true, "omp_get_thread_limit": true,
	"omp_get_dynamic": true, "omp_get_nested": true, "omp_get_max_active_levels": true, "omp_get_wtime": true,
	"omp_get_wtick": true, "omp_init_lock": true, "omp_destroy_lock": true, "omp_init_nest_lock": true,
	"omp_destroy_nest_lock": true, "omp_test_lock": true, "omp_get_team_num": true, "omp_get_num_teams": true,
}

// ompUnsupported names the construct behind runtime calls the engine has
// no derivative for; a differentiated function calling one is an error.
func ompUnsupported(name string) string {
	switch {
	case strings.HasPrefix(name, "__kmpc_omp_task"), strings.HasPrefix(name, "__kmpc_taskgroup"),
		strings.HasPrefix(name, "__kmpc_end_taskgroup"), strings.HasPrefix(name, "__kmpc_taskloop"),
		strings.HasPrefix(name, "__kmpc_omp_wait_deps"), strings.HasPrefix(name, "__kmpc_task_reduction"),
		strings.HasPrefix(name, "__kmpc_omp_taskwait"), strings.HasPrefix(name, "__kmpc_omp_taskyield"):
		return "tasks (#pragma omp task, taskloop, taskwait, taskgroup)"
	case name == "__kmpc_ordered", name == "__kmpc_end_ordered", strings.HasPrefix(name, "__kmpc_doacross"):
		return "ordered regions (#pragma omp ordered)"
	case strings.HasPrefix(name, "__kmpc_fork_teams"), strings.HasPrefix(name, "__kmpc_push_num_teams"),
		strings.HasPrefix(name, "__kmpc_distribute"), strings.HasPrefix(name, "__kmpc_dist_"),
		strings.HasPrefix(name, "__kmpc_team_static_init"):
		return "teams and distribute (#pragma omp teams)"
	case name == "__kmpc_copyprivate":
		return "copyprivate (#pragma omp single copyprivate)"
	case strings.HasPrefix(name, "__kmpc_threadprivate"):
		return "threadprivate variables (#pragma omp threadprivate)"
	case strings.HasPrefix(name, "__kmpc_atomic_"):
		return "atomics the runtime implements (#pragma omp atomic on long double, complex, or with capture)"
	case strings.HasPrefix(name, "__kmpc_reduce"), strings.HasPrefix(name, "__kmpc_end_reduce"):
		return "reductions of this shape (reduction clause)"
	case strings.HasPrefix(name, "__kmpc_sections"), strings.HasPrefix(name, "__kmpc_end_sections"):
		return "sections scheduled by __kmpc_sections_init (clang-14 lowers #pragma omp sections to a worksharing loop, which is supported)"
	case strings.HasPrefix(name, "__tgt_"), strings.HasPrefix(name, "__kmpc_target"):
		return "target offloading (#pragma omp target)"
	case strings.HasPrefix(name, "GOMP_"):
		return "with libgomp (-fopenmp=libgomp; build with -fopenmp, for libomp)"
	case strings.HasPrefix(name, "__kmpc_") && !ompInactive[name] && ompMirrors[name] == "" && name != ompFork:
		return "the OpenMP runtime call " + name
	}
	return ""
}

const ompFork = "__kmpc_fork_call"

// isOMPRuntime reports a libomp entry point (or omp_* API function) gozyme
// knows: inactive, mirrored in reverse, or the fork itself.
func isOMPRuntime(name string) bool {
	return ompInactive[name] || ompMirrors[name] != "" || name == ompFork
}

// Critical sections and locks are entered in the reverse in the reverse
// of the order the forward entered them: the reverse of x = x*y under a
// lock reads the adjoint the next section's reverse left, so the order
// matters whenever the update is not a sum. Each fork's team keeps a
// ticket counter in its tape array (ompfork.go), which its threads find
// through a thread-local pointer the fork's microtasks set: the forward
// takes a ticket (the counter, incremented just before the unlock, inside
// the section) that the thread's tape keeps; the reverse of the unlock
// waits until the counter is one past its ticket, and the reverse of the
// lock counts it down. One order for all the team's locks: a total order
// consistent with each lock's. Outside a fork (serial code) there is one
// thread and no order to keep.
var ompReleases = map[string]bool{"__kmpc_end_critical": true, "omp_unset_lock": true, "omp_unset_nest_lock": true}
var ompAcquires = map[string]bool{"__kmpc_critical": true, "__kmpc_critical_with_hint": true, "omp_set_lock": true, "omp_set_nest_lock": true}

// ompTicket emits, in the forward sweep before an unlock, the ticket of
// the section it ends; the reverse reads it back (ompReverseRuntime).
func (r *reverseGen) ompTicket(b *ir.Block, call *ir.InstCall) []ir.Instruction {
	if !ompReleases[irfacts.CalleeName(call)] {
		return nil
	}
	tk := ir.NewCall(r.d.ompTurnHelper("take"))
	if r.tickets == nil {
		r.tickets = map[*ir.InstCall]value.Value{}
	}
	r.tickets[call] = tk
	r.blockOf[tk] = b
	return []ir.Instruction{tk}
}

// ompReverseRuntime emits, for a runtime call in the reverse sweep, its
// mirror (barrier for barrier, lock for unlock, in ticket order). The
// global thread number is asked again: the reverse runs in a fork of its
// own. It reports whether call was a runtime call (mirrored or kept in
// forward only), and returns the block emission goes on in.
func (r *reverseGen) ompReverseRuntime(blk *ir.Block, at *ir.Block, call *ir.InstCall) (*ir.Block, bool) {
	name := irfacts.CalleeName(call)
	mirror, ok := ompMirrors[name]
	if !ok {
		return blk, ompInactive[name]
	}
	blk = r.flushPartials(blk, nil) // other threads may read the shadows after it
	if tk, ok := r.tickets[call]; ok {
		blk.NewCall(r.d.ompTurnHelper("wait"), r.lookupForward(blk, at, tk, at))
	}
	var args []value.Value
	switch {
	case strings.HasPrefix(name, "__kmpc_"):
		// (loc, gtid, [lock, [hint]]): the mirror takes (loc, gtid, [lock]).
		loc := r.lookup(blk, at, call.Args[0])
		args = []value.Value{loc}
		if name != "__kmpc_flush" {
			gtid := blk.NewCall(rules.Declare(r.m, "__kmpc_global_thread_num", types.I32, loc.Type()), loc)
			args = append(args, gtid)
			if len(call.Args) > 2 {
				args = append(args, r.lookup(blk, at, call.Args[2]))
			}
		}
	default:
		args = []value.Value{r.lookup(blk, at, call.Args[0])}
	}
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	blk.NewCall(rules.Declare(r.m, mirror, types.Void, ts...), args...)
	if ompAcquires[name] {
		blk.NewCall(r.d.ompTurnHelper("done"))
	}
	return blk, true
}

// ompTeamTLS is the thread-local pointer to the tape array of the fork
// whose microtask the thread runs (null outside forks).
func (d *differ) ompTeamTLS() *ir.Global {
	const name = "__gozyme_omp_team"
	for _, g := range d.m.Globals {
		if g.Name() == name {
			return g
		}
	}
	g := d.m.NewGlobalDef(name, constant.NewNull(types.I8Ptr))
	g.Linkage = enum.LinkageInternal
	g.TLSModel = enum.TLSModelGeneric
	return g
}

// ompTurnHelper returns (creating once) a helper of the ticket order:
// "take" () -> ticket (forward, before an unlock), "wait" (ticket) (the
// reverse's turn to enter), "done" () (the reverse left the section). Each
// reads the team's counter through ompTeamTLS, and does nothing outside
// forks.
func (d *differ) ompTurnHelper(which string) *ir.Func {
	name := "__gozyme_omp_turn_" + which
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	var f *ir.Func
	var ticket *ir.Param
	switch which {
	case "take":
		f = d.m.NewFunc(name, types.I64)
	case "wait":
		ticket = ir.NewParam("ticket", types.I64)
		f = d.m.NewFunc(name, types.Void, ticket)
	default:
		f = d.m.NewFunc(name, types.Void)
	}
	f.Linkage = enum.LinkageInternal
	entry, team, none := f.NewBlock("entry"), f.NewBlock("team"), f.NewBlock("none")
	tp := entry.NewLoad(types.I8Ptr, d.ompTeamTLS())
	entry.NewCondBr(entry.NewICmp(enum.IPredEQ, tp, constant.NewNull(types.I8Ptr)), none, team)
	ctr := team.NewGetElementPtr(types.I64, team.NewBitCast(tp, types.NewPointer(types.I64)), constant.NewInt(types.I64, 2))
	one := constant.NewInt(types.I64, 1)
	switch which {
	case "take":
		team.NewRet(team.NewAtomicRMW(enum.AtomicOpAdd, ctr, one, enum.AtomicOrderingMonotonic))
		none.NewRet(constant.NewInt(types.I64, 0))
	case "wait":
		loop, yield, done := f.NewBlock("loop"), f.NewBlock("yield"), f.NewBlock("done")
		want := team.NewAdd(ticket, one)
		team.NewBr(loop)
		cur := loop.NewLoad(types.I64, ctr)
		cur.Atomic, cur.Ordering, cur.Align = true, enum.AtomicOrderingAcquire, 8
		loop.NewCondBr(loop.NewICmp(enum.IPredEQ, cur, want), done, yield)
		yield.NewCall(rules.Declare(d.m, "sched_yield", types.I32))
		yield.NewBr(loop)
		done.NewRet(nil)
		none.NewRet(nil)
	default:
		team.NewAtomicRMW(enum.AtomicOpSub, ctr, one, enum.AtomicOrderingRelease)
		team.NewRet(nil)
		none.NewRet(nil)
	}
	return f
}
