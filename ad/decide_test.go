package ad

import "testing"

// waysKernels: ways' guards test the arguments (decided outside the step
// loop: the reverse re-reads them, decide.go); waysdata's test the data,
// which change from step to step (a record per step stays).
const waysKernels = `
#define WAYS_KERNEL(f, SETUP, A, B) \
__attribute__((noinline)) double f(double *x, int n) { \
	SETUP; \
	for (int s = 0; s < 3; s++) { \
		if (A) { \
			if (B) { \
				for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1; \
			} else { \
				x[0] = cos(x[0]) * x[1]; \
			} \
		} \
		x[s] = x[s] * x[n - 1] + 0.2; \
	} \
	double e = 0; \
	for (int i = 0; i < n; i++) e += x[i] * (i + 1); \
	return e; \
}
WAYS_KERNEL(ways, int a = n > 4; int b = n > 8, a, b)
WAYS_KERNEL(waysdata, (void)0, x[0] > 0.3, x[1] > 0.2)
`

// decisionNests are steps ending in a block entered three ways: past the
// two guards, through the loop under both, or through the other branch
// (waysKernels). Each runs with n
// taking every way (12: the loop, 6: the other branch, 3: past both),
// combined and as a callee (split).
const decisionNests = memoryPrelude + waysKernels + `
#define CALLEE(f) __attribute__((noinline)) double f##_callee(double *x, int n) { return 2 * f(x, n); }
CALLEE(ways)
CALLEE(waysdata)
#define COPY16(f) static double f##_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY16(ways)
COPY16(waysdata)
COPY16(ways_callee)
COPY16(waysdata_callee)
#define WAYS(f, n) do { \
		double x[n], xc[n], dx[n]; \
		for (int i = 0; i < n; i++) x[i] = 0.25 + 0.11 * i - 0.01 * i * i, dx[i] = 0; \
		memcpy(xc, x, sizeof x); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, n); \
		fdcheck(#f, f##_copy, x, n, dx); \
	} while (0)
int main(void) {
	WAYS(ways, 12); WAYS(ways, 6); WAYS(ways, 3);
	WAYS(waysdata, 12); WAYS(waysdata, 6); WAYS(waysdata, 3);
	WAYS(ways_callee, 12); WAYS(ways_callee, 6);
	WAYS(waysdata_callee, 12); WAYS(waysdata_callee, 6);
	return failures != 0;
}
`

// Every way through decisionNests is differentiated right at every level,
// and leaks nothing.
func TestDecisionTrees(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, decisionNests, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, decisionNests, "2")) })
}

// At -O1, where the step loop ends in a block of three predecessors (-O2
// unswitches and unrolls it), the reverse of ways (and of particles, where
// the zero-trip guards of its loops merge at the end of a step) reads no
// record of the way taken: the guards decide it. waysdata keeps one.
func TestDecisionTreeIR(t *testing.T) {
	for _, o := range []string{"1"} {
		m := preADModuleC(t, particleC+waysKernels+"int main(void) { return 0; }\n", o)
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
