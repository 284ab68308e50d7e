package ad

import (
	"testing"
)

// counterNests are loop nests whose inner loops cache values per iteration
// (they overwrite what they read), so that the reverse sweep needs each
// inner loop's counter on entry: a rectangular nest, where it is
// recomputed from the counters around it (counters.go), and nests where it
// is not and stays cached: a triangular one (j from i), a data-dependent
// inner trip count, a guard on the data, and early exits from the inner
// loop; three of them also as callees (split gradients).
func counterNests(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "counter_nests.c")
}

// The rectangular nest's tape is what it overwrites (3 steps × 64 doubles)
// and a few bytes per step, the same for 4 rows of 16 columns as for 16
// rows of 4: no entry counter of the column loop cached per (step, row),
// which would take 3 × 12 × 8 = 288 B more for 16 rows (at -O0, 288 B
// more than the one slot per row that -O0's loop shape takes). Every nest's
// gradient matches central differences at every level.
func TestRecomputedEntryCounters(t *testing.T) {
	t.Parallel()
	const overwritten = 3 * 64 * 8
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, counterNests(t), o)
			t4 := tapeOf(t, run(t, exe), "rect")
			t16 := tapeOf(t, runEnv(t, exe, "ROWS=16"), "rect")
			t.Logf("rect tape %d B (4 rows), %d B (16 rows), overwritten %d B", t4, t16, overwritten)
			if t4 < overwritten || t16 < overwritten {
				t.Errorf("-O%s: rect keeps %d B and %d B of tape, less than the %d B it overwrites", o, t4, t16, overwritten)
			}
			// At -O0 the column loop exits from its header: each entry
			// takes one more slot, 8 B per row (the cache is indexed by
			// header executions).
			slack := 0
			if o == "0" {
				slack = 3 * (16 - 4) * 8
			}
			if d := t16 - t4 - slack; d < -64 || d > 64 {
				t.Errorf("-O%s: rect keeps %d B of tape with 16 rows, %d B with 4: bookkeeping per row", o, t16, t4)
			}
		})
	}
}
