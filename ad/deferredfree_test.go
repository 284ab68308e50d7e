package ad

import "testing"

// TestDeferredConditionalFree: a free outside loops but not on every path
// (a vector's destructor frees a non-null buffer only) waits for the end of
// the gradient, its argument recorded where it runs: the reverse sweep
// reads the buffer again after the primal freed it, and nothing leaks on
// either path.
func TestDeferredConditionalFree(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + `
__attribute__((noinline)) double cond_free(double *x, int n) {
	double *t = x[0] > 0.2 ? malloc(n * sizeof *t) : NULL;
	double s = 0;
	if (t) {
		for (int i = 0; i < n; i++) t[i] = sin(x[i]);
		for (int i = 0; i < n; i++) s += t[i] * t[(i + 1) % n];
	}
	if (t) free(t);
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}
COPY64(cond_free)
int main(void) {
	FDRUN(cond_free, 7);
	double y[3] = {0.1, 0.5, 0.7}, dy[3] = {0};
	__enzyme_autodiff((void *)cond_free, enzyme_dup, y, dy, enzyme_const, 3);
	check("cond_free null path", dy[1], 1.0, 1e-12);
	return failures != 0;
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { runLeakChecked(t, buildCLinked(t, src, o)) })
	}
}
