/* The program of TestTripCountAllocatesOnce (tripcount_test.go), compiled after reallocCounter. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double nest(double *x, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(x[j] - x[i]) * x[j];
			x[i] += 0.1 * f;
		}
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}
static long count(int n) {
	static double x[64], dx[64];
	for (int i = 0; i < n; i++) x[i] = 0.01 * i, dx[i] = 0;
	long before = reallocs;
	__enzyme_autodiff((void *)nest, enzyme_dup, x, dx, enzyme_const, n);
	return reallocs - before;
}
int main(void) {
	long small = count(8), large = count(64), again = count(64);
	printf("reallocs: n=8 %ld, n=64 %ld, n=64 again %ld\n", small, large, again);
	return !(small > 0 && large <= small && again == 0);
}
