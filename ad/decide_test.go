package ad

import "testing"

// waysKernels: ways' guards test the arguments (decided outside the step
// loop: the reverse re-reads them, decide.go); waysdata's test the data,
// which change from step to step (a record per step stays).
func waysKernels(t *testing.T) string {
	t.Helper()
	return testdataC(t, "ways_kernels.c")
}

// decisionNests are steps ending in a block entered three ways: past the
// two guards, through the loop under both, or through the other branch
// (waysKernels). Each runs with n
// taking every way (12: the loop, 6: the other branch, 3: past both),
// combined and as a callee (split).
func decisionNests(t *testing.T) string {
	t.Helper()
	return memoryPrelude + waysKernels(t) + testdataC(t, "decision_nests.c")
}

// Every way through decisionNests is differentiated right at every level,
// and leaks nothing.
func TestDecisionTrees(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, decisionNests(t), o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, decisionNests(t), "2")) })
}

// At -O1, where the step loop ends in a block of three predecessors (-O2
// unswitches and unrolls it), the reverse of ways (and of particles, where
// the zero-trip guards of its loops merge at the end of a step) reads no
// record of the way taken: the guards decide it. waysdata keeps one.
func TestDecisionTreeIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"1"} {
		m := preADModuleC(t, particleC(t)+waysKernels(t)+"int main(void) { return 0; }\n", o)
		for _, tc := range []struct {
			name   string
			record bool
		}{{"ways", false}, {"particles", false}, {"waysdata", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "ways_"+tc.name)
				records, trees := 0, 0
				for b, phi := range r.predIdx {
					if isCached(r, phi) {
						records++
					}
					if _, ok := r.decisionTree(b); ok && len(r.cfg.Preds[b]) > 2 && r.cfg.LoopOf[b] != nil {
						trees++
					}
				}
				if (records > 0) != tc.record {
					t.Errorf("-O%s %s (split %v): %d records of the way taken cached, want some: %v", o, tc.name, split, records, tc.record)
				}
				if !tc.record && trees == 0 {
					t.Errorf("-O%s %s (split %v): no block of three predecessors in a loop decided by branches", o, tc.name, split)
				}
				d.dropFunc(r.g)
			}
		}
	}
}
