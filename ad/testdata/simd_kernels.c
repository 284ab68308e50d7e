/* simdKernels are reductions LLVM vectorizes at -O3, differentiated in
 * reverse (TestSIMD) and forward mode (TestForwardSIMD).
 * (simdKernels in simd_test.go) */
__attribute__((noinline)) double dotv(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[n - 1 - i];
	return s;
}
__attribute__((noinline)) double maxv(double *x, int n) {
	double m = -1e300;
	for (int i = 0; i < n; i++) m = x[i] * x[i] > m ? x[i] * x[i] : m;
	return m;
}
__attribute__((noinline)) double prodv(double *x, int n) {
	double p = 1;
	for (int i = 0; i < n; i++) p *= 1 + 0.1 * x[i];
	return p;
}
