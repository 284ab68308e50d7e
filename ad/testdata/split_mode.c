/* The program of TestSplitMode (splitmode_test.go), compiled after memoryPrelude. */
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
void __enzyme_reverse_void(void *, ...);

/* In-place updates: the tape must keep the values the reverse needs. */
__attribute__((noinline)) double step(double *x, int n, double a) {
	double s = 0;
	for (int i = 0; i < n; i++) { x[i] = sin(x[i]) * a; s += x[i] * x[i]; }
	return s;
}

int main(void) {
	enum { N = 6 };
	double x[N], x0[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = x0[i] = 0.2 + 0.3 * i;
	double a = 1.7;
	void *tape = __enzyme_augmentfwd((void *)step, enzyme_dup, x, dx, enzyme_const, N, enzyme_out, a);
	/* Work between the two halves, on other memory. */
	double other[N];
	for (int i = 0; i < N; i++) other[i] = x[i] * 2;
	double da = __enzyme_reverse((void *)step, enzyme_dup, x, dx, enzyme_const, N, enzyme_out, a, 1.0, tape);
	double wda = 0;
	for (int i = 0; i < N; i++) {
		double y = sin(x0[i]) * a;
		check("dx", dx[i], 2 * y * cos(x0[i]) * a, 1e-12);
		check("x after forward", x[i], y, 1e-15);
		wda += 2 * y * sin(x0[i]);
	}
	check("da", da, wda, 1e-12);
	check("other", other[0], 2 * sin(x0[0]) * a, 1e-15);
	return failures != 0;
}
