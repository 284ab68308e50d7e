/* The program of TestIterationRecordRun (record_test.go), compiled after memoryPrelude. */
double rec_ir(double *x, int *idx, long n);
enum { N = 7 };
static const int perm[N] = {3, 0, 6, 2, 2, 5, 1};
__attribute__((noinline)) double twice(double *x, int *idx, long n) {
	int again[N];
	memcpy(again, idx, sizeof again);
	return rec_ir(x, idx, n) * rec_ir(x, again, n);
}
/* on_copy: g on copies of x and perm (fdcheck needs x left alone). */
static double on_copy(double (*g)(double *, int *, long), double *x, int n) {
	double y[N];
	int idx[N];
	memcpy(y, x, sizeof y);
	memcpy(idx, perm, sizeof idx);
	return g(y, idx, n);
}
static double direct(double *x, int n) { return on_copy(rec_ir, x, n); }
static double caller(double *x, int n) { return on_copy(twice, x, n); }
/* RECCHECK(f, root): the gradient of root, called twice, against central differences of f. */
#define RECCHECK(f, root) do { \
		double x[N]; \
		for (int i = 0; i < N; i++) x[i] = 0.7 + 0.11 * i; \
		for (int call = 0; call < 2; call++) { \
			double xc[N], dx[N] = {0}; \
			int idx[N]; \
			memcpy(xc, x, sizeof x); \
			memcpy(idx, perm, sizeof idx); \
			__enzyme_autodiff((void *)root, enzyme_dup, xc, dx, enzyme_const, idx, enzyme_const, (long)N); \
			fdcheck(#root, f, x, N, dx); \
		} \
	} while (0)
int main(void) {
	RECCHECK(direct, rec_ir);
	RECCHECK(caller, twice);
	return failures != 0;
}
