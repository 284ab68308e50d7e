package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// loopSumKernels read an element at an address fixed across a loop (x[i] in
// a loop over j) and add its adjoint into a sum of its own, added into the
// shadow once on leaving the loop (loopsum.go), where that is sound; the
// others are the cases where it is not: the loop writes those bytes
// through an alias, gives the shadowed pointer to a call, or an outer loop
// stores there between runs of the inner one.
const loopSumKernels = `
/* x[i] read in every iteration over j; the loop writes a local buffer. */
__attribute__((noinline)) double sum_local(double *x, int n) {
	double buf[8] = {0};
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			buf[j & 7] = buf[(j + 1) & 7] * 0.5 + x[i] * x[j];
			s += buf[j & 7] * x[i];
		}
	return s;
}
/* The read under a condition: it stays in the loop at every level. */
__attribute__((noinline)) double sum_cond(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (x[j] > 0.35) s += x[i] * x[j] * x[j];
	return s;
}
/* x[0] read three loops deep; the outer loop overwrites it between runs of
   the inner two: the sum is added before the store's reverse reads the
   shadow. */
__attribute__((noinline)) double sum_nest(double *x, int n) {
	double s = 0;
	for (int k = 0; k < n / 3; k++) {
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (x[j] < 0.5) s += x[0] * x[j] * (i + 1);
		x[0] = x[0] * 0.5 + sin(s) * 0.01;
	}
	return s;
}
/* y and x are the same array: the loop writes what it reads through x. */
__attribute__((noinline)) double alias_kernel(double *y, const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			s += x[i] * y[j];
			y[(j + 1) % n] = 0.9 * y[(j + 1) % n] + 0.2 * x[i] * x[i];
		}
	return s;
}
__attribute__((noinline)) double sum_alias(double *x, int n) { return alias_kernel(x, x, n); }
/* A call given the shadowed pointer in the loop, one reading, one writing. */
__attribute__((noinline)) double peek(const double *x, int j) { return x[j] * x[j]; }
__attribute__((noinline)) double poke(double *x, int j) { double v = x[j]; x[j] = v * 0.99 + 0.01; return v; }
__attribute__((noinline)) double sum_call(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (x[j] > 0.31) s += x[i] * peek(x, j);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			s += x[i] * poke(x, j);
	return s;
}
/* The address computed in the outer loop, read in the inner one. */
__attribute__((noinline)) double sum_gather(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double *p = x + (i * 5 + 2) % n;
		for (int j = 0; j < n; j++)
			if (x[j] < 0.4) s += *p * x[j] + p[0] * p[0] * 0.1;
	}
	return s;
}
/* Leaving the inner loop early (its reverse entered from the break). */
__attribute__((noinline)) double sum_break(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (x[i] * x[j] > 0.2 + 0.013 * i) break;
			s += x[i] * x[j] * x[j];
		}
	return s;
}
/* x[0] read while x[1] is written in the same loop: other bytes. */
__attribute__((noinline)) double sum_fields(double *x, int n) {
	double s = 0;
	for (int j = 2; j < n; j++) {
		if (x[j] > 0.3) s += x[0] * x[j] + x[1];
		x[1] = x[1] * 0.9 + x[j] * x[0] * 0.1;
	}
	return s + x[1];
}
/* A helper given no pointer writes the element through a global pointer
   (TestWritesThroughGlobalPointerStops). */
static double *gx;
__attribute__((noinline)) void bump(int j) { gx[j] = gx[j] * 0.95 + 0.05 * gx[j] * gx[j]; }
__attribute__((noinline)) double sum_hidden(double *x, int n) {
	double s = 0;
	gx = x;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (x[j] < 0.5) s += x[i] * x[j];
			bump((i + j) % n);
		}
	return s;
}
COPY64(sum_local) COPY64(sum_cond) COPY64(sum_nest) COPY64(sum_alias)
COPY64(sum_call) COPY64(sum_gather) COPY64(sum_break) COPY64(sum_fields)
/* The same differentiated as callees (split: the sums in the reverse). */
CALLEE(sum_cond) CALLEE(sum_nest) CALLEE(sum_gather) CALLEE(sum_alias)
COPY64(sum_cond_callee) COPY64(sum_nest_callee) COPY64(sum_gather_callee) COPY64(sum_alias_callee)
`

// TestLoopSumsRun: the gradients of loopSumKernels against central
// differences at every level.
func TestLoopSumsRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + loopSumKernels + `
int main(void) {
	FDRUN(sum_local, 9); FDRUN(sum_cond, 9); FDRUN(sum_nest, 9); FDRUN(sum_alias, 9);
	FDRUN(sum_call, 9); FDRUN(sum_gather, 9); FDRUN(sum_break, 9); FDRUN(sum_fields, 9);
	FDRUN(sum_cond_callee, 9); FDRUN(sum_nest_callee, 9); FDRUN(sum_gather_callee, 9); FDRUN(sum_alias_callee, 9);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
}

// TestLoopSumsChosen: at -O2 the reads left in their loops (under a
// condition) are summed in the sound cases, and none in the others; in
// sum_nest in the loops inside the one storing the element, not in it.
// (The other kernels' reads are hoisted out of their loops at -O2.)
func TestLoopSumsChosen(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, loopRunPrelude+loopSumKernels+"int main(void) { return 0; }\n", "2", linkedLoops...)
	want := map[string]bool{
		"sum_cond": true, "sum_nest": true, "sum_gather": true,
		"alias_kernel": false, "sum_call": false, "sum_hidden": false,
	}
	d := newDiffer(m, Options{})
	var fs []*ir.Func
	for _, f := range m.Funcs {
		if _, ok := want[f.Name()]; ok {
			fs = append(fs, f)
		}
	}
	for _, f := range fs {
		acts := []activity.Activity{activity.Dup, activity.Const}
		if f.Name() == "alias_kernel" {
			acts = []activity.Activity{activity.Dup, activity.Dup, activity.Const}
		}
		r, err := d.generateReverse(func() (*reverseGen, error) {
			return newReverseGen(d, f, acts, true, false, false, "grad_"+f.Name())
		})
		if err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		sums := 0
		for _, g := range r.partials {
			if g.load != nil {
				sums++
				if f.Name() == "sum_nest" && g.loop.Parent == nil {
					t.Errorf("sum_nest: a read summed over the outer loop, which stores the element")
				}
			}
		}
		if got := sums > 0; got != want[f.Name()] {
			t.Errorf("%s: %d reads summed per loop, want any: %v", f.Name(), sums, want[f.Name()])
		}
	}
}

// TestWritesThroughGlobalPointerStops: sum_hidden's helper writes x
// through a global holding x, and the helper is given no derivatives, so
// it is not differentiated: the link stops (the derivative would be lost;
// the global cannot carry x's shadow) instead of returning a gradient
// without those writes.
func TestWritesThroughGlobalPointerStops(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + loopSumKernels + `
COPY64(sum_hidden)
int main(void) {
	FDRUN(sum_hidden, 9);
	return failures != 0;
}
`
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildCLinked(t, src, o)
		if err == nil || !strings.Contains(err.Error(), "into global 'gx', which has no shadow") {
			t.Errorf("-O%s: want the lost-derivative error naming gx, got %v", o, err)
		}
	}
}
