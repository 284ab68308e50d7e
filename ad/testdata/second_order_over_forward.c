/* The program of TestSecondOrderOverForward (second_test.go), compiled after checkPrelude. */
double __enzyme_fwddiff_d(void *, ...);
typedef struct { double dx, dy; } pair;
pair __enzyme_autodiff_pair(void *, ...);
__attribute__((noinline)) double g(double x, double y) { return cos(x) * y * y + exp(x * y); }
/* ∂g/∂x by forward mode, differentiated again by reverse mode. */
__attribute__((noinline)) double gx(double x, double y) { return __enzyme_fwddiff_d((void *)g, x, 1.0, y, 0.0); }
void __enzyme_fwddiff_void(void *, ...);
void __enzyme_autodiff_void(void *, ...);
__attribute__((noinline)) void smooth(double *out, const double *in, int n) {
	double *t = malloc(n * sizeof *t);
	for (int i = 0; i < n; i++) t[i] = sin(in[i]) * in[(i + 1) % n];
	for (int i = 0; i < n; i++) out[i] = t[i] * t[(i + 2) % n] + exp(-in[i]);
	free(t);
}
__attribute__((noinline)) double vjw(double *x, int n) {
	double out[16], dout[16], w[16], s = 0;
	for (int i = 0; i < n; i++) w[i] = 1 + 0.5 * i;
	__enzyme_fwddiff_void((void *)smooth, out, dout, x, w, n);
	for (int i = 0; i < n; i++) s += dout[i] * cos(i);
	return s;
}
int main(void) {
	double x = 0.4, y = -1.3;
	pair d = __enzyme_autodiff_pair((void *)gx, x, y);
	check("d2g/dx2", d.dx, -cos(x) * y * y + y * y * exp(x * y), 1e-12);
	check("d2g/dxdy", d.dy, -2 * y * sin(x) + exp(x * y) * (1 + x * y), 1e-12);
	/* Forward over forward. */
	check("d2g/dx2 (forward over forward)", __enzyme_fwddiff_d((void *)gx, x, 1.0, y, 0.0), -cos(x) * y * y + y * y * exp(x * y), 1e-12);
	check("d2g/dxdy (forward over forward)", __enzyme_fwddiff_d((void *)gx, x, 0.0, y, 1.0), -2 * y * sin(x) + exp(x * y) * (1 + x * y), 1e-12);
	/* Reverse over forward through memory: the gradient of v·J(x)·w, a JVP
	   through arrays and the heap, against differences. */
	{
		enum { N = 5 };
		double xs[N], dxs[N] = {0}, hh = 1e-6;
		for (int i = 0; i < N; i++) xs[i] = 0.3 + 0.2 * i;
		__enzyme_autodiff_void((void *)vjw, xs, dxs, N);
		for (int i = 0; i < N; i++) {
			double save = xs[i];
			xs[i] = save + hh; double fp = vjw(xs, N);
			xs[i] = save - hh; double fm = vjw(xs, N);
			xs[i] = save;
			check("grad of v.J.w", dxs[i], (fp - fm) / (2 * hh), 1e-6);
		}
	}
	return failures != 0;
}
