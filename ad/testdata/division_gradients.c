/* The program of TestDivisionGradients (mincut_test.go), compiled after checkPrelude. */
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double gate(double *w, double *b, double *h, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		h[i] = 1.0 / (1.0 + exp(-(w[i] * h[i] + b[i])));
		s += h[i];
	}
	return s;
}
__attribute__((noinline)) double ratio(double *x, double *y, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		x[i] = x[i] / y[i];
		s += x[i] * x[i];
	}
	return s;
}
int main(void) {
	enum { N = 5 };
	double w[N], b[N], h[N], h0[N], dw[N] = {0}, db[N] = {0}, dh[N] = {0};
	double x[N], x0[N], y[N], dx[N] = {0}, dy[N] = {0};
	for (int i = 0; i < N; i++) {
		w[i] = 0.3 + 0.7 * i; b[i] = -1.1 + 0.45 * i; h0[i] = h[i] = 0.9 - 0.35 * i;
		x0[i] = x[i] = 1.7 - 0.6 * i; y[i] = 0.4 + 1.3 * i;
	}
	__enzyme_autodiff((void *)gate, w, dw, b, db, h, dh, N);
	__enzyme_autodiff((void *)ratio, x, dx, y, dy, N);
	for (int i = 0; i < N; i++) {
		double g = 1.0 / (1.0 + exp(-(w[i] * h0[i] + b[i]))), dg = g * (1 - g);
		check("gate dw", dw[i], dg * h0[i], 4e-16);
		check("gate db", db[i], dg, 4e-16);
		check("gate dh", dh[i], dg * w[i], 4e-16);
		double q = x0[i] / y[i];
		check("ratio dx", dx[i], 2 * q / y[i], 4e-16);
		check("ratio dy", dy[i], -2 * q * q / y[i], 4e-16);
	}
	return failures != 0;
}
