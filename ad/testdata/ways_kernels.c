/* waysKernels: ways' guards test the arguments (decided outside the step
 * loop: the reverse re-reads them, decide.go); waysdata's test the data,
 * which change from step to step (a record per step stays).
 * (waysKernels in decide_test.go) */
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
