#include <math.h>
#include <stdio.h>
#include "../check.h"
#include <stdlib.h>

/* Custom rules for functions returning pointers: their augmented forward
   returns the result and its shadow, {ret, dret}, or with a tape first,
   {tape, ret, dret} (rules.c). */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
extern int row_aug_calls, row_rev_calls, scaled_aug_calls, scaled_rev_calls;

/* Row i of an n-by-n matrix: a pointer into the argument. */
__attribute__((noinline)) double *row(double *m, int i, int n) { return m + i * n; }

/* A fresh buffer holding 2x. */
__attribute__((noinline)) double *scaled(const double *x, int n) {
	double *y = malloc(n * sizeof *y);
	for (int i = 0; i < n; i++) y[i] = 2 * x[i];
	return y;
}

static double rows_loss(double *m, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double *r = row(m, i, n);
		for (int j = 0; j < n; j++) s += r[j] * r[j] * (i + 1);
	}
	return s;
}

static double cubes_loss(const double *x, int n) {
	double *y = scaled(x, n), s = 0;
	for (int i = 0; i < n; i++) s += y[i] * y[i] * y[i];
	free(y);
	return s;
}

/* The same inside a function differentiated apart: its augmented forward
   and reverse are functions of their own (split), so the slot the
   augmented forward of scaled returns its {tape, ret, dret} in (memory:
   three pointers) must live in the augmented forward. */
__attribute__((noinline)) double cubes_apart(const double *x, int n) { return cubes_loss(x, n); }
static double cubes_outer(const double *x, int n) { return cubes_apart(x, n) + x[0]; }

int main(void) {
	enum { N = 3 };
	double m[N * N], dm[N * N] = {0};
	for (int k = 0; k < N * N; k++) m[k] = 0.5 + 0.25 * k - (k % 2);
	__enzyme_autodiff((void *)rows_loss, enzyme_dup, m, dm, enzyme_const, N);
	for (int k = 0; k < N * N; k++) check("rows", dm[k], 2 * m[k] * (k / N + 1));
	check("row_aug_calls", row_aug_calls, N);
	check("row_rev_calls", row_rev_calls, N);

	double x[N] = {0.3, -1.2, 2.0}, dx[N] = {0};
	__enzyme_autodiff((void *)cubes_loss, enzyme_dup, x, dx, enzyme_const, N);
	/* d/dx (2x)^3 = 24 x^2 */
	for (int i = 0; i < N; i++) check("cubes", dx[i], 24 * x[i] * x[i]);
	check("scaled_aug_calls", scaled_aug_calls, 1);
	check("scaled_rev_calls", scaled_rev_calls, 1);

	double dx2[N] = {0};
	__enzyme_autodiff((void *)cubes_outer, enzyme_dup, x, dx2, enzyme_const, N);
	for (int i = 0; i < N; i++) check("cubes apart", dx2[i], 24 * x[i] * x[i] + (i == 0));
	check("scaled_aug_calls", scaled_aug_calls, 2);
	check("scaled_rev_calls", scaled_rev_calls, 2);
	printf("failures %d\n", failures);
	return failures != 0;
}
