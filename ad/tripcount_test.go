package ad

import (
	"strings"
	"testing"
)

// tripLoops are loop shapes whose caches are reserved from trip counts
// (counting up and down, <, <=, !=, steps of 2, unsigned, nests with
// invariant bounds) and shapes that fall back to growth (a triangular nest,
// a data-dependent exit, an early break), all overwriting memory so that
// every loop caches per iteration.
func tripLoops(t *testing.T) string {
	t.Helper()
	return testdataC(t, "trip_loops.c")
}

func TestTripCountReservation(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + tripLoops(t) + testdataC(t, "trip_count_reservation.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// reallocCounter is C source defining the program's own realloc, which
// counts its calls in reallocs and forwards them to the C library's.
func reallocCounter(t *testing.T) string {
	t.Helper()
	return testdataC(t, "realloc_counter.c")
}

// With trip counts known on entry to the nest, a gradient allocates each
// cache buffer once, whatever the size: no more reallocs for n = 64 than
// for n = 8 (growth would add one per doubling; buffers retained from the
// n = 8 call may need none). A second call of the same size reuses the
// retained buffers (retain.go): no realloc at all.
func TestTripCountAllocatesOnce(t *testing.T) {
	t.Parallel()
	src := reallocCounter(t) + testdataC(t, "trip_count_allocates_once.c")
	for _, o := range []string{"1", "2", "3"} {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			t.Log(strings.TrimSpace(out))
			if !strings.Contains(out, "reallocs:") {
				t.Errorf("unexpected output %q", out)
			}
		})
	}
}

// A loop of n iterations caching doubles reserves n per buffer from its
// trip count: exactly that, n·8 bytes (n+1 at -O0, where the loop
// exits from its header), on the first allocation, not rounded up to the
// 8 elements growth starts from (3 iterations took 64 bytes). In a nest
// of 20 steps over 6 elements, 120 per buffer at -O1 (140 at -O0, where
// the inner loop exits from its header and the steps' last header
// execution enters nothing: 147 were reserved). No buffer grows after its
// first allocation, as it would from an underestimate. The gradients match
// central differences. (-fno-math-errno: with errno, sin may write memory,
// x is loaded again after it, and that second value shares each record.)
func TestTripCountExactReservation(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "trip_count_exact_reservation.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o, "-fno-math-errno"))
			t.Log(strings.TrimSpace(out))
		})
	}
}
