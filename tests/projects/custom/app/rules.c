#include <stdlib.h>
#include <string.h>

/* A pointer-style rule in Enzyme's registration form, with a tape. */
double sumcubes(const double *x, int n);
int sumcubes_aug_calls, sumcubes_rev_calls;

void *sumcubes_aug(const double *x, const double *dx, int n) {
	(void)dx;
	sumcubes_aug_calls++;
	double *tape = malloc(n * sizeof *tape);
	memcpy(tape, x, n * sizeof *tape);  /* the reverse needs x as it was */
	return tape;
}

void sumcubes_rev(const double *x, double *dx, int n, double d_ret, void *tape) {
	(void)x;
	sumcubes_rev_calls++;
	const double *x0 = tape;
	for (int i = 0; i < n; i++) dx[i] += 3 * x0[i] * x0[i] * d_ret;
	free(tape);
}

void *__enzyme_register_gradient_sumcubes[3] = {(void *)sumcubes, (void *)sumcubes_aug, (void *)sumcubes_rev};

/* A rule for a function that has no bitcode (ext/ext.c, built by gcc). */
double ext_cube(double x);
int ext_cube_rev_calls;
double ext_cube_rev(double x, double d_ret) {
	ext_cube_rev_calls++;
	return 3 * x * x * d_ret;
}
void *__enzyme_register_gradient_ext_cube[3] = {(void *)ext_cube, (void *)0, (void *)ext_cube_rev};
