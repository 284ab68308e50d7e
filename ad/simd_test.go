package ad

import (
	"os"
	"strings"
	"testing"
)

// simdKernels are reductions LLVM vectorizes at -O3, differentiated in
// reverse (TestSIMD) and forward mode (TestForwardSIMD).
func simdKernels(t *testing.T) string {
	t.Helper()
	return testdataC(t, "simd_kernels.c")
}

func TestSIMD(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + `
` + simdKernels(t) + `
__attribute__((noinline)) void scale(double *out, const double *x, int n) {
	for (int i = 0; i < n; i++) if (x[i] > 0.5) out[i] = x[i] * x[i] * 3; 
}
static double scale_sum(double *x, int n) {
	double out[64] = {0};
	scale(out, x, n);
	double s = 0;
	for (int i = 0; i < n; i++) s += out[i] * (i + 1);
	return s;
}
int main(void) {
	enum { N = 37 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.1 + 0.05 * i - 0.003 * i * i;
	GRADCHECK(dotv);
	GRADCHECK(maxv);
	GRADCHECK(prodv);
	GRADCHECK(scale_sum);
	return failures != 0;
}
`
	variants := [][]string{{"-ffast-math"}}
	if cpu, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(cpu), " avx2") {
		variants = append(variants, []string{"-ffast-math", "-mavx2"})
	}
	for _, flags := range variants {
		t.Run(strings.Join(flags, ""), func(t *testing.T) {
			exe := buildC(t, src, "3", flags...)
			run(t, exe)
		})
	}
}
