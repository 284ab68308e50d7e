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
	src := memoryPrelude + tripLoops(t) + `
int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(shapes_copy);
	GRADCHECK(nests_copy);
	GRADCHECK(exits_copy);
	return failures != 0;
}
`
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
	src := reallocCounter(t) + `extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double nest(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(x[j] - x[i]) * x[j];
			x[i] += 0.1 * f;
		}
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}
static long count(int n) {
	static double x[64], dx[64];
	for (int i = 0; i < n; i++) x[i] = 0.01 * i, dx[i] = 0;
	long before = reallocs;
	__enzyme_autodiff((void *)nest, enzyme_dup, x, dx, enzyme_const, n);
	return reallocs - before;
}
int main(void) {
	long small = count(8), large = count(64), again = count(64);
	printf("reallocs: n=8 %ld, n=64 %ld, n=64 again %ld\n", small, large, again);
	return !(small > 0 && large <= small && again == 0);
}
`
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
	src := testdataC(t, "trip_count_exact_reservation.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o, "-fno-math-errno"))
			t.Log(strings.TrimSpace(out))
		})
	}
}
