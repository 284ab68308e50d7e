/* The program of TestEdgePhiRun (edgephi_test.go), compiled after memoryPrelude. */
double edge_ir(double *x, double *w, long n);
enum { N = 7 };
static double wv[N] = {0.3, -1.1, 0.8, 2.0, -0.4, 1.3, 0.6};
static double edge_copy(double *x, int n) { double y[N]; memcpy(y, x, sizeof y); return edge_ir(y, wv, n); }
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.1 + 0.17 * i;
	double xc[N], dx[N] = {0};
	memcpy(xc, x, sizeof x);
	__enzyme_autodiff((void *)edge_ir, enzyme_dup, xc, dx, enzyme_const, wv, enzyme_const, (long)N);
	fdcheck("edge", edge_copy, x, N, dx);
	return failures != 0;
}
