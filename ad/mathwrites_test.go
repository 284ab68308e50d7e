package ad

import "testing"

// TestFrexpExponentKept: frexp writes its exponent through its pointer; the
// exponent each iteration reads, which the next overwrites, is what the
// reverse sweep uses, not the last one.
func TestFrexpExponentKept(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + `
__attribute__((noinline)) double mantissas(double *x, int n) {
	int e = 0;
	double s = 0;
	for (int i = 0; i < n; i++) {
		double m = frexp(x[i] * (1 << i), &e);
		s += m * x[i] * e;
	}
	return s;
}
COPY64(mantissas)
int main(void) {
	FDRUN(mantissas, 9);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
}
