/* Two floats swapped with memcpy through an int temporary (at -O0 the
 * copies stay memcpy calls into and out of `alloca i32`). CASE picks the
 * function (checked against central differences):
 *   direct: the floats in a local array;
 *   hidden: in a malloc'd buffer reached through a noinline getter (once
 *     a gradient of (0, 6) instead of (3, 3) at -O0: the copy out of the
 *     int temporary was taken for integers by its IR type);
 *   ints: an int permutation swapped the same way (integers, no
 *     derivative; must keep building);
 *   used_as_int: the temporary is also read as an integer: exact, or
 *     the link stops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
enum { N = 4 };
double direct(double *x) {
	float v[2] = {(float)x[0], (float)x[1]};
	int t;
	memcpy(&t, &v[0], 4);
	memcpy(&v[0], &v[1], 4);
	memcpy(&v[1], &t, 4);
	return v[0] * v[0] + 3 * v[1];
}
__attribute__((noinline)) void *elt(float *v, long i) { return &v[i]; }
double hidden(double *x) {
	float *v = malloc(2 * sizeof(float));
	v[0] = (float)x[0], v[1] = (float)x[1];
	int t;
	void *a = elt(v, 0), *b = elt(v, 1);
	memcpy(&t, a, 4);
	memcpy(a, b, 4);
	memcpy(b, &t, 4);
	double r = v[0] * v[0] + 3 * v[1];
	free(v);
	return r;
}
double ints(double *x) {
	int p[4] = {3, 1, 2, 0}, q[4];
	memcpy(q, p, sizeof p);
	int t;
	memcpy(&t, &q[0], 4);
	memcpy(&q[0], &q[1], 4);
	memcpy(&q[1], &t, 4);
	double s = 0;
	for (int i = 0; i < 2; i++) s += x[q[i]] * x[i];
	return s;
}
double used_as_int(double *x) {
	float *v = malloc(2 * sizeof(float));
	v[0] = (float)x[0], v[1] = (float)x[1];
	int t;
	void *a = elt(v, 0), *b = elt(v, 1);
	memcpy(&t, a, 4);
	int k = t >> 3;
	memcpy(a, b, 4);
	memcpy(b, &t, 4);
	double r = v[0] * v[0] + 3 * v[1] + (k == 12345);
	free(v);
	return r;
}
int main(void) {
	double x[N] = {0.5, 1.5, 2, 3}, dx[N] = {0};
	__enzyme_autodiff((void *)CASE, enzyme_dup, x, dx);
	for (int i = 0; i < N; i++) {
		double s = x[i], h = 1e-4;
		x[i] = s + h; double fp = CASE(x);
		x[i] = s - h; double fm = CASE(x);
		x[i] = s;
		char w[32]; snprintf(w, sizeof w, "dx[%d]", i);
		check(w, dx[i], (fp - fm) / (2 * h), 1e-3);
	}
	return failures != 0;
}
