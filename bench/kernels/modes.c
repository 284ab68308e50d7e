/* Issue 7: forward mode, batch mode and Hessian-vector products.
 * Rows (the driver's "primal" and "gradient" columns):
 *   fwd-Jv:            primal = F,                    gradient = one J·v (forward mode)
 *   batch4-vs-4-calls: primal = 4 single J·v calls,   gradient = one width-4 batch call
 *   hvp-vs-grad:       primal = one gradient,         gradient = one H·v (forward over reverse)
 * so the ratio column reads J·v/F, batch/4 calls and HVP/gradient. */
#include <math.h>
#include "bench.h"

extern int enzyme_width;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

enum { N = 100000, NR = 10000 };

/* A nonlinear diffusion residual: a Jacobian with three diagonals. */
__attribute__((noinline)) void residual(double *out, const double *u, int n) {
	for (int i = 0; i < n; i++) {
		double l = i > 0 ? u[i - 1] : 0, r = i + 1 < n ? u[i + 1] : 0;
		out[i] = l - 2 * u[i] + r + sin(u[i]) * exp(-u[i] * u[i]);
	}
}

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

static double *u, *v[4], *out, *dout[4], *x, *dx, *hv, *w;

static void primal(void *p) { (void)p; residual(out, u, N); bench_sink = out[N / 2]; }
static void jvp(void *p) {
	(void)p;
	__enzyme_fwddiff((void *)residual, enzyme_dup, out, dout[0], enzyme_dup, u, v[0], enzyme_const, N);
	bench_sink = dout[0][N / 2];
}
static void four_calls(void *p) {
	(void)p;
	for (int k = 0; k < 4; k++)
		__enzyme_fwddiff((void *)residual, enzyme_dup, out, dout[k], enzyme_dup, u, v[k], enzyme_const, N);
	bench_sink = dout[3][N / 2];
}
static void batch4(void *p) {
	(void)p;
	__enzyme_fwddiff((void *)residual, enzyme_width, 4, enzyme_dup, out, dout[0], dout[1], dout[2], dout[3],
		enzyme_dup, u, v[0], v[1], v[2], v[3], enzyme_const, N);
	bench_sink = dout[3][N / 2];
}
static void gradient(void *p) {
	(void)p;
	memset(dx, 0, NR * sizeof *dx);
	grad_rosenbrock(x, dx, NR);
	bench_sink = dx[NR / 2];
}
static void hvp(void *p) {
	(void)p;
	memset(dx, 0, NR * sizeof *dx);
	memset(hv, 0, NR * sizeof *hv);
	__enzyme_fwddiff((void *)grad_rosenbrock, enzyme_dup, x, w, enzyme_dup, dx, hv, enzyme_const, NR);
	bench_sink = hv[NR / 2];
}

static int close_to(const char *what, double got, double want, double tol) {
	if (fabs(got - want) <= tol * fmax(1, fabs(want))) return 1;
	printf("%s wrong: %.17g vs %.17g\n", what, got, want);
	return 0;
}

int main(void) {
	u = malloc(N * sizeof *u);
	out = malloc(N * sizeof *out);
	for (int k = 0; k < 4; k++) { v[k] = malloc(N * sizeof **v); dout[k] = malloc(N * sizeof **dout); }
	for (int i = 0; i < N; i++) {
		u[i] = sin(0.001 * i);
		for (int k = 0; k < 4; k++) v[k][i] = cos(0.01 * i * (k + 1));
	}
	x = malloc(NR * sizeof *x); dx = malloc(NR * sizeof *dx); hv = malloc(NR * sizeof *hv); w = malloc(NR * sizeof *w);
	for (int i = 0; i < NR; i++) { x[i] = 1 + 0.5 * sin(0.1 * i); w[i] = cos(0.3 * i); }

	/* Check before timing: J·v against the analytic tridiagonal product,
	   the batch against single calls, H·v against differences of gradients. */
	jvp(0);
	for (int i = 1; i + 1 < N; i += 997) {
		double d = (cos(u[i]) - 2 * u[i] * sin(u[i])) * exp(-u[i] * u[i]);
		if (!close_to("J·v", dout[0][i], v[0][i - 1] - 2 * v[0][i] + v[0][i + 1] + d * v[0][i], 1e-12)) return 1;
	}
	batch4(0);
	double single[4][3];
	for (int k = 0; k < 4; k++) {
		__enzyme_fwddiff((void *)residual, enzyme_dup, out, dout[k], enzyme_dup, u, v[k], enzyme_const, N);
		single[k][0] = dout[k][1], single[k][1] = dout[k][N / 2], single[k][2] = dout[k][N - 1];
	}
	batch4(0);
	for (int k = 0; k < 4; k++)
		if (!close_to("batch lane", dout[k][1], single[k][0], 1e-15) || !close_to("batch lane", dout[k][N / 2], single[k][1], 1e-15) ||
			!close_to("batch lane", dout[k][N - 1], single[k][2], 1e-15)) return 1;
	hvp(0);
	double *xp = malloc(NR * sizeof *xp), *gp = calloc(NR, sizeof *gp), *gm = calloc(NR, sizeof *gm), h = 1e-6;
	for (int i = 0; i < NR; i++) xp[i] = x[i] + h * w[i];
	grad_rosenbrock(xp, gp, NR);
	for (int i = 0; i < NR; i++) xp[i] = x[i] - h * w[i];
	grad_rosenbrock(xp, gm, NR);
	for (int i = 0; i < NR; i += 101)
		if (!close_to("H·v", hv[i], (gp[i] - gm[i]) / (2 * h), 1e-5)) return 1;
	free(xp); free(gp); free(gm);

	bench_report("fwd-Jv(residual,n=1e5)", bench_time(primal, 0), bench_time(jvp, 0), bench_peak_bytes(primal, 0), bench_peak_bytes(jvp, 0));
	bench_report("batch4-vs-4-calls(residual,n=1e5)", bench_time(four_calls, 0), bench_time(batch4, 0),
		bench_peak_bytes(four_calls, 0), bench_peak_bytes(batch4, 0));
	bench_report("hvp-vs-grad(rosenbrock,n=1e4)", bench_time(gradient, 0), bench_time(hvp, 0),
		bench_peak_bytes(gradient, 0), bench_peak_bytes(hvp, 0));
	return 0;
}
