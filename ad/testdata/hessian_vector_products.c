/* The program of TestHessianVectorProducts (second_test.go), compiled after secondPrelude. */
__attribute__((noinline)) double rosenbrock(double *x, int n) {
	double s = 0;
	for (int i = 0; i + 1 < n; i++) {
		double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
		s += 100 * a * a + b * b;
	}
	return s;
}
__attribute__((noinline)) void grad_rosenbrock(double *x, double *dx, int n) {
	__enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, dx, enzyme_const, n);
}

/* A small network: 3 inputs, 4 tanh hidden units, 1 output, squared error
   over 5 samples; parameters W1 (4x3), b1 (4), w2 (4), b2 (1) in one array. */
enum { IN = 3, HID = 4, SAMPLES = 5, P = HID * IN + HID + HID + 1 };
static const double data[SAMPLES][IN + 1] = {
	{0.1, -0.4, 0.7, 0.3}, {0.9, 0.2, -0.3, -0.5}, {-0.6, 0.8, 0.1, 0.2}, {0.3, 0.3, 0.3, 0.9}, {-0.2, -0.7, 0.5, -0.1},
};
__attribute__((noinline)) double nn_loss(double *p, int n) {
	const double *w1 = p, *b1 = p + HID * IN, *w2 = b1 + HID, *b2 = w2 + HID;
	double *hidden = malloc(HID * sizeof *hidden);
	double loss = 0;
	for (int s = 0; s < SAMPLES; s++) {
		for (int j = 0; j < HID; j++) {
			double z = b1[j];
			for (int k = 0; k < IN; k++) z += w1[j * IN + k] * data[s][k];
			hidden[j] = tanh(z);
		}
		double y = *b2;
		for (int j = 0; j < HID; j++) y += w2[j] * hidden[j];
		double e = y - data[s][IN];
		loss += e * e / SAMPLES;
	}
	free(hidden);
	return loss;
}
__attribute__((noinline)) void grad_nn_loss(double *p, double *dp, int n) {
	__enzyme_autodiff((void *)nn_loss, enzyme_dup, p, dp, enzyme_const, n);
}

/* Calls in a loop (their tapes), a recursion and a math library call. */
__attribute__((noinline)) double pair_energy(double a, double b) { double d = a - b; return log(1 + d * d) + 0.1 * a * b * b; }
__attribute__((noinline)) double tail(const double *x, int n) { return n == 0 ? 0 : sin(x[0]) * x[0] + tail(x + 1, n - 1); }
__attribute__((noinline)) double chain(double *x, int n) {
	double e = 0;
	for (int i = 0; i + 1 < n; i++) e += pair_energy(x[i], x[i + 1]);
	return e * tail(x, n);
}
__attribute__((noinline)) void grad_chain(double *x, double *dx, int n) {
	__enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n);
}

/* Scalars: the gradient returned by value (enzyme_out), one and two of them. */
double __enzyme_autodiff_d(void *, ...);
typedef struct { double dx, dy; } pair;
pair __enzyme_autodiff_pair(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
__attribute__((noinline)) double g(double x, double y) { return sin(x * y) + x * x * x / y; }
__attribute__((noinline)) double gx(double x, double y) { return __enzyme_autodiff_d((void *)g, x, enzyme_const, y); }
__attribute__((noinline)) double gy(double x, double y) { return __enzyme_autodiff_pair((void *)g, x, y).dy; }

int main(void) {
	{
		double x = 0.8, y = 1.4;
		check("g_xx", __enzyme_fwddiff_d((void *)gx, x, 1.0, y, 0.0), -y * y * sin(x * y) + 6 * x / y, 1e-12);
		check("g_xy", __enzyme_fwddiff_d((void *)gx, x, 0.0, y, 1.0), cos(x * y) - x * y * sin(x * y) - 3 * x * x / (y * y), 1e-12);
		check("g_yy", __enzyme_fwddiff_d((void *)gy, x, 0.0, y, 1.0), -x * x * sin(x * y) + 2 * x * x * x / (y * y * y), 1e-12);
	}
	{
		enum { N = 5 };
		double x[N], v[N];
		for (int i = 0; i < N; i++) { x[i] = 0.5 - 0.2 * i; v[i] = 0.3 + 0.1 * i; }
		HVPCHECK(chain);
	}
	{
		enum { N = 6 };
		double x[N], v[N];
		for (int i = 0; i < N; i++) { x[i] = 0.3 + 0.2 * i - 0.05 * i * i; v[i] = 1 - 0.3 * i; }
		HVPCHECK(rosenbrock);
		/* The exact Hessian of the 2-D Rosenbrock function at (1, 1). */
		double x2[2] = {1, 1}, v2[2] = {0.5, -2}, dx2[2] = {0}, hv2[2] = {0};
		__enzyme_fwddiff((void *)grad_rosenbrock, enzyme_dup, x2, v2, enzyme_dup, dx2, hv2, enzyme_const, 2);
		check("rosenbrock H(1,1)v [0]", hv2[0], 802 * 0.5 - 400 * -2.0, 1e-12);
		check("rosenbrock H(1,1)v [1]", hv2[1], -400 * 0.5 + 200 * -2.0, 1e-12);
	}
	{
		enum { N = P };
		double x[N], v[N];
		for (int i = 0; i < N; i++) { x[i] = 0.4 * sin(1.7 * i + 0.3); v[i] = cos(0.9 * i); }
		HVPCHECK(nn_loss);
		/* Two Hessian-vector products in one batch, equal to single ones. */
		double w[N], dx[N] = {0}, dx1[N] = {0}, dx2[N] = {0}, hv1[N] = {0}, hv2[N] = {0}, hv[N] = {0};
		for (int i = 0; i < N; i++) w[i] = i % 3 == 0;
		__enzyme_fwddiff((void *)grad_nn_loss, enzyme_width, 2, enzyme_dup, x, v, w, enzyme_dup, dx, hv1, hv2, enzyme_const, N);
		__enzyme_fwddiff((void *)grad_nn_loss, enzyme_dup, x, w, enzyme_dup, dx1, hv, enzyme_const, N);
		for (int i = 0; i < N; i++) check("batched Hw = Hw", hv2[i], hv[i], 1e-14);
		memset(hv, 0, sizeof hv);
		__enzyme_fwddiff((void *)grad_nn_loss, enzyme_dup, x, v, enzyme_dup, dx2, hv, enzyme_const, N);
		for (int i = 0; i < N; i++) check("batched Hv = Hv", hv1[i], hv[i], 1e-14);
	}
	return failures != 0;
}
