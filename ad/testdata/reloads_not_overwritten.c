/* The program of TestReloadsNotOverwrittenRun (overwrite_test.go), compiled after memoryPrelude. */
__attribute__((noinline)) double table(double *x, int n) {
	double *t = malloc(n * sizeof *t);
	for (int i = 0; i < n; i++) t[i] = exp(x[i]);
	double s = 0;
	for (int j = 0; j < n; j++)
		for (int k = 0; k < n; k++) s += t[k] * x[j] * t[(j + k) % n];
	s += lgamma(3.5 + n);
	free(t);
	return s;
}
__attribute__((noinline)) double rewritten(double *x, int n) {
	double t[16], s = 0;
	for (int i = 0; i < n; i++) t[i] = x[i];
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < n; i++) {
			s += sin(t[i]) * t[(i + 1) % n];
			t[i] = t[i] * 0.5 + x[i];
		}
	return s;
}
int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(table);
	GRADCHECK(rewritten);
	return failures != 0;
}
