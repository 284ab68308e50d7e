/* The program of TestTiesGradients (mincut_test.go), compiled after checkPrelude. */
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double centred(double *restrict x, const double *restrict mu, const double *restrict c, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		x[i] = c[i] * (x[i] - mu[i]);
		s += x[i] * x[i];
	}
	return s;
}
__attribute__((noinline)) double centred2(double *restrict x, const double *restrict mu, double *restrict c, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double xc = x[i] - mu[i];
		x[i] = c[i] * xc;
		c[i] = c[i] * c[i];
		s += x[i] * x[i] + c[i];
	}
	return s;
}
int main(void) {
	enum { N = 7 };
	double x[N], x0[N], mu[N], c[N], c0[N], dx[N] = {0}, dmu[N] = {0}, dc[N] = {0};
	for (int i = 0; i < N; i++) { x0[i] = x[i] = 1.3 - 0.4 * i; mu[i] = 0.2 + 0.15 * i; c[i] = 0.7 + 0.3 * i; }
	__enzyme_autodiff((void *)centred, x, dx, mu, dmu, c, dc, N);
	for (int i = 0; i < N; i++) {
		double xc = x0[i] - mu[i], q = c[i] * xc;
		check("centred dx", dx[i], 2 * q * c[i], 4e-16);
		check("centred dmu", dmu[i], -2 * q * c[i], 4e-16);
		check("centred dc", dc[i], 2 * q * xc, 4e-16);
	}
	for (int i = 0; i < N; i++) { x[i] = x0[i]; c0[i] = c[i] = 0.7 + 0.3 * i; dx[i] = dmu[i] = dc[i] = 0; }
	__enzyme_autodiff((void *)centred2, x, dx, mu, dmu, c, dc, N);
	for (int i = 0; i < N; i++) {
		double xc = x0[i] - mu[i], q = c0[i] * xc;
		check("centred2 dx", dx[i], 2 * q * c0[i], 4e-16);
		check("centred2 dmu", dmu[i], -2 * q * c0[i], 4e-16);
		check("centred2 dc", dc[i], 2 * q * xc + 2 * c0[i], 4e-16);
	}
	return failures != 0;
}
