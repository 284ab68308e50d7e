#include <math.h>
#include <stdio.h>
#include "../check.h"

/* Forward-mode custom derivatives: the enzyme("forward") attribute on a
   definition, and Enzyme's __enzyme_register_derivative_NAME global for a
   pointer-style function (rules.c). */
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_d(void *, ...);

extern int stair_fwd_calls, square_all_fwd_calls;
double stair_fwd(double x, double dx);

/* Rounding to a grid of 1/4: derivative 0 almost everywhere; the rule
   passes the tangent straight through. */
__attribute__((enzyme("forward", stair_fwd))) double stair(double x) { return floor(x * 4) / 4; }

/* Registered in rules.c; the rule counts its calls. */
__attribute__((noinline)) void square_all(const double *x, double *y, int n) {
	for (int i = 0; i < n; i++) y[i] = x[i] * x[i];
}

static double model(const double *x, int n) {
	double y[8], s = 0;
	square_all(x, y, n);
	for (int i = 0; i < n; i++) s += stair(y[i]) * (i + 1);
	return s;
}

static double stair_cubed(double x) { double q = stair(x); return q * q * q; }

int main(void) {
	enum { N = 5 };
	double x[N] = {0.3, -0.8, 1.13, 2.49, -1.6}, dx[N] = {1, -2, 0.5, 0.25, 3};
	double got = __enzyme_fwddiff((void *)model, enzyme_dup, x, dx, enzyme_const, N);
	double want = 0;
	for (int i = 0; i < N; i++) want += (i + 1) * 2 * x[i] * dx[i];
	check("fwd_model", got, want);
	check("stair_fwd_calls", stair_fwd_calls, N);
	check("square_all_fwd_calls", square_all_fwd_calls, 1);

	for (int k = 0; k < 3; k++) {
		double v = 0.7 + k, q = stair(v);
		check("fwd_stair_cubed", __enzyme_fwddiff_d((void *)stair_cubed, v, 1.0), 3 * q * q);
	}
	check("stair_fwd_calls", stair_fwd_calls, N + 3);
	printf("failures %d\n", failures);
	return failures != 0;
}
