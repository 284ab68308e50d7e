/* The program of TestErrorEstimateArrays (errorest_test.go), compiled after errorPrelude. */
enum { N = 37 };
void fma_arrays(const double *a, const double *b, const double *c, double *out, int n) {
	for (int i = 0; i < n; i++) out[i] = a[i] * b[i] + c[i];
}
int main(void) {
	double a[N], b[N], c[N], out[N], ea[N], eb[N], ec[N], eout[N];
	for (int i = 0; i < N; i++) {
		a[i] = 1 + 0.37 * i; b[i] = 2.5 - 0.11 * i; c[i] = (i % 3) - 1.25;
		ea[i] = 1e-12 * (i % 5); eb[i] = 2e-13; ec[i] = (i % 2) ? 1e-11 : 0; eout[i] = 0;
	}
	__enzyme_error_estimate((void *)fma_arrays, enzyme_dup, a, ea, enzyme_dup, b, eb, enzyme_dup, c, ec,
		enzyme_dup, out, eout, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		double p = a[i] * b[i], s = p + c[i];
		double ep = MAX(ULP(p), fabs(ea[i]) + fabs(eb[i]));
		double es = MAX(ULP(s), fabs(p / s * ep) + fabs(c[i] / s * ec[i]));
		char what[32]; snprintf(what, sizeof what, "error of out[%d]", i);
		check(what, eout[i], es, 1e-9);
		if (out[i] != s) { printf("FAIL out[%d] changed\n", i); failures++; }
	}
	return failures != 0;
}
