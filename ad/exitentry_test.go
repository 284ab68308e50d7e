package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
)

// exitNests are loop nests whose inner loops cache values per iteration
// (q and x are overwritten), so that their reverse needs each inner loop's
// entry counter. comps's inner loops run DIM iterations in every
// component, the first one vectorized at -O2 with a remainder loop that
// starts where the vector loop stopped (a merge phi decided by conditions
// outside the nest); tricomp's inner loop runs c + 1 times (its count
// changes between components): their entry counters come from their exits
// (exitentry.go). brkcomp's inner loop leaves on the data (its header
// count is not its trip count's): its entry counter stays cached.
func exitNests(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "exit_nests.c")
}

// TestExitEntryRun: every gradient matches central differences at every
// level, combined and split, with components of 1 to 9 coordinates (no
// vector loop, no remainder, both), and leaks nothing.
func TestExitEntryRun(t *testing.T) {
	t.Parallel()
	runSizes(t, exitNests(t), "DIM", []string{"1", "3", "4", "9"},
		[]string{"ok comps[29]", "ok tricomp[9]", "ok brkcomp[9]", "ok afterx[9]", "ok comps_callee[11]", "ok tricomp_callee[9]"})
}

// TestExitEntryIR: comps and tricomp cache no entry counter (at -O2 and
// -O3 comps's remainder loops' neither) and read them from reverse slots;
// brkcomp keeps a cached one where its shape stays (-O0, -O1). merge_ir's
// inner loop, starting at a merge phi, reads its entry counter from a slot.
func TestExitEntryIR(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		m := preADModuleC(t, exitNests(t), o)
		for _, tc := range []struct {
			name   string
			cached bool
		}{{"comps", false}, {"tricomp", false}, {"brkcomp", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "exit_"+tc.name)
				cached := 0
				for ld, s := range r.snapOf {
					if s.at == s.src && isCached(r, ld) {
						t.Logf("-O%s %s (split %v): cached the entry counter of the loop at %s", o, tc.name, split, s.at.Header.Ident())
						cached++
					}
				}
				switch {
				case !tc.cached && cached > 0:
					t.Errorf("-O%s %s (split %v): %d entry counters cached, want none", o, tc.name, split, cached)
				case !tc.cached && len(r.exitSlots) == 0:
					t.Errorf("-O%s %s (split %v): no entry counter from the exit", o, tc.name, split)
				case tc.cached && cached == 0 && (o == "0" || o == "1"):
					t.Errorf("-O%s %s (split %v): no entry counter cached", o, tc.name, split)
				}
				d.dropFunc(r.g)
			}
		}
	}
	eachReverse(t, mergeIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
		inner := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
		if _, ok := r.exitSlots[inner]; !ok {
			t.Errorf("split=%v: the inner loop's entry counter does not come from its exit", split)
		}
		if isCached(r, r.entryCount[inner.Header]) {
			t.Errorf("split=%v: the inner loop's entry counter is cached", split)
		}
	})
}

// restartedLoops lists the loops of r whose counter the reverse restarts
// on entry: every store to their entry counter's exit slot stores 0.
func restartedLoops(r *reverseGen) []*irutil.Loop {
	var out []*irutil.Loop
	for _, l := range r.cfg.Loops {
		s, ok := r.exitSlots[l]
		if !ok {
			continue
		}
		zero := true
		for _, b := range r.g.Blocks {
			for _, inst := range b.Insts {
				if st, ok := inst.(*ir.InstStore); ok && st.Dst == s {
					if c, isInt := st.Src.(*constant.Int); !isInt || c.X.Sign() != 0 {
						zero = false
					}
				}
			}
		}
		if zero {
			out = append(out, l)
		}
	}
	return out
}

// TestRestartedCountersIR: comps's centring loop (vectorized at -O2 and
// -O3, with its remainder) caches nothing per iteration, and its reverse
// restarts its counter on entry; the forward sweep then reads the counter
// only to step it. No loop with records is restarted in comps, tricomp
// or afterx but those in no other loop, whose counters start from 0
// (countsFromZero).
func TestRestartedCountersIR(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		m := preADModuleC(t, exitNests(t), o)
		for _, name := range []string{"comps", "tricomp", "afterx"} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, name, split, "restart_"+name)
				restarted := restartedLoops(r)
				for _, l := range restarted {
					lc := r.loops[l]
					if lc.rec != nil && !r.countsFromZero(l) {
						t.Errorf("-O%s %s (split %v): the loop at %s has records, is in another loop, and its counter restarts", o, name, split, l.Header.Ident())
					}
					for _, blk := range []*ir.Block{r.fwdHead[l.Header], r.fwdTail[l.Header]} {
						for _, inst := range blk.Insts {
							if ld, ok := inst.(*ir.InstLoad); ok && ld.Src == lc.counter && ld != lc.fwdIdx {
								t.Errorf("-O%s %s (split %v): the forward header of the loop at %s reads its restarted counter: %s", o, name, split, l.Header.Ident(), ld.LLString())
							}
						}
					}
				}
				if name == "comps" && (o == "2" || o == "3") && len(restarted) == 0 {
					t.Errorf("-O%s comps (split %v): no loop counter restarted", o, split)
				}
				t.Logf("-O%s %s (split %v): %d of %d loops restart their counter", o, name, split, len(restarted), len(r.cfg.Loops))
				d.dropFunc(r.g)
			}
		}
	}
}

// TestExitEntryLastIterationRun: a loop whose bound is reloaded, in each
// iteration of the loop around it, after a call that may write it; the
// loop after them reads the last reload. Its reverse, entered from its
// exit, counts its iterations from that bound, cached per iteration of the
// loop it is read in: the count must read the loop's last iteration (the
// counter stepped back), not one past it.
func TestExitEntryLastIterationRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "exit_entry_last_iteration.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "1")) })
}
