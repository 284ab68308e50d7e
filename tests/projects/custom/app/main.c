#include <math.h>
#include <stdio.h>
#include "../check.h"
#include "quant.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);

extern int sumcubes_aug_calls, sumcubes_rev_calls, ext_cube_rev_calls;
double ext_cube(double x);

/* The body of sumcubes is deliberately not its derivative's source: the
   rule says 3x^2, the body would say 2x. The rule must win. */
__attribute__((noinline)) double sumcubes(const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}

static double loss_q(const double *w, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) { double q = quantize(w[i]); s += q * q; }
	return s;
}

/* Rules called inside loops (on a different slice each time) and recursion. */
static double loss_mixed(const double *x, int n) {
	double s = 0;
	for (int k = 0; k < 3; k++) s += sumcubes(x + k, n - k) * (k + 1);
	return s;
}
static double rec(double x, int depth) { return depth == 0 ? ext_cube(x) : ext_cube(rec(x, depth - 1)) * 0.5; }

int main(void) {
	enum { N = 5 };
	double w[N] = {0.3, -0.8, 1.13, 2.49, -1.6}, dw[N] = {0};
	__enzyme_autodiff((void *)loss_q, enzyme_dup, w, dw, enzyme_const, N);
	for (int i = 0; i < N; i++) check("ste", dw[i], 2 * quantize(w[i]));
	check("ste_calls", quantize_grad_calls, N);

	double dx[N] = {0};
	__enzyme_autodiff((void *)loss_mixed, enzyme_dup, w, dx, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		double weight = 0;
		for (int k = 0; k <= i && k < 3; k++) weight += k + 1;
		check("sumcubes", dx[i], weight * 3 * w[i] * w[i]);
	}
	check("sumcubes_aug_calls", sumcubes_aug_calls, 3);
	check("sumcubes_rev_calls", sumcubes_rev_calls, 3);

	double x = 0.9, y = x;
	for (int d = 0; d < 3; d++) y = y * y * y * (d ? 0.5 : 1);
	double g = __enzyme_autodiff_d((void *)rec, x, 2);
	/* rec(x,2) = 0.5 c(0.5 c(c(x))) with c = cube: chain rule by hand. */
	double c0 = x * x * x, c1 = c0 * c0 * c0 * 0.5, want = 0.5 * 3 * c1 * c1 * (0.5 * 3 * c0 * c0 * (3 * x * x));
	check("ext_cube", g, want);
	check("ext_cube_rev_calls", ext_cube_rev_calls, 3);
	printf("failures %d\n", failures);
	return failures != 0;
}
