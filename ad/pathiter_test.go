package ad

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// iterNests are nests whose inner loop's trip count depends on the outer
// loop's induction variable, vectorized at -O2 and -O3 into a vector body
// and a scalar remainder: the join after them is decided per outer
// iteration by min.iters.check and cmp.n, functions of that count
// (pathdecide.go's iterationCond). trirun is GMM's triangle, j = i+1 .. d
// with a running index li carried across i; skew runs j = 0 .. d-i over
// q[i+j]; grow runs j = 0 .. i. In datacount the count is data (x[i]
// compared): its join keeps its record. xc is rewritten per component c,
// so the outer loops cache xc[i].
const iterNests = loopRunPrelude + `
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
int K = 3; /* not a constant: the component loops stay loops at -O3 */
#define XC(c, j) (x[((c) * d + (j)) % n] * x[((c) * d + (j) + 1) % n] - 0.5)
__attribute__((noinline)) double trirun(double *x, int n) {
	int d = DIM, lsz = d * (d - 1) / 2;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j] * x[j];
		int li = K * d + c * lsz;
		for (int i = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) q[j] += x[li++] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double skew(double *x, int n) {
	int d = DIM;
	double xc[16], q[32], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < 2 * d; j++) q[j] = 0.25 * j;
		for (int i = 0; i < d; i++)
			for (int j = 0; j < d - i; j++) q[i + j] += x[K * d + i * d + j] * xc[i];
		for (int j = 0; j < 2 * d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double grow(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j];
		for (int i = 0; i < d; i++)
			for (int j = 0; j <= i; j++) q[j] += x[K * d + i * d + j] * xc[i];
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
__attribute__((noinline)) double datacount(double *x, int n) {
	int d = DIM;
	double xc[16], q[16], e = 0;
	for (int c = 0; c < K; c++) {
		for (int j = 0; j < d; j++) xc[j] = XC(c, j);
		for (int j = 0; j < d; j++) q[j] = xc[j];
		for (int i = 0; i < d; i++) {
			int m = x[i] > 0.4 ? d : d - i;
			for (int j = 0; j < m; j++) q[j] += x[K * d + i * d + j] * xc[i];
		}
		for (int j = 0; j < d; j++) e += q[j] * q[j];
	}
	return e;
}
CALLEE(trirun)
CALLEE(skew)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(trirun)
COPY(skew)
COPY(grow)
COPY(datacount)
COPY(trirun_callee)
COPY(skew_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(trirun, 128);
	FDRUN(skew, 128);
	FDRUN(grow, 128);
	FDRUN(datacount, 128);
	FDRUN(trirun_callee, 128);
	FDRUN(skew_callee, 128);
	return failures != 0;
}
`

var iterWants = []string{"ok trirun[127]", "ok skew[127]", "ok grow[127]", "ok datacount[127]", "ok trirun_callee[127]", "ok skew_callee[127]"}

// TestIterationPathRun: the nests' gradients match central differences at
// every level, combined and split, with d = 0, 1, 2, 3, 5 and 7 (at d = 7 the
// inner loops take every way past the vector loop: skipped, run alone, run
// and followed by the remainder), and leak nothing.
func TestIterationPathRun(t *testing.T) {
	runSizes(t, iterNests, "DIM", []string{"0", "1", "2", "3", "5", "7"},
		iterWants)
}

// TestIterationPathIR: at -O2 and -O3, no loop of trirun, skew or grow
// records the way taken past its vector loop (the joins are decided by
// paths whose conditions are rebuilt per outer iteration); datacount's
// count is data, and its outer loop keeps the record.
func TestIterationPathIR(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, iterNests, o)
		for _, tc := range []struct {
			name   string
			record bool
		}{{"trirun", false}, {"skew", false}, {"grow", false}, {"datacount", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "iter_"+tc.name)
				records := 0
				for b, phi := range r.predIdx {
					if r.cfg.LoopOf[b] != nil && isCached(r, phi) {
						records++
					}
				}
				if (records > 0) != tc.record {
					t.Errorf("-O%s %s (split %v): %d records of the way taken in loops, want some: %v", o, tc.name, split, records, tc.record)
				}
				d.dropFunc(r.g)
			}
		}
	}
}

// TestIterationCondIR: in triIR's outer loop, the join after the vector
// loop and its remainder (latch) is decided by its paths, from %small and
// %all, functions of i+1 (iterationCond); the way taken is not cached.
// The reverse entry counts of the remainder (an exact != loop left
// through its exit test) carry no clamp of a negative distance.
func TestIterationCondIR(t *testing.T) {
	eachReverse(t, triIR, []Activity{Dup, Dup, Dup, Const}, func(r *reverseGen, split bool) {
		latch := r.blockOf[findValue(r.f, "i1.next")]
		tree, ok := r.pathDecision(latch)
		if !ok {
			t.Fatalf("split=%v: the latch is not decided by paths", split)
		}
		conds := map[string]bool{}
		var walk func(d *decision)
		walk = func(d *decision) {
			if d == nil || d.pred != nil {
				return
			}
			conds[d.cond.Ident()] = true
			walk(d.onTrue)
			walk(d.onFalse)
		}
		walk(tree)
		if !conds["%small"] || !conds["%all"] {
			t.Errorf("split=%v: the latch's tree tests %v, want %%small and %%all", split, conds)
		}
		if p, ok := r.predIdx[latch]; ok && isCached(r, p) {
			t.Errorf("split=%v: the way into the latch is cached", split)
		}
		scalar := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
		if len(r.exitPres[scalar]) == 0 {
			t.Fatalf("split=%v: the remainder's reverse does not restart its entry counter", split)
		}
		for _, x := range r.exitPres[scalar] {
			if negClamp(x.n, 8) {
				t.Errorf("split=%v: the remainder's entry count %s clamps a negative distance", split, x.n.Ident())
			}
		}
	})
}

// negClamp reports whether v, within depth operands, selects on a
// comparison "x < 0" (headerCount's clamp of a negative distance).
func negClamp(v value.Value, depth int) bool {
	inst, ok := v.(ir.Instruction)
	if !ok || depth < 0 {
		return false
	}
	if s, ok := inst.(*ir.InstSelect); ok {
		if c, ok := s.Cond.(*ir.InstICmp); ok && c.Pred == enum.IPredSLT && c.Y.Ident() == "0" {
			return true
		}
	}
	for _, op := range inst.Operands() {
		if negClamp(*op, depth-1) {
			return true
		}
	}
	return false
}
