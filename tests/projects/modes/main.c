#include <math.h>
#include <stdio.h>
#include "loss.h"

void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
typedef struct { double d[3]; } vec3;
vec3 __enzyme_fwddiff3(void *, ...);

static int failures;
static void check(const char *what, int i, double got, double want, double tol) {
	int ok = fabs(got - want) <= tol * fmax(1, fabs(want));
	printf("%s %s[%d] %.12g %.12g\n", ok ? "ok" : "FAIL", what, i, got, want);
	failures += !ok;
}

enum { N = 5 };

int main(void) {
	double x[N], v[N], w[N], u[N], h = 1e-6;
	for (int i = 0; i < N; i++) { x[i] = 0.3 * i - 0.4; v[i] = cos(i); w[i] = 1; u[i] = i == 2; }
	double xp[N], xm[N];
	for (int i = 0; i < N; i++) { xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; }
	/* Forward mode: the directional derivative of the loss. */
	double dl = __enzyme_fwddiff_d((void *)loss, enzyme_dup, x, v, enzyme_const, N);
	check("jvp", 0, dl, (loss(xp, N) - loss(xm, N)) / (2 * h), 1e-6);
	/* Batch mode: three directions in one call. */
	vec3 b = __enzyme_fwddiff3((void *)loss, enzyme_width, 3, enzyme_dup, x, v, w, u, enzyme_const, N);
	double *dirs[3] = {v, w, u};
	for (int k = 0; k < 3; k++)
		check("batch", k, b.d[k], __enzyme_fwddiff_d((void *)loss, enzyme_dup, x, dirs[k], enzyme_const, N), 1e-14);
	/* A custom forward rule: called once per lane and per call of soft. */
	soft_fwd_calls = 0;
	vec3 e = __enzyme_fwddiff3((void *)energy, enzyme_width, 3, enzyme_dup, x, v, w, u, enzyme_const, N);
	check("custom rule calls", 0, soft_fwd_calls, 3 * N, 0);
	for (int k = 0; k < 3; k++) {
		double want = 0;
		for (int i = 0; i < N; i++) want += (i + 1) * 2 * x[i] * dirs[k][i] / (1 + x[i] * x[i]);
		check("custom batch", k, e.d[k], want, 1e-14);
	}
	/* Forward over reverse: H·v against differences of the gradient. */
	double dx[N] = {0}, hv[N] = {0}, gp[N] = {0}, gm[N] = {0};
	__enzyme_fwddiff((void *)grad_loss, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
	grad_loss(xp, gp, N);
	grad_loss(xm, gm, N);
	for (int i = 0; i < N; i++) check("hvp", i, hv[i], (gp[i] - gm[i]) / (2 * h), 1e-5);
	printf("failures %d\n", failures);
	return failures != 0;
}
