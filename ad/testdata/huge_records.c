// Record buffers of megabytes (hugepages.go): wave's loop of n steps
// needs every step's t in its reverse, records of 8 bytes or more a step,
// so n = 300000 takes at least 2.4 MB, past a 2 MiB huge page, and
// n = 1000 stays below. Gradients (twice: the combined gradient keeps its
// buffer from one call to the next) against central differences, and the
// Hessian along v by forward mode over the gradient (the advice, inactive,
// in the derivative differentiated again) against central differences of
// the gradient.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static int failures;
static void check(const char *what, int i, double got, double want, double tol) {
	if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
		printf("FAIL %s[%d]: got %.15g, want %.15g\n", what, i, got, want);
		failures++;
	}
}

double wave(const double *x, long n) {
	double t = 0, s = 0;
	for (long i = 0; i < n; i++) {
		t = sin(t + x[i & 3]);
		s += t * t;
	}
	return s;
}

void grad_wave(const double *x, double *g, long n) {
	for (int i = 0; i < 4; i++) g[i] = 0;
	__enzyme_autodiff((void *)wave, enzyme_dup, x, g, enzyme_const, n);
}

int main(void) {
	const double h = 1e-5;
	double x[4] = {0.3, -0.2, 0.7, 0.1}, v[4] = {0.5, -1, 0.25, 2};
	for (long n = 1000; n <= 300000; n *= 300) {
		double want[4], g[4];
		for (int i = 0; i < 4; i++) {
			double xp[4] = {x[0], x[1], x[2], x[3]}, xm[4] = {x[0], x[1], x[2], x[3]};
			xp[i] += h;
			xm[i] -= h;
			want[i] = (wave(xp, n) - wave(xm, n)) / (2 * h);
		}
		for (int round = 0; round < 2; round++) {
			grad_wave(x, g, n);
			for (int i = 0; i < 4; i++) check(n > 1000 ? "wave (large)" : "wave", i, g[i], want[i], 1e-6);
		}
		double dx[4] = {0}, hv[4] = {0}, gp[4], gm[4], xp[4], xm[4];
		__enzyme_fwddiff((void *)grad_wave, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, n);
		for (int i = 0; i < 4; i++) {
			xp[i] = x[i] + h * v[i];
			xm[i] = x[i] - h * v[i];
		}
		grad_wave(xp, gp, n);
		grad_wave(xm, gm, n);
		for (int i = 0; i < 4; i++) {
			check("wave Hv", i, hv[i], (gp[i] - gm[i]) / (2 * h), 1e-5);
			check("wave gradient beside Hv", i, dx[i], g[i], 1e-12);
		}
	}
	printf(failures ? "FAILED\n" : "OK\n");
	return failures != 0;
}
