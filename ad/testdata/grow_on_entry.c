/* The program of TestGrowOnEntryRun (entrygrow_test.go), compiled after memoryPrelude. */
__attribute__((noinline)) double sweeps(double *x, int n) {
	double s = 0, t[16];
	int rounds = 0;
	for (int i = 0; i < n; i++) t[i] = x[i];
	while (s < 40 && rounds < 6) {
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				s += sin(t[i] * t[j]);
				t[i] = t[i] * 0.9 + 0.05 * t[j];
			}
		s += 10;
		rounds++;
	}
	return s;
}
__attribute__((noinline)) double triangle(double *in, int n) {
	double s = 0, x[16];
	for (int i = 0; i < n; i++) x[i] = in[i];
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			double d = x[j] - x[i];
			s += exp(-d * d);
			x[j] = x[j] + 0.1 * x[i];
		}
	return s;
}
__attribute__((noinline)) double down(double *in, int n) {
	double s = 1, x[16];
	for (int i = 0; i < n; i++) x[i] = in[i];
	for (int i = n - 1; i >= 0; i -= 2) {
		s = s * cos(x[i]) + x[i];
		x[i] = s;
	}
	return s;
}
/* Calls to differentiated functions: their augmented forward and reverse
 * (split mode) carry the records on the tape. */
__attribute__((noinline)) double calls(double *x, int n) { return triangle(x, n) * sweeps(x, n) + down(x, n); }
int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(sweeps);
	GRADCHECK(triangle);
	GRADCHECK(down);
	GRADCHECK(calls);
	return failures != 0;
}
