/* The program of TestPairedFreeVector (pairedfree_test.go), compiled after
 * cxxPrelude: a split helper's std::vector temporary of a run-time size,
 * whose inlined destructor frees its buffer behind a null test (the size
 * may be zero, the pointer a phi of the buffer and null), filled by one
 * loop and read by two more; the shadow is released by the reverse of the
 * allocation without the shadow set. Gradient against central
 * differences. The same for layer's vector, kept across the call of
 * cell. */
enum { N = 5, STEPS = 4 };
int n = N, steps = STEPS;

__attribute__((noinline)) static void cell(int m, const double *w, double *h) {
	std::vector<double> g(2 * m);
	for (int i = 0; i < m; i++) {
		g[i] = 1 / (1 + std::exp(-(h[i] * w[i])));
		g[m + i] = std::tanh(h[i] + w[m + i]);
	}
	for (int i = 0; i < m; i++) h[i] = h[i] * g[i] + g[m + i];
	for (int i = 0; i < m; i++) h[i] += g[i] * g[m + i];
}
/* A vector alive across a call that may throw (cell allocates): the
 * destructor is duplicated into a cleanup, and the normal path's keeps its
 * null test. */
__attribute__((noinline)) static void layer(const double *w, double *h) {
	std::vector<double> x2(n);
	for (int i = 0; i < n; i++) x2[i] = h[i] * w[i] + 0.1;
	cell(n, w, x2.data());
	for (int i = 0; i < n; i++) h[i] = 0.5 * h[i] + x2[i];
}
double run_cells(const double *w, double *h) {
	double s = 0;
	for (int t = 0; t < steps; t++) {
		layer(w, h);
		s += h[t % n];
	}
	return s;
}
static double f_cell(double *x, int) {
	double h[N];
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	return run_cells(x, h);
}

int main() {
	double x[2 * N], g[2 * N] = {0}, h[N], dh[N] = {0};
	for (int i = 0; i < 2 * N; i++) x[i] = 0.3 + 0.1 * i;
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	__enzyme_autodiff((void *)run_cells, enzyme_dup, x, g, enzyme_dup, h, dh);
	fdcheck("cell", f_cell, x, 2 * N, g);
	if (failures) return 1;
	std::printf("done\n");
	return 0;
}
