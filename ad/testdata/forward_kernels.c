/* forwardKernels are the C functions the forward-mode tests differentiate,
 * one at a time (TestForwardMode) and in batches (TestBatchForwardMode).
 * (forwardKernels in forward_test.go) */
static int sweeps; /* how many times scalar's body ran */
__attribute__((noinline)) double scalar(double x, double y) {
	sweeps++;
	return sin(x) * y + exp(x * y) / (1 + x * x) + pow(y, 2.5);
}

/* Control flow, loops and calls. */
__attribute__((noinline)) double helper(double v) { return v > 0 ? sqrt(v) : -v * v; }
__attribute__((noinline)) double looped(double x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += helper(x - 0.2 * i) * cos(s);
	return s;
}
__attribute__((noinline)) double rec(double x, int n) { return n == 0 ? x : sin(rec(x, n - 1)) + x; }

/* Arrays: a Jacobian-vector product through memory and the heap. */
__attribute__((noinline)) void map(double *out, const double *in, int n) {
	double *tmp = malloc(n * sizeof *tmp);
	for (int i = 0; i < n; i++) tmp[i] = in[i] * in[(i + 1) % n];
	for (int i = 0; i < n; i++) out[i] = tanh(tmp[i]) + tmp[(i + 2) % n];
	free(tmp);
}

/* A polynomial with coefficient tangents. */
__attribute__((noinline)) double poly(const double *c, int n, double x) {
	double s = 0;
	for (int i = n - 1; i >= 0; i--) s = s * x + c[i];
	return s;
}
