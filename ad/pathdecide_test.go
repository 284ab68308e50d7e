package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
)

// pathKernels: steps around loops the vectorizer splits into a vector body
// and a scalar remainder (pathdecide.go). In vsteps and vlast the trip
// count m is the same in every step: the joins after the vector loops are
// decided by min.iters.check, the alias check and cmp.n, computed before
// the step loop, and by the remainder's start (a phi the path fixes); they
// keep no record per step. vlast's loop has a live-out value, which the
// join merges from the vector and the scalar loop. vsum's reduction is not
// vectorized (no fast-math) but unrolled with a remainder, whose joins the
// dominating branches decide (decide.go). In vdata the trip count depends
// on data each step changes: its joins keep their record.
const pathKernels = `
/* STEPS(f, body): f runs body in steps over x[0..n), with m = n/2. */
#define STEPS(f, ...) __attribute__((noinline)) double f(double *x, int n) { \
	int m = n / 2, steps = n > 3 ? 3 : n; \
	double e = 0; \
	for (int s = 0; s < steps; s++) { __VA_ARGS__ } \
	return e; \
}
STEPS(vsteps,
	for (int i = 0; i < m; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
	for (int i = 0; i < m; i++) x[i] = sin(x[i]) + 0.25 * x[m + i];
	e += x[s] * x[n - 1];)
STEPS(vsum,
	double t = 0;
	for (int i = 0; i < m; i++) t += x[m + i] * x[i];
	x[s] = cos(t) * x[s];
	e += t;)
STEPS(vlast,
	double y = 0;
	for (int i = 0; i < m; i++) {
		y = x[i] * x[m + i];
		x[m + i] = y + 0.1;
	}
	e += y * x[s];)
__attribute__((noinline)) double vnest(double *x, int n) {
	int rounds = n > 3 ? 3 : n, steps = 2 + (n & 1);
	double e = 0;
	for (int r = 1; r <= rounds; r++) {
		int m = n / 2 - r + 1;
		for (int s = 0; s < steps; s++) {
			for (int i = 0; i < m; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
			e += x[s] * x[n - 1];
		}
	}
	return e;
}
STEPS(vdata,
	int k = x[s] > 0.45 ? m : m / 2;
	for (int i = 0; i < k; i++) x[m + i] = x[m + i] * 0.9 + x[i] * x[i];
	x[(s + 1) % n] = x[(s + 1) % n] + 0.2 * s;
	e += x[s] * x[n - 1];)
`

// pathRuns differentiates pathKernels with m = n/2 below, at and above the
// vector width (4 doubles at -O2: VF 2, interleaved twice), combined and
// as callees.
const pathRuns = loopRunPrelude + pathKernels + `
CALLEE(vsteps)
CALLEE(vlast)
CALLEE(vsum)
CALLEE(vdata)
CALLEE(vnest)
COPY64(vnest)
COPY64(vnest_callee)
COPY64(vsteps)
COPY64(vlast)
COPY64(vlast_callee)
COPY64(vsum)
COPY64(vdata)
COPY64(vsteps_callee)
COPY64(vsum_callee)
COPY64(vdata_callee)
#define ALL(n) FDRUN(vsteps, n); FDRUN(vsum, n); FDRUN(vnest, n); FDRUN(vdata, n); FDRUN(vlast, n); \
	FDRUN(vlast_callee, n); FDRUN(vsteps_callee, n); FDRUN(vsum_callee, n); FDRUN(vnest_callee, n); FDRUN(vdata_callee, n)
int main(void) {
	ALL(2); ALL(4); ALL(6); ALL(8); ALL(10); ALL(16); ALL(18); ALL(27);
	return failures != 0;
}
`

// The gradients through every way past the vector loops match central
// differences at -O2 and -O3 (where the vectorizer splits the loops), and
// at -O0 and -O1 (where the joins are the plain zero-trip guards).
func TestPathDecisionRun(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, pathRuns, o)) })
	}
}

// At -O2, the joins after vsteps' and vsum's vector loops are decided by
// paths (no record of the way taken in the step loop); vdata keeps one.
func TestPathDecisionIR(t *testing.T) {
	m := preADModuleC(t, "#include <math.h>\n"+pathKernels+"int main(void) { return 0; }\n", "2")
	for _, tc := range []struct {
		name         string
		record, path bool
	}{{"vsteps", false, true}, {"vlast", false, true}, {"vsum", false, false}, {"vnest", false, true}, {"vdata", true, false}} {
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, tc.name, split, "paths_"+tc.name)
			records, paths := 0, 0
			for b, phi := range r.predIdx {
				if r.cfg.LoopOf[b] == nil {
					continue
				}
				if isCached(r, phi) {
					records++
				}
				if _, ok := r.pathDecision(b); ok && !r.decidedByDominators(b) {
					paths++
				}
			}
			if (records > 0) != tc.record {
				t.Errorf("%s (split %v): %d records of the way taken cached in loops, want some: %v", tc.name, split, records, tc.record)
			}
			if tc.path && paths == 0 {
				t.Errorf("%s (split %v): no join in a loop decided by its paths", tc.name, split)
			}
			d.dropFunc(r.g)
		}
	}
}

// decidedByDominators reports whether the rules before pathDecision decide
// b (reverseBlock's order).
func (r *reverseGen) decidedByDominators(b *ir.Block) bool {
	if _, ok := r.entryCount[b]; ok {
		return true
	}
	if _, _, _, _, ok := r.triangle(b); ok {
		return true
	}
	if _, _, _, ok := r.diamond(b); ok {
		return true
	}
	if _, _, _, ok := r.decidingBranch(b); ok {
		return true
	}
	_, ok := r.decisionTree(b)
	return ok && len(r.cfg.Preds[b]) > 2
}
