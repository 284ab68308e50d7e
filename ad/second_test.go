package ad

import "testing"

// secondPrelude: Hessian-vector products by forward-over-reverse, checked
// against central differences of the gradient.
const secondPrelude = memoryPrelude + `
extern int enzyme_width;
void __enzyme_fwddiff(void *, ...);
/* HVPCHECK(loss): H·v of loss at the caller's x[N] along v[N]. */
#define HVPCHECK(loss) do { \
		double dx[N] = {0}, hv[N] = {0}, gp[N] = {0}, gm[N] = {0}, xp[N], xm[N], h = 1e-5; \
		__enzyme_fwddiff((void *)grad_##loss, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N); \
		for (int i = 0; i < N; i++) { xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; } \
		grad_##loss(xp, gp, N); \
		grad_##loss(xm, gm, N); \
		for (int i = 0; i < N; i++) { \
			char what[64]; snprintf(what, sizeof what, #loss " Hv[%d]", i); \
			check(what, hv[i], (gp[i] - gm[i]) / (2 * h), 1e-5); \
		} \
		double g[N] = {0}; \
		grad_##loss(x, g, N); \
		for (int i = 0; i < N; i++) check(#loss " gradient beside Hv", dx[i], g[i], 1e-12); \
	} while (0)
`

func TestHessianVectorProducts(t *testing.T) {
	src := secondPrelude + `
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
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

func TestSecondOrderOverForward(t *testing.T) {
	src := checkPrelude + `
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
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestInnerRootsFirst puts the outer root (in main) before the function
// holding the inner one in the module, so only lowering inner-first makes
// forward mode see the generated gradient instead of an Enzyme call.
func TestInnerRootsFirst(t *testing.T) {
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
void grad_cubic(double *x, double *dx, int n);
__attribute__((noinline)) double cubic(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i] * x[(i + 1) % n];
	return s;
}
int main(void) {
	enum { N = 3 };
	double x[N] = {0.5, -1, 2}, v[N] = {1, 0.5, -0.25}, dx[N] = {0}, hv[N] = {0};
	__enzyme_fwddiff((void *)grad_cubic, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
	/* H of sum x_i^2 x_{i+1}: d2/dx_i^2 = 2 x_{i+1}, d2/dx_i dx_{i+1} = 2 x_i. */
	for (int i = 0; i < N; i++) {
		int nx = (i + 1) % N, pv = (i + N - 1) % N;
		double want = 2 * x[nx] * v[i] + 2 * x[i] * v[nx] + 2 * x[pv] * v[pv];
		CHECK("Hv", hv[i], want);
	}
	return failures != 0;
}
void grad_cubic(double *x, double *dx, int n) {
	__enzyme_autodiff((void *)cubic, enzyme_dup, x, dx, enzyme_const, n);
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
