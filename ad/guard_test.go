package ad

import "testing"

// guardedNests are loop nests whose inner loops load particles an
// enclosing loop (i, or the steps s) does not write, so that they are
// cached without its dimension (hoist.go), but are entered in some
// iterations only: guards on the data, on the indices, on values the i
// loop computes, guards skipping the first or all but the last iteration,
// continue and break in the i loop, sibling loops one of which is guarded,
// a load of memory written only in the iterations that skip the loop; and
// an inner loop whose entry counter the reverse recomputes (counters.go)
// under a guard. Several also as callees (split gradients).
func guardedNests(t *testing.T) string {
	t.Helper()
	return testdataC(t, "guarded_nests.c")
}

// guardedNames are the kernels of guardedNests checked by
// TestHoistGuardedNests (callees included).
var guardedNames = []string{"gmid", "gidx", "ginv", "gfirst", "glast", "gcomputed", "gcont", "gbreak", "gsib", "gskipw", "gouter", "gentry",
	"gmidw", "gstep", "gkind", "gmid_callee", "gmidw_callee", "gstep_callee", "gkind_callee", "gentry_callee", "gmidv", "gmidv_callee", "gidx_callee", "gfirst_callee", "gsib_callee", "gskipw_callee"}

// Every guarded nest's gradient matches central differences at every
// level, combined and split (the _callee variants).
func TestHoistGuardedNests(t *testing.T) {
	t.Parallel()
	main := "int main(void) {\n"
	for _, f := range guardedNames {
		main += "\tCHECK_PARTICLES(" + f + ", 12);\n"
	}
	main += "\treturn failures != 0;\n}\n"
	src := particleC(t) + guardedNests(t) + main
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			run(t, buildC(t, src, o))
		})
	}
}

// The analysis on the guarded nests at -O2, where the j loop is unrolled
// and each k loop's preheader is the guard itself, in the i loop: the k
// loops of gmidw, gstep and gmidv are entered in other i iterations from
// one step to the next, so nothing of them is cached without the step
// loop's dimension (it was: gmidw's gradients and gmidv's split one were
// wrong); gkind's guard is the same in every step, and its k loops'
// values are cached without it. Combined and split gradients.
func TestHoistGuardedIR(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, particleC(t)+guardedNests(t)+"int main(void) { return 0; }\n", "2")
	for _, tc := range []struct {
		name     string
		overStep bool
	}{{"gmidw", false}, {"gstep", false}, {"gmidv", false}, {"gkind", true}} {
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, tc.name, split, "guarded_"+tc.name)
			overStep := false
			for _, h := range r.hoists {
				// The step loop is the outermost loop around a nest.
				overStep = overStep || (h.over.Parent == nil && h.inner.Parent != h.over)
			}
			if overStep != tc.overStep {
				t.Errorf("%s (split %v): values of a k loop cached without the step loop: %v, want %v", tc.name, split, overStep, tc.overStep)
			}
			d.dropFunc(r.g)
		}
	}
}
