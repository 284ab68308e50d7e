/* The program of TestMergePhiRun (mergephi_test.go), compiled after memoryPrelude. */
double merge_ir(double *x, long n, long k);
enum { N = 6 };
/* k = 1 and k = 3 take both ways through the merge. */
static double merge1(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return merge_ir(y, n, 1); }
static double merge3(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return merge_ir(y, n, 3); }
int main(void) {
	for (long k = 1; k <= 3; k += 2) {
		double x[N], xc[N], dx[N] = {0};
		for (int i = 0; i < N; i++) x[i] = 0.9 - 0.07 * i;
		memcpy(xc, x, sizeof x);
		__enzyme_autodiff((void *)merge_ir, enzyme_dup, xc, dx, enzyme_const, (long)N, enzyme_const, k);
		fdcheck(k == 1 ? "merge1" : "merge3", k == 1 ? merge1 : merge3, x, N, dx);
	}
	return failures != 0;
}
