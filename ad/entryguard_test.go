package ad

import (
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// guardKernels: loops in steps whose vectorized (or runtime-unrolled)
// inner loop has an exact trip count computed before the step loop, from
// which the buffer of the inner loop's records grows once on entry to the
// step loop (entrygrow.go). Where the vector loop is skipped (m below the
// vector width, or an alias check failing), that count is computed from
// values the primal never uses, such as (((m & ~3) - 4) >>u 2) + 1, 2^62
// at m < 4: the growth must not count it (where the guards skip the
// loop, the nest grows nothing). vlast and vpair
// carry a value out of the vector loop, vshift shifts x in place (the
// alias check sends it to the scalar loop), vtail's reduction is
// unrolled with a remainder (no fast-math), vneg's bound m - 2 is
// negative for n < 6 (its loop skipped by the zero-trip guard; it trapped
// at -O2 too), and vcond enters its loop on a condition that
// changes from step to step.
func guardKernels(t *testing.T) string {
	t.Helper()
	return pathKernels(t) + testdataC(t, "guard_kernels.c")
}

// guardRuns checks the gradients of guardKernels against central
// differences at m = 0..9, combined and as callees.
func guardRuns(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + guardKernels(t) + testdataC(t, "guard_runs.c")
}

// The step loops' gradients match central differences at every level,
// where the vector loops run and where they are skipped, and at -O2 under
// valgrind (no record buffer asked of an absurd size, none leaked).
func TestEntryGuardRun(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, guardRuns(t), o)
			run(t, exe)
			if o == "2" {
				runLeakChecked(t, exe)
			}
		})
	}
}

// At -O2, vlast's vector loop grows its records on entry to the step loop,
// counted only where its guards (min.iters.check, the alias check, the
// zero-trip guards) enter it, all computed before the step loop; vcond's
// loops are entered on a condition computed in the step loop, and grow
// on their own entry.
func TestEntryGuardsIR(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, "#include <math.h>\n"+guardKernels(t)+"int main(void) { return 0; }\n", "2")
	for _, tc := range []struct {
		name    string
		guarded bool
	}{{"vlast", true}, {"vcond", false}} {
		d, r := reverseOf(t, m, tc.name, false, "guards_"+tc.name)
		guarded, hoisted := 0, 0
		grownAround(r, func(l, top *irutil.Loop, chain []countFactor) {
			hoisted++
			for cur, k := l, 0; cur != top; cur, k = cur.Parent, k+1 {
				for _, g := range chain[k].guards {
					for _, c := range g.conds() {
						// A decision over paths (entryPaths) need not dominate.
						if b, ok := r.blockOf[c]; ok && (r.primal().DefinedIn(top, c) || (g.paths == nil && !r.cfg.Dominates(b, cur.Header))) {
							t.Errorf("%s: guard %s of a loop at %s is not decided before the loop at %s", tc.name, c.Ident(), cur.Header.Ident(), top.Header.Ident())
						}
					}
				}
				if len(chain[k].guards) > 0 {
					guarded++
				}
			}
		})
		if tc.guarded && guarded == 0 {
			t.Errorf("%s: no loop grows its records on entry to a loop around it under guards", tc.name)
		}
		if !tc.guarded && hoisted > 0 {
			t.Errorf("%s: %d loops grow their records on entry to a loop around them, whose iterations decide whether they run", tc.name, hoisted)
		}
		d.dropFunc(r.g)
	}
}
