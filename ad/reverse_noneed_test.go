package ad

import (
	"strings"
	"testing"
)

// TestReverseNoNeedNullPrimal: a reverse-mode enzyme_dupnoneed argument
// whose primal is nullptr gets no primal stores (they used to go to address
// 0: a crash at -O0), and the gradient matches central differences.
func TestReverseNoNeedNullPrimal(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "reverse_noneed_null.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			if out := run(t, buildC(t, src, o)); !strings.Contains(out, "ok") {
				t.Fatalf("-O%s: %s", o, out)
			}
		})
	}
}

// TestSplitNoNeedNullPrimal: the same for split mode (augmented forward and
// reverse called by the user) and for enzyme_primal_return, whose augmented
// forward sweeps store the primal too.
func TestSplitNoNeedNullPrimal(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "split_noneed_null.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			if out := run(t, buildC(t, src, o)); !strings.Contains(out, "ok") {
				t.Fatalf("-O%s: %s", o, out)
			}
		})
	}
}

// TestReverseNoNeedNullPrimalReadBack: when the function reads back what it
// stored through such an argument for a result that is kept, the link stops
// naming enzyme_dupnoneed instead of reading through the null pointer.
func TestReverseNoNeedNullPrimalReadBack(t *testing.T) {
	t.Parallel()
	const src = `
extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) void f(double *out, const double *u, int n) {
  for (int i = 0; i < n; i++) out[i] = u[i] * u[i];
  for (int i = 1; i < n; i++) out[i] = out[i] * out[i - 1];
}
int main(void) {
  double u[3] = {1, 2, 3}, gu[3] = {0}, seed[3] = {1, 1, 1};
  __enzyme_autodiff((void *)f, enzyme_dupnoneed, (double *)0, seed, enzyme_dup, u, gu, enzyme_const, 3);
  return gu[0] != 0;
}
`
	for _, o := range []string{"0", "2"} {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "enzyme_dupnoneed") {
				t.Fatalf("-O%s: want an error naming enzyme_dupnoneed, got %v", o, err)
			}
		})
	}
}
